// Component-test records for same-math swaps (SPEC §4.2): {swap, compares, shape, bound, worst_error, passed}.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace openrecipes::checks {

/// The layer shape of a model, as component tests state it (e.g. hidden_size, ffn_hidden_size,
/// num_attention_heads, num_query_groups, kv_channels, num_experts, moe_ffn_hidden_size, top_k).
using LayerShape = std::map<std::string, std::int64_t>;

/// One component test a recipe records for a same-math swap.
struct ComponentTest {
  std::string swap;        ///< the argument it justifies, e.g. "attention_backend"
  std::string compares;    ///< what it compares, e.g. "flash vs unfused attention, fwd+bwd, BF16"
  LayerShape shape;        ///< the layer shape it ran at
  double bound = 0;        ///< the error bound it was held to (>= 0)
  double worst_error = 0;  ///< the worst error it saw (>= 0)
  bool passed = false;
  std::string where;  ///< recipe file:line, for messages
  bool operator==(const ComponentTest&) const = default;
};

/// Why a component test does or does not count for `model_shape` (SPEC §4.2: it counts only if passed,
/// worst_error <= bound, and its shape is the model's layer shape). Empty string when it counts.
std::string component_test_problem(const ComponentTest& test, const LayerShape& model_shape);

}  // namespace openrecipes::checks
