// Names and reasons of the tensor classes for N (SPEC §3).
#include "params/param_class.h"

#include "core/enum_names.h"

namespace openrecipes::params {

namespace {

// A class's name and what it holds (for excluded classes, why N leaves it out).
struct ParamClassRow {
  ParamClass value;
  std::string_view name;
  std::string_view reason;
};

constexpr ParamClassRow kParamClasses[] = {
    {ParamClass::attention, "attention",
     "attention projections (incl. MLA, linear attention and the sparse-attention indexer)"},
    {ParamClass::dense_mlp, "dense_mlp", "dense MLP layers"},
    {ParamClass::shared_expert, "shared_expert", "shared-expert MLPs and their gates"},
    {ParamClass::routed_expert, "routed_expert", "routed experts, counted at top-k of the expert count"},
    {ParamClass::router, "router", "expert routers"},
    {ParamClass::output_projection, "output_projection",
     "output projection, counted even when tied to the input embedding"},
    {ParamClass::embedding, "embedding", "input embedding: a table lookup, not a matrix multiply"},
    {ParamClass::norm, "norm", "normalization weights: elementwise scales"},
    {ParamClass::bias, "bias", "biases: added, not multiplied"},
    {ParamClass::elementwise, "elementwise",
     "per-channel parameters applied elementwise (attention sinks, SSM decay, depthwise convolution): "
     "not a matrix multiply"},
    {ParamClass::position_embedding, "position_embedding", "position embeddings"},
    {ParamClass::index_table, "index_table", "integer index tables"},
    {ParamClass::mtp, "mtp", "multi-token prediction layers: an auxiliary head outside the model's forward pass"},
    {ParamClass::vision, "vision", "vision tower: not part of the text model"},
    {ParamClass::quantization_scale, "quantization_scale",
     "quantization scales: metadata of quantized weights, not weights (nor parameters)"}};

}  // namespace

std::string_view param_class_name(ParamClass c) { return name_of(kParamClasses, c); }

std::optional<ParamClass> param_class_named(std::string_view name) { return value_named(kParamClasses, name); }

std::string_view param_class_reason(ParamClass c) {
  for (const auto& row : kParamClasses)
    if (row.value == c) return row.reason;
  return "?";
}

}  // namespace openrecipes::params
