// Names and reasons of the tensor classes for N (SPEC §3).
#include "params/param_class.h"

namespace openrecipes::params {

std::string_view param_class_name(ParamClass c) {
  switch (c) {
    case ParamClass::attention:
      return "attention";
    case ParamClass::dense_mlp:
      return "dense_mlp";
    case ParamClass::shared_expert:
      return "shared_expert";
    case ParamClass::routed_expert:
      return "routed_expert";
    case ParamClass::router:
      return "router";
    case ParamClass::output_projection:
      return "output_projection";
    case ParamClass::embedding:
      return "embedding";
    case ParamClass::norm:
      return "norm";
    case ParamClass::bias:
      return "bias";
    case ParamClass::elementwise:
      return "elementwise";
    case ParamClass::position_embedding:
      return "position_embedding";
    case ParamClass::index_table:
      return "index_table";
    case ParamClass::mtp:
      return "mtp";
    case ParamClass::vision:
      return "vision";
    case ParamClass::quantization_scale:
      return "quantization_scale";
  }
  return "?";
}

std::string_view param_class_reason(ParamClass c) {
  switch (c) {
    case ParamClass::attention:
      return "attention projections (incl. MLA, linear attention and the sparse-attention indexer)";
    case ParamClass::dense_mlp:
      return "dense MLP layers";
    case ParamClass::shared_expert:
      return "shared-expert MLPs and their gates";
    case ParamClass::routed_expert:
      return "routed experts, counted at top-k of the expert count";
    case ParamClass::router:
      return "expert routers";
    case ParamClass::output_projection:
      return "output projection, counted even when tied to the input embedding";
    case ParamClass::embedding:
      return "input embedding: a table lookup, not a matrix multiply";
    case ParamClass::norm:
      return "normalization weights: elementwise scales";
    case ParamClass::bias:
      return "biases: added, not multiplied";
    case ParamClass::elementwise:
      return "per-channel parameters applied elementwise (attention sinks, SSM decay, depthwise convolution): "
             "not a matrix multiply";
    case ParamClass::position_embedding:
      return "position embeddings";
    case ParamClass::index_table:
      return "integer index tables";
    case ParamClass::mtp:
      return "multi-token prediction layers: an auxiliary head outside the model's forward pass";
    case ParamClass::vision:
      return "vision tower: not part of the text model";
    case ParamClass::quantization_scale:
      return "quantization scales: metadata of quantized weights, not weights (nor parameters)";
  }
  return "?";
}

}  // namespace openrecipes::params
