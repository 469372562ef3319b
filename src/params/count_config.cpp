// N from config.json arithmetic alone (SPEC §3), per architecture family: the planning count before a download, and
// the cross-check of every header count.
#include <fmt/format.h>

#include "core/error.h"
#include "core/json_limits.h"
#include "core/text.h"
#include "params/count.h"
#include "params/model_config.h"

namespace openrecipes::params {
namespace {

// Products and sums that throw instead of overflowing (config values are untrusted).
class Arith {
 public:
  explicit Arith(std::string where) : where_(std::move(where)) {}
  std::int64_t mul(std::initializer_list<std::int64_t> xs) const {
    std::int64_t r = 1;
    for (auto x : xs)
      if (__builtin_mul_overflow(r, x, &r)) overflow();
    return r;
  }
  std::int64_t add(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) overflow();
    return r;
  }

 private:
  [[noreturn]] void overflow() const {
    throw InputError(where_, "parameter arithmetic overflows 64 bits", "check the config's dimensions");
  }
  std::string where_;
};

struct Counter {
  const ModelConfig& cfg;
  Arith a;
  ParamCount& pc;
  void add(ParamClass c, std::int64_t params) {
    ClassCount& cc = pc.of(c);
    cc.params = a.add(cc.params, params);
  }
};

std::int64_t head_dim(const ModelConfig& cfg, std::int64_t hidden, std::int64_t heads) {
  if (auto hd = cfg.find_int("head_dim")) return *hd;
  if (heads == 0 || hidden % heads != 0)
    throw InputError(cfg.source() + ": head_dim", "missing, and hidden_size is not a multiple of num_attention_heads",
                     "use the checkpoint's own config.json");
  return hidden / heads;
}

// Softmax attention with grouped KV heads: q (doubled when the output is gated), k, v, o.
std::int64_t gqa_params(const ModelConfig& cfg, const Arith& a, std::int64_t H, bool gated) {
  const std::int64_t nh = cfg.require_int("num_attention_heads");
  const std::int64_t kv = cfg.require_int("num_key_value_heads");
  const std::int64_t hd = head_dim(cfg, H, nh);
  return a.add(a.add(a.mul({H, nh, hd, gated ? 2 : 1}), a.mul({2, H, kv, hd})), a.mul({nh, hd, H}));
}

// Gated DeltaNet (Qwen3-Next, Qwen3.5/3.6): q, k (key heads), v, z (value heads), beta and alpha (one per value head),
// out. The depthwise conv1d is elementwise per channel, not a matrix multiply.
std::int64_t linear_attention_params(const ModelConfig& cfg, const Arith& a, std::int64_t H) {
  const std::int64_t nk = cfg.require_int("linear_num_key_heads");
  const std::int64_t nv = cfg.require_int("linear_num_value_heads");
  const std::int64_t dk = cfg.require_int("linear_key_head_dim");
  const std::int64_t dv = cfg.require_int("linear_value_head_dim");
  const std::int64_t key = a.mul({nk, dk}), value = a.mul({nv, dv});
  const std::int64_t in = a.mul({H, a.add(a.mul({2, key}), a.add(a.mul({2, value}), a.mul({2, nv})))});
  return a.add(in, a.mul({value, H}));
}

// Multi-head latent attention (DeepSeek-V3, Kimi-K2, GLM-5), plus the sparse-attention indexer (V3.2, GLM-5).
std::int64_t mla_params(const ModelConfig& cfg, const Arith& a, std::int64_t H) {
  const std::int64_t nh = cfg.require_int("num_attention_heads");
  const std::int64_t kv_lora = cfg.require_int("kv_lora_rank");
  const std::int64_t nope = cfg.require_int("qk_nope_head_dim");
  const std::int64_t rope = cfg.require_int("qk_rope_head_dim");
  const std::int64_t vd = cfg.require_int("v_head_dim");
  const auto q_lora = cfg.find_int("q_lora_rank");
  const std::int64_t qk = a.add(nope, rope);
  std::int64_t p = q_lora ? a.add(a.mul({H, *q_lora}), a.mul({*q_lora, nh, qk})) : a.mul({H, nh, qk});
  p = a.add(p, a.mul({H, a.add(kv_lora, rope)}));       // kv_a_proj_with_mqa
  p = a.add(p, a.mul({kv_lora, nh, a.add(nope, vd)}));  // kv_b_proj
  p = a.add(p, a.mul({nh, vd, H}));                     // o_proj
  if (cfg.has_indexer()) {
    if (!q_lora)
      throw InputError(cfg.source() + ": q_lora_rank", "missing; the sparse-attention indexer reads the q latent",
                       "use the checkpoint's own config.json");
    const std::int64_t ih = cfg.require_int("index_n_heads");
    const std::int64_t id = cfg.require_int("index_head_dim");
    p = a.add(p, a.add(a.mul({*q_lora, ih, id}), a.add(a.mul({H, id}), a.mul({H, ih}))));  // wq_b, wk, weights_proj
  }
  return p;
}

// Layer i's attention kind for the hybrid families: layer_types when given, else every full_attention_interval-th.
bool full_attention_layer(const ModelConfig& cfg, std::int64_t i) {
  auto it = cfg.text().find("layer_types");
  if (it != cfg.text().end() && it->is_array()) {
    if (static_cast<std::int64_t>(it->size()) != cfg.num_layers())
      throw InputError(cfg.source() + ": layer_types",
                       fmt::format("has {} entries for {} layers", it->size(), cfg.num_layers()),
                       "use the checkpoint's own config.json");
    const auto& t = (*it)[static_cast<std::size_t>(i)];
    if (!t.is_string()) throw InputError(cfg.source() + ": layer_types", "holds a non-string entry");
    if (t == "full_attention") return true;
    if (t == "linear_attention") return false;
    throw InputError(cfg.source() + ": layer_types",
                     "holds " + json_excerpt(t.dump()) +
                         " (expected full_attention or "
                         "linear_attention)",
                     "use the checkpoint's own config.json");
  }
  const std::int64_t every = cfg.require_int("full_attention_interval");
  if (every == 0) throw InputError(cfg.source() + ": full_attention_interval", "is 0");
  return (i + 1) % every == 0;
}

}  // namespace

