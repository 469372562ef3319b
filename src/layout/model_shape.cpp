// Model shapes for the planner: from config.json (through params' counting) or a Megatron argument dump.
#include "layout/model_shape.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/text.h"
#include "params/count.h"
#include "params/model_config.h"

namespace openrecipes::layout {
namespace {

// Bounds far above any released model, so that a hostile config or dump cannot overflow the planner's arithmetic: a
// dimension up to 2^22 (vocabularies reach 2^18), layers up to params::kMaxLayers, experts up to params::kMaxExperts.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 22;

}  // namespace

std::int64_t ModelShape::total_params() const {
  return attention_params + dense_mlp_params + shared_expert_params + router_params + expert_params + norm_params +
         embedding_params * (tied ? 1 : 2) + position_params;
}

std::int64_t ModelShape::active_params() const {
  const std::int64_t routed = experts > 0 ? params::routed_active(expert_params, top_k, experts, name) : 0;
  return attention_params + dense_mlp_params + shared_expert_params + router_params + routed + embedding_params;
}

std::int64_t padded_vocab(std::int64_t vocab, std::int64_t multiple) {
  if (multiple <= 1) return vocab;
  return (vocab + multiple - 1) / multiple * multiple;
}

ModelShape with_vocab(const ModelShape& m, std::int64_t vocab) {
  ModelShape out = m;
  out.vocab = vocab;
  out.embedding_params = m.embedding_params + (vocab - m.vocab) * m.hidden;
  return out;
}

ModelShape with_padded_vocab(const ModelShape& m, std::int64_t tp) {
  return with_vocab(m, padded_vocab(m.vocab, kVocabDivisibleBy * std::max<std::int64_t>(tp, 1)));
}

ModelShape shape_from_config(const nlohmann::json& config, const std::string& source) {
  const params::ParamCount count = params::count_from_config(config, source);
  const params::ModelConfig cfg = params::ModelConfig::from_json(config, source);
  using params::Family;
  using params::ParamClass;
  ModelShape s;
  s.name = source;
  s.layers = cfg.num_layers();
  s.hidden = cfg.require_int("hidden_size");
  s.vocab = cfg.require_int("vocab_size");
  s.heads = cfg.require_int("num_attention_heads");
  s.tied = cfg.tie_word_embeddings();
  if (cfg.family() == Family::deepseek_v3) {
    s.mla = true;
    s.query_groups = s.heads;
    s.head_dim = cfg.require_int("qk_nope_head_dim") + cfg.require_int("qk_rope_head_dim");
    s.v_head_dim = cfg.require_int("v_head_dim");
  } else {
    s.query_groups = cfg.require_int("num_key_value_heads");
    if (auto hd = cfg.find_int("head_dim"))
      s.head_dim = *hd;
    else if (s.hidden % s.heads == 0)
      s.head_dim = s.hidden / s.heads;
    else
      throw InputError(source + ": head_dim", "missing, and hidden_size is not a multiple of num_attention_heads",
                       "use the checkpoint's own config.json");
    s.v_head_dim = s.head_dim;
  }
  if (cfg.has_experts()) {
    s.experts = cfg.num_experts();
    s.top_k = cfg.top_k();
    const bool ffn_is_expert = cfg.family() == Family::gpt_oss || cfg.family() == Family::mixtral;
    s.expert_ffn_hidden = cfg.require_int(ffn_is_expert ? "intermediate_size" : "moe_intermediate_size");
    for (std::int64_t i = 0; i < s.layers; ++i) {
      s.moe_layer.push_back(cfg.is_moe_layer(i));
      s.moe_layers += s.moe_layer.back() ? 1 : 0;
    }
    if (cfg.family() == Family::deepseek_v3 || cfg.family() == Family::glm4_moe)
      s.shared_ffn_hidden = cfg.find_int("n_shared_experts").value_or(0) * s.expert_ffn_hidden;
    else if (auto shared = cfg.find_int("shared_expert_intermediate_size"))
      s.shared_ffn_hidden = *shared;
  }
  if (s.dense_layers() > 0) s.ffn_hidden = cfg.require_int("intermediate_size");
  for (const auto& [field, value] :
       {std::pair{"hidden_size", s.hidden}, std::pair{"vocab_size", s.vocab}, std::pair{"num_attention_heads", s.heads},
        std::pair{"num_key_value_heads", s.query_groups}, std::pair{"head_dim", s.head_dim},
        std::pair{"v_head_dim", s.v_head_dim}, std::pair{"intermediate_size", s.ffn_hidden},
        std::pair{"moe_intermediate_size", s.expert_ffn_hidden},
        std::pair{"shared_expert_intermediate_size", s.shared_ffn_hidden}})
    if (value > kMaxDimension)
      throw InputError(
          source + ": " + field,
          fmt::format("{} is over {}, far above any released model's (vocabularies reach 2^18)", value, kMaxDimension),
          "use the checkpoint's own config.json");
  s.attention_params = count.of(ParamClass::attention).params;
  s.dense_mlp_params = count.of(ParamClass::dense_mlp).params;
  s.shared_expert_params = count.of(ParamClass::shared_expert).params;
  s.router_params = count.of(ParamClass::router).params;
  s.expert_params = count.of(ParamClass::routed_expert).params;
  s.embedding_params = count.of(ParamClass::output_projection).params;
  s.norm_params = 2 * s.hidden * s.layers + s.hidden;
  // Every other dimension (MLA's ranks, linear attention's heads and widths) is held by its parameters: a model
  // far above the largest released (about 2 x 10^12) is a hostile or broken config, not one to plan.
  constexpr std::int64_t kMaxParams = 1'000'000'000'000'000;  // 10^15
  if (s.total_params() > kMaxParams)
    throw InputError(source, fmt::format("its dimensions give {} parameters, over 10^15", s.total_params()),
                     "use the checkpoint's own config.json");
  return s;
}

namespace {

struct Args {
  const std::map<std::string, std::string>& v;
  const std::string& where;
  std::optional<std::int64_t> find(const char* name) const {
    auto it = v.find(name);
    if (it == v.end() || it->second == "None") return std::nullopt;
    auto n = parse_int(it->second);
    const std::string key(name);
    const std::int64_t max = key == "num_layers"    ? params::kMaxLayers
                             : key == "num_experts" ? params::kMaxExperts
                                                    : kMaxDimension;
    if (!n || *n < 1 || *n > max)
      throw InputError(where + ": " + name,
                       "is " + quote_for_message(it->second) + fmt::format(", not a whole number in 1..{}", max),
                       "give the unedited argument dump");
    return n;
  }
  std::int64_t need(const char* name) const {
    auto n = find(name);
    if (!n)
      throw InputError(where, fmt::format("the argument dump has no {}", name),
                       "give the log of a Megatron-LM run: its argument dump holds the model's shape");
    return *n;
  }
  bool flag(const char* name) const {
    auto it = v.find(name);
    return it != v.end() && it->second == "True";
  }
};

// The product of `xs`, or InputError naming `where` when it passes 2^62 (no model has that many parameters).
std::int64_t product(std::initializer_list<std::int64_t> xs, const std::string& where) {
  std::int64_t out = 1;
  for (auto x : xs)
    if (__builtin_mul_overflow(out, x, &out) || out > (std::int64_t{1} << 62))
      throw InputError(where, "the shape's parameter count overflows", "give the unedited argument dump");
  return out;
}

std::int64_t sum(std::initializer_list<std::int64_t> xs, const std::string& where) {
  std::int64_t out = 0;
  for (auto x : xs)
    if (__builtin_add_overflow(out, x, &out) || out > (std::int64_t{1} << 62))
      throw InputError(where, "the shape's parameter count overflows", "give the unedited argument dump");
  return out;
}

}  // namespace

ModelShape shape_from_arguments(const std::map<std::string, std::string>& args, const std::string& where) {
  const Args a{args, where};
  ModelShape s;
  s.name = where;
  s.layers = a.need("num_layers");
  s.hidden = a.need("hidden_size");
  s.heads = a.need("num_attention_heads");
  s.vocab = a.find("padded_vocab_size").value_or(0);
  if (s.vocab == 0) s.vocab = a.need("vocab_size");
  s.tied = !a.flag("untie_embeddings_and_output_weights");
  s.gated = a.flag("swiglu");
  s.query_groups = a.flag("group_query_attention") ? a.need("num_query_groups") : s.heads;
  const std::int64_t g = s.gated ? 3 : 2;
  const std::int64_t h = s.hidden;
  std::int64_t attention = 0;
  if (a.flag("multi_latent_attention")) {
    s.mla = true;
    const std::int64_t qk = a.need("qk_head_dim"), rope = a.need("qk_pos_emb_head_dim"), vd = a.need("v_head_dim");
    const std::int64_t kv_lora = a.need("kv_lora_rank");
    s.head_dim = qk + rope;
    s.v_head_dim = vd;
    const auto q_lora = a.find("q_lora_rank");
    attention =
        sum({q_lora ? product({*q_lora, h + s.heads * (qk + rope)}, where) : product({h, s.heads, qk + rope}, where),
             product({kv_lora, h + s.heads * (qk + vd)}, where), product({h, rope}, where),
             product({s.heads, vd, h}, where)},
            where);
  } else {
    s.head_dim = a.find("kv_channels").value_or(h / s.heads);
    s.v_head_dim = s.head_dim;
    const std::int64_t q = s.heads * s.head_dim, kv = s.query_groups * s.head_dim;
    attention = sum({product({h, q + 2 * kv}, where), product({q, h}, where)}, where);
  }
  s.ffn_hidden = a.find("ffn_hidden_size").value_or(4 * h);
  if (auto e = a.find("num_experts")) {
    s.experts = *e;
    s.top_k = a.find("moe_router_topk").value_or(2);
    s.expert_ffn_hidden = a.find("moe_ffn_hidden_size").value_or(s.ffn_hidden);
    s.shared_ffn_hidden = a.find("moe_shared_expert_intermediate_size").value_or(0);
    // moe_layer_freq: every n-th layer, or a list of 0/1 per layer ("[0, 1, 1]").
    auto it = args.find("moe_layer_freq");
    if (it != args.end() && !it->second.empty() && it->second.front() == '[') {
      for (char c : it->second)
        if (c == '0' || c == '1') s.moe_layer.push_back(c == '1');
      for (bool moe : s.moe_layer) s.moe_layers += moe ? 1 : 0;
      if (s.moe_layers > s.layers)
        throw InputError(where + ": moe_layer_freq", "marks more MoE layers than num_layers",
                         "give the unedited argument dump");
      if (std::ssize(s.moe_layer) != s.layers) s.moe_layer.clear();  // not one entry a layer: spread in proportion
    } else {
      const std::int64_t freq = a.find("moe_layer_freq").value_or(1);
      for (std::int64_t i = 0; i < s.layers; ++i) {
        s.moe_layer.push_back(i % freq == 0);
        s.moe_layers += s.moe_layer.back() ? 1 : 0;
      }
    }
  }
  s.attention_params = product({attention, s.layers}, where);
  s.dense_mlp_params = product({g, h, s.ffn_hidden, s.dense_layers()}, where);
  s.expert_params = product({g, h, s.expert_ffn_hidden, s.experts, s.moe_layers}, where);
  s.shared_expert_params = product({g, h, s.shared_ffn_hidden, s.moe_layers}, where);
  s.router_params = product({h, s.experts, s.moe_layers}, where);
  s.embedding_params = product({s.vocab, h}, where);
  // Megatron's default position embedding is a learned table of max_position_embeddings x h (LanguageModelEmbedding),
  // on the first stage, not split by TP; rope and the others learn none.
  if (const auto type = args.find("position_embedding_type"); type != args.end() && type->second == "learned_absolute")
    s.position_params = product({a.need("max_position_embeddings"), h}, where);
  sum({s.attention_params, s.dense_mlp_params, s.expert_params, s.shared_expert_params, s.router_params,
       s.embedding_params, s.embedding_params, s.position_params},
      where);  // total_params must not overflow either
  s.norm_params = 2 * h * s.layers + h;
  return s;
}

std::vector<std::string> shape_differences(const ModelShape& model, const ModelShape& run,
                                           std::int64_t vocab_multiple) {
  std::vector<std::string> out;
  auto differ = [&](const char* what, std::int64_t m, std::int64_t r) {
    if (m != r) out.push_back(fmt::format("{}: the model has {}, the run {}", what, m, r));
  };
  differ("layers (num_layers)", model.layers, run.layers);
  differ("hidden size (hidden_size)", model.hidden, run.hidden);
  differ("attention heads (num_attention_heads)", model.heads, run.heads);
  differ("query groups (num_query_groups)", model.query_groups, run.query_groups);
  differ("channels per head (kv_channels, or MLA's qk dims)", model.head_dim, run.head_dim);
  differ("value channels per head (v_head_dim)", model.v_head_dim, run.v_head_dim);
  if (model.mla != run.mla)
    out.push_back(fmt::format("multi-latent attention: the model {}, the run {}", model.mla ? "has it" : "has none",
                              run.mla ? "has it" : "has none"));
  if (model.gated != run.gated)
    out.push_back(fmt::format("gated MLPs (swiglu): the model {}, the run {}", model.gated ? "gates" : "does not",
                              run.gated ? "gates" : "does not"));
  differ("dense layers (moe_layer_freq)", model.dense_layers(), run.dense_layers());
  if (model.dense_layers() > 0) differ("dense FFN width (ffn_hidden_size)", model.ffn_hidden, run.ffn_hidden);
  differ("routed experts (num_experts)", model.experts, run.experts);
  if (model.experts > 0) {
    differ("experts per token (moe_router_topk)", model.top_k, run.top_k);
    differ("expert FFN width (moe_ffn_hidden_size)", model.expert_ffn_hidden, run.expert_ffn_hidden);
    differ("shared expert FFN width (moe_shared_expert_intermediate_size)", model.shared_ffn_hidden,
           run.shared_ffn_hidden);
  }
  const std::int64_t k = std::max<std::int64_t>(vocab_multiple, 1);
  if (padded_vocab(model.vocab, k) != padded_vocab(run.vocab, k))
    out.push_back(fmt::format("vocabulary (padded to a multiple of {}): the model has {} ({}), the run {}", k,
                              padded_vocab(model.vocab, k), model.vocab, padded_vocab(run.vocab, k)));
  return out;
}

}  // namespace openrecipes::layout
