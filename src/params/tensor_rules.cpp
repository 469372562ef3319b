// Tensor-name rules per architecture family (Hugging Face checkpoint layouts), classing each tensor for N (SPEC §3).
#include "params/tensor_rules.h"

#include <fmt/format.h>

#include <array>
#include <charconv>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::params {
namespace {
using Experts = TensorRole::Experts;

constexpr std::array<std::string_view, 6> kScaleSuffixes{"weight_scale_inv", "weight_scale", "weight_scale_2",
                                                         "input_scale",      "k_scale",      "v_scale"};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// True when the last dotted part of `name` is a quantization companion's suffix (X.weight_scale_inv, ...). Used
// inside the excluded parts (MTP layers, vision tower), whose scales are scales, not MTP or vision parameters.
bool scale_suffix(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view last = name.substr(dot + 1);
  for (auto s : kScaleSuffixes)
    if (last == s) return true;
  return false;
}

// A decimal token of at most 9 digits without a leading zero (a layer or expert index). "03" is no index: it would
// name expert 3 a second time, and Hugging Face names never pad, so such a name goes unclassed (an error naming it).
bool index_token(std::string_view t, std::int64_t* out) {
  if (t.empty() || t.size() > 9 || (t.size() > 1 && t[0] == '0')) return false;
  for (char ch : t)
    if (ch < '0' || ch > '9') return false;
  std::int64_t v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);
  *out = v;
  return true;
}
}  // namespace

void TensorRules::add(std::string pattern, Rule rule) { layer_rules_[std::move(pattern)] = rule; }