ParamCount count_from_config(const nlohmann::json& config, const std::string& config_source) {
  const ModelConfig cfg = ModelConfig::from_json(config, config_source);
  ParamCount pc;
  pc.source = "config";
  pc.model_type = cfg.model_type();
  Counter c{cfg, Arith(config_source), pc};
  const Arith& a = c.a;
  const std::int64_t H = cfg.require_int("hidden_size");
  const std::int64_t V = cfg.require_int("vocab_size");
  const std::int64_t L = cfg.num_layers();
  const Family f = cfg.family();

  std::int64_t E = 0, k = 0;
  if (cfg.has_experts()) {
    E = cfg.num_experts();
    k = cfg.top_k();
    pc.num_experts = E;
    pc.top_k = k;
  }
  const bool hybrid = f == Family::qwen3_next || f == Family::qwen3_5;
  const bool gated = hybrid && cfg.find_bool("attn_output_gate", true);

  for (std::int64_t i = 0; i < L; ++i) {
    // Attention.
    if (f == Family::deepseek_v3)
      c.add(ParamClass::attention, mla_params(cfg, a, H));
    else if (hybrid && !full_attention_layer(cfg, i))
      c.add(ParamClass::attention, linear_attention_params(cfg, a, H));
    else
      c.add(ParamClass::attention, gqa_params(cfg, a, H, gated));

    // MLP: dense, or router + routed experts (+ shared experts).
    const bool moe = cfg.is_moe_layer(i);
    if (!moe) {
      c.add(ParamClass::dense_mlp, a.mul({3, H, cfg.require_int("intermediate_size")}));
      continue;
    }
    c.add(ParamClass::router, a.mul({E, H}));
    // gpt-oss and Mixtral size their experts with intermediate_size (they have no dense MLP); the others with
    // moe_intermediate_size.
    const std::int64_t expert_ffn = f == Family::gpt_oss || f == Family::mixtral
                                        ? cfg.require_int("intermediate_size")
                                        : cfg.require_int("moe_intermediate_size");
    c.add(ParamClass::routed_expert, a.mul({E, 3, H, expert_ffn}));
    if (f == Family::qwen3_next || f == Family::qwen3_5) {  // one shared expert and its sigmoid gate [1, H]
      if (auto shared = cfg.find_int("shared_expert_intermediate_size"); shared && *shared > 0)
        c.add(ParamClass::shared_expert, a.add(a.mul({3, H, *shared}), H));
    } else if (f == Family::deepseek_v3 || f == Family::glm4_moe) {
      const std::int64_t n_shared = cfg.find_int("n_shared_experts").value_or(0);
      if (n_shared > 0) c.add(ParamClass::shared_expert, a.mul({n_shared, 3, H, expert_ffn}));
    }
  }
  c.add(ParamClass::output_projection, a.mul({V, H}));
  c.add(ParamClass::embedding, a.mul({V, H}));
  pc.output_tied = cfg.tie_word_embeddings();

  for (ParamClass cls : kAllParamClasses) {
    if (!is_counted(cls)) continue;
    ClassCount& cc = pc.of(cls);
    if (cls == ParamClass::routed_expert && cc.params > 0) {
      cc.active = routed_active(cc.params, k, E, config_source);
      pc.notes.push_back(fmt::format("routed experts counted at top-k {} of {} experts", k, E));
    } else {
      cc.active = cc.params;
    }
    pc.n_active = a.add(pc.n_active, cc.active);
    pc.counted_total = a.add(pc.counted_total, cc.params);
  }
  if (pc.output_tied)
    pc.notes.push_back("tie_word_embeddings: the output projection (vocab_size × hidden_size) is counted once");
  if (const std::int64_t mtp = cfg.mtp_layers(); mtp > 0)
    pc.notes.push_back(fmt::format("{} in config.json: left out", counted(mtp, "MTP layer")));
  if (config.contains("vision_config")) pc.notes.push_back("vision tower (vision_config): left out");
  pc.notes.push_back("from config.json arithmetic: norms, biases, MTP, vision and quantization scales not predicted");
  return pc;
}

std::vector<CountDifference> compare_counts(const ParamCount& checkpoint, const ParamCount& config) {
  std::vector<CountDifference> out;
  if (checkpoint.n_active != config.n_active) out.push_back({"N", checkpoint.n_active, config.n_active});
  for (ParamClass c : kAllParamClasses) {
    if (!is_counted(c) && c != ParamClass::embedding) continue;
    const ClassCount& x = checkpoint.of(c);
    const ClassCount& y = config.of(c);
    const std::string name(param_class_name(c));
    if (x.params != y.params) out.push_back({name + ".params", x.params, y.params});
    if (is_counted(c) && x.active != y.active) out.push_back({name + ".active", x.active, y.active});
  }
  return out;
}

}  // namespace openrecipes::params
