// Classes each tensor name of a Hugging Face checkpoint for N, per architecture family: which names are attention,
// MLP, shared or routed experts, routers, the output projection, and which are excluded and why (SPEC §3). A name no
// rule classes is an error naming it, so a new tensor kind is never silently counted or dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "params/model_config.h"
#include "params/param_class.h"

namespace openrecipes::params {

/// What a tensor name means.
struct TensorRole {
  enum class Experts : unsigned char { none, per_expert, fused };
  ParamClass cls = ParamClass::attention;
  std::int64_t layer = -1;          // decoder layer index (-1 outside the decoder layers)
  Experts experts = Experts::none;  // routed experts: one tensor per expert, or all experts stacked on dim 0
  std::int64_t expert = -1;         // per_expert: the expert index
  std::string_view projection;      // routed experts: gate_proj, up_proj, down_proj, gate_up_proj; Mixtral w1, w3, w2
  bool fp4_blocks = false;          // MXFP4 `*_blocks` (gpt-oss): U8 holding two FP4 values per byte
};

/// The naming rules of one architecture family (from ModelConfig::family()).
///
/// Names follow the Hugging Face checkpoints: `model.` (Qwen3.5/3.6: `model.language_model.`) + `embed_tokens`,
/// `norm`, `layers.<i>.<...>`; `lm_head.weight`; `mtp.*` (Qwen3-Next, Qwen3.5/3.6); `model.visual.*` (Qwen3.5/3.6);
/// DeepSeek/Kimi/GLM MTP as layers num_hidden_layers .. + num_nextn_predict_layers - 1. Quantization companions
/// (`weight_scale_inv`, `weight_scale`, `weight_scale_2`, `input_scale`, `k_scale`, `v_scale`, gpt-oss `*_scales`)
/// of a classed weight are quantization scales; so are those suffixes anywhere in MTP layers and the vision tower
/// (scales there are scales, not MTP or vision parameters). Mixtral: `block_sparse_moe.gate` (router) and
/// `block_sparse_moe.experts.<e>.w1/w3/w2` (gate, up, down).
class TensorRules {
 public:
  explicit TensorRules(const ModelConfig& config);

  /// The role of `name`. Throws InputError ("tensor '<name>'") when no rule of this family classes it, or when a
  /// layer index is past num_hidden_layers (+ MTP layers).
  TensorRole classify(std::string_view name) const;

 private:
  struct Rule {
    ParamClass cls;
    TensorRole::Experts experts = TensorRole::Experts::none;
    std::string_view projection;
    bool fp4_blocks = false;
    bool weight = true;  // a weight that may have quantization-scale companions
  };
  void add(std::string pattern, Rule rule);
  const Rule* layer_rule(const std::string& normalized) const;
  TensorRole classify_layer(std::string_view name, std::string_view rest, std::int64_t layer) const;
  [[noreturn]] void unclassed(std::string_view name, std::string_view why = {}) const;

  Family family_;
  std::string model_type_;
  std::int64_t layers_ = 0;
  std::int64_t mtp_layers_ = 0;
  std::unordered_map<std::string, Rule> layer_rules_;  // layer-relative name, numbers as '#'
};

}  // namespace openrecipes::params
