// The classes a checkpoint tensor falls into for N, and why each excluded class is left out (SPEC §3: what N counts
// and what it leaves out).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace openrecipes::params {

/// Class of a tensor. The first six are counted in N; the rest are excluded, each for the reason
/// param_class_reason gives.
enum class ParamClass : int {
  // counted (SPEC §3: weights applied to each token in a matrix multiply)
  attention,          // q/k/v/o, MLA projections, linear-attention projections, sparse-attention indexer
  dense_mlp,          // dense feed-forward layers
  shared_expert,      // shared-expert MLPs and their gate
  routed_expert,      // routed experts, counted at top-k / expert count
  router,             // expert routers
  output_projection,  // lm_head (counted even when tied to the input embedding)
  // excluded
  embedding,           // input embedding (a lookup)
  norm,                // normalization weights (and LayerNorm biases)
  bias,                // biases added after a matrix multiply
  elementwise,         // per-channel parameters applied elementwise: attention sinks, SSM decay, depthwise conv
  position_embedding,  // rotary tables
  index_table,         // integer index tables (reserved: no fixture architecture stores one)
  mtp,                 // multi-token prediction layers
  vision,              // vision tower
  quantization_scale,  // block/tensor scales of quantized weights, and every F8_E8M0 tensor: not parameters
};

inline constexpr std::size_t kParamClassCount = 15;

/// All classes in declaration order (counted first).
inline constexpr std::array<ParamClass, kParamClassCount> kAllParamClasses{ParamClass::attention,
                                                                           ParamClass::dense_mlp,
                                                                           ParamClass::shared_expert,
                                                                           ParamClass::routed_expert,
                                                                           ParamClass::router,
                                                                           ParamClass::output_projection,
                                                                           ParamClass::embedding,
                                                                           ParamClass::norm,
                                                                           ParamClass::bias,
                                                                           ParamClass::elementwise,
                                                                           ParamClass::position_embedding,
                                                                           ParamClass::index_table,
                                                                           ParamClass::mtp,
                                                                           ParamClass::vision,
                                                                           ParamClass::quantization_scale};

/// True for the six classes N counts.
constexpr bool is_counted(ParamClass c) {
  return static_cast<int>(c) <= static_cast<int>(ParamClass::output_projection);
}

/// Stable snake_case name ("routed_expert"), used in tables and JSON.
std::string_view param_class_name(ParamClass c);

/// The class whose param_class_name is `name` (a models/*.yaml breakdown key); nullopt for none.
std::optional<ParamClass> param_class_named(std::string_view name);

/// One line: what the class holds and, for excluded classes, why N leaves it out (SPEC §3).
std::string_view param_class_reason(ParamClass c);

}  // namespace openrecipes::params