TensorRules::TensorRules(const ModelConfig& config)
    : family_(config.family()), model_type_(config.model_type()), layers_(config.num_layers()) {
  if (family_ == Family::deepseek_v3 || family_ == Family::glm4_moe) mtp_layers_ = config.mtp_layers();
  using C = ParamClass;
  const Rule att{C::attention, Experts::none, {}, false, true}, mlp{C::dense_mlp, Experts::none, {}, false, true};
  const Rule shared{C::shared_expert, Experts::none, {}, false, true},
      router{C::router, Experts::none, {}, false, true};
  const Rule norm{C::norm, Experts::none, {}, false, false}, bias{C::bias, Experts::none, {}, false, false};
  const Rule elementwise{C::elementwise, Experts::none, {}, false, false};

  // Every family: the two layer norms and rotary tables some older exports carry.
  add("input_layernorm.weight", norm);
  add("post_attention_layernorm.weight", norm);
  add("self_attn.rotary_emb.inv_freq", Rule{C::position_embedding, Experts::none, {}, false, false});

  const bool gqa = family_ != Family::deepseek_v3;
  if (gqa) {
    for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"}) {
      add(fmt::format("self_attn.{}.weight", p), att);
      add(fmt::format("self_attn.{}.bias", p), bias);
    }
  }
  if (family_ == Family::qwen3 || family_ == Family::qwen3_moe || family_ == Family::qwen3_next ||
      family_ == Family::qwen3_5 || family_ == Family::glm4_moe) {
    add("self_attn.q_norm.weight", norm);
    add("self_attn.k_norm.weight", norm);
  }
  if (family_ == Family::deepseek_v3) {  // multi-head latent attention
    for (const char* p : {"q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"})
      add(fmt::format("self_attn.{}.weight", p), att);
    add("self_attn.q_a_layernorm.weight", norm);
    add("self_attn.kv_a_layernorm.weight", norm);
    if (config.has_indexer()) {  // DeepSeek-V3.2 / GLM-5 sparse-attention indexer
      for (const char* p : {"wq_b", "wk", "weights_proj"}) add(fmt::format("self_attn.indexer.{}.weight", p), att);
      add("self_attn.indexer.k_norm.weight", norm);
      add("self_attn.indexer.k_norm.bias", norm);
    }
  }
  if (family_ == Family::qwen3_next || family_ == Family::qwen3_5) {  // gated DeltaNet linear attention
    for (const char* p :
         {"in_proj_qkvz", "in_proj_ba", "in_proj_qkv", "in_proj_z", "in_proj_a", "in_proj_b", "out_proj"})
      add(fmt::format("linear_attn.{}.weight", p), att);
    add("linear_attn.conv1d.weight", elementwise);
    add("linear_attn.conv1d.bias", bias);
    add("linear_attn.A_log", elementwise);
    add("linear_attn.dt_bias", bias);
    add("linear_attn.norm.weight", norm);
  }
  if (family_ == Family::gpt_oss) {
    add("self_attn.sinks", elementwise);
    add("mlp.router.weight", router);
    add("mlp.router.bias", bias);
    for (std::string_view p : {std::string_view("gate_up_proj"), std::string_view("down_proj")}) {
      add(fmt::format("mlp.experts.{}_blocks", p), Rule{C::routed_expert, Experts::fused, p, true, false});
      add(fmt::format("mlp.experts.{}_scales", p), Rule{C::quantization_scale, Experts::none, {}, false, false});
      add(fmt::format("mlp.experts.{}_bias", p), bias);
      add(fmt::format("mlp.experts.{}", p), Rule{C::routed_expert, Experts::fused, p, false, false});  // BF16 export
    }
    return;
  }
  if (family_ == Family::mixtral) {  // every layer is sparse: router + experts w1 (gate), w3 (up), w2 (down)
    add("block_sparse_moe.gate.weight", router);
    for (std::string_view p : {std::string_view("w1"), std::string_view("w3"), std::string_view("w2")})
      add(fmt::format("block_sparse_moe.experts.#.{}.weight", p),
          Rule{C::routed_expert, Experts::per_expert, p, false, true});
    return;
  }
  // Dense MLP: every family but gpt-oss and Mixtral (dense models; first_k_dense_replace, mlp_only_layers).
  for (const char* p : {"gate_proj", "up_proj", "down_proj"}) {
    add(fmt::format("mlp.{}.weight", p), mlp);
    add(fmt::format("mlp.{}.bias", p), bias);
  }
  if (!config.has_experts()) return;
  add("mlp.gate.weight", router);
  for (std::string_view p : {std::string_view("gate_proj"), std::string_view("up_proj"), std::string_view("down_proj")})
    add(fmt::format("mlp.experts.#.{}.weight", p), Rule{C::routed_expert, Experts::per_expert, p, false, true});
  if (family_ == Family::qwen3_5) {  // Qwen3.5/3.6 BF16 checkpoints stack the experts: [E, 2I, H] and [E, H, I]
    add("mlp.experts.gate_up_proj", Rule{C::routed_expert, Experts::fused, "gate_up_proj", false, false});
    add("mlp.experts.down_proj", Rule{C::routed_expert, Experts::fused, "down_proj", false, false});
  }
  if (family_ == Family::qwen3_next || family_ == Family::qwen3_5) {
    for (const char* p : {"gate_proj", "up_proj", "down_proj"})
      add(fmt::format("mlp.shared_expert.{}.weight", p), shared);
    add("mlp.shared_expert_gate.weight", shared);
  }
  if (family_ == Family::deepseek_v3 || family_ == Family::glm4_moe) {
    for (const char* p : {"gate_proj", "up_proj", "down_proj"})
      add(fmt::format("mlp.shared_experts.{}.weight", p), shared);
    add("mlp.gate.e_score_correction_bias", bias);
  }
}

const TensorRules::Rule* TensorRules::layer_rule(const std::string& normalized) const {
  auto it = layer_rules_.find(normalized);
  return it == layer_rules_.end() ? nullptr : &it->second;
}

void TensorRules::unclassed(std::string_view name, std::string_view why) const {
  throw InputError(
      "tensor " + quote_for_message(name, 200),
      why.empty() ? fmt::format("no rule for model_type {} classes this tensor", model_type_) : std::string(why),
      "check that config.json belongs to this checkpoint; a new kind of tensor needs a rule in "
      "src/params/tensor_rules.cpp (counted, or excluded with its reason)");
}

TensorRole TensorRules::classify_layer(std::string_view name, std::string_view rest, std::int64_t layer) const {
  TensorRole role;
  role.layer = layer;
  if (layer >= layers_) {
    if (layer < layers_ + mtp_layers_) {  // DeepSeek/Kimi/GLM: MTP modules are layers L .. L + nextn - 1
      role.cls = scale_suffix(rest) ? ParamClass::quantization_scale : ParamClass::mtp;
      return role;
    }
    unclassed(name, mtp_layers_ > 0 ? fmt::format("layer {} is past num_hidden_layers {} + {} MTP layers", layer,
                                                  layers_, mtp_layers_)
                                    : fmt::format("layer {} is past num_hidden_layers {}", layer, layers_));
  }
  // Normalize: numeric tokens become '#', the first one is kept (expert index).
  std::string normalized;
  normalized.reserve(rest.size());
  std::int64_t number = -1;
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t dot = rest.find('.', start);
    if (dot == std::string_view::npos) dot = rest.size();
    std::string_view token = rest.substr(start, dot - start);
    std::int64_t v = 0;
    if (!normalized.empty()) normalized += '.';
    if (index_token(token, &v)) {
      normalized += '#';
      if (number < 0) number = v;
    } else {
      normalized += token;
    }
    start = dot + 1;
  }
  if (const Rule* r = layer_rule(normalized)) {
    role.cls = r->cls;
    role.experts = r->experts;
    role.projection = r->projection;
    role.fp4_blocks = r->fp4_blocks;
    if (r->experts == Experts::per_expert) role.expert = number;
    return role;
  }
  // Quantization companions of a classed weight: X.weight_scale_inv, X.weight_scale, ..., k_proj.k_scale.
  std::size_t last = normalized.rfind('.');
  if (last != std::string::npos) {
    std::string_view suffix = std::string_view(normalized).substr(last + 1);
    for (auto s : kScaleSuffixes)
      if (suffix == s) {
        const Rule* base = layer_rule(normalized.substr(0, last) + ".weight");
        if (base && base->weight && (s != "k_scale" || normalized.find("k_proj.") != std::string::npos) &&
            (s != "v_scale" || normalized.find("v_proj.") != std::string::npos)) {
          role.cls = ParamClass::quantization_scale;
          return role;
        }
      }
  }
  unclassed(name);
}

TensorRole TensorRules::classify(std::string_view name) const {
  TensorRole role;
  auto scale_of = [&](std::string_view base, std::string_view n) {
    if (!starts_with(n, base) || n.size() <= base.size() || n[base.size()] != '.') return false;
    std::string_view s = n.substr(base.size() + 1);
    for (auto x : kScaleSuffixes)
      if (s == x && x != "k_scale" && x != "v_scale") return true;
    return false;
  };
  if (name == "lm_head.weight") {
    role.cls = ParamClass::output_projection;
    return role;
  }
  if (scale_of("lm_head", name)) {
    role.cls = ParamClass::quantization_scale;
    return role;
  }
  const bool qwen_mtp = family_ == Family::qwen3_next || family_ == Family::qwen3_5;
  if (qwen_mtp && starts_with(name, "mtp.")) {
    role.cls = scale_suffix(name) ? ParamClass::quantization_scale : ParamClass::mtp;
    return role;
  }
  std::string_view rest;
  if (family_ == Family::qwen3_5) {
    if (starts_with(name, "model.visual.") || starts_with(name, "visual.")) {
      role.cls = scale_suffix(name) ? ParamClass::quantization_scale : ParamClass::vision;
      return role;
    }
    if (starts_with(name, "model.language_model."))
      rest = name.substr(21);
    else if (starts_with(name, "model."))
      rest = name.substr(6);  // text-only exports
    else
      unclassed(name);
  } else {
    if (!starts_with(name, "model.")) unclassed(name);
    rest = name.substr(6);
  }
  if (rest == "embed_tokens.weight") {
    role.cls = ParamClass::embedding;
    return role;
  }
  if (rest == "norm.weight") {
    role.cls = ParamClass::norm;
    return role;
  }
  if (scale_of("embed_tokens", rest)) {
    role.cls = ParamClass::quantization_scale;
    return role;
  }
  if (starts_with(rest, "layers.")) {
    std::string_view tail = rest.substr(7);
    std::size_t dot = tail.find('.');
    std::int64_t layer = 0;
    if (dot != std::string_view::npos && index_token(tail.substr(0, dot), &layer))
      return classify_layer(name, tail.substr(dot + 1), layer);
  }
  unclassed(name);
}

}  // namespace openrecipes::params
