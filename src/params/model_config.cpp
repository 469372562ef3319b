// config.json fields for counting N: family by model_type, text_config nesting, MoE and MTP fields (SPEC §3).
#include "params/model_config.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/error.h"
#include "core/json_limits.h"
#include "core/text.h"

namespace openrecipes::params {
using nlohmann::json;

namespace {
struct TypeRow {
  std::string_view model_type;
  Family family;
  bool indexer;
  bool experts;
};
constexpr std::array<TypeRow, 15> kTypes{{
    {"llama", Family::llama, false, false},
    {"qwen3", Family::qwen3, false, false},
    {"qwen3_moe", Family::qwen3_moe, false, true},
    {"qwen3_next", Family::qwen3_next, false, true},
    {"qwen3_5", Family::qwen3_5, false, false},
    {"qwen3_5_text", Family::qwen3_5, false, false},
    {"qwen3_5_moe", Family::qwen3_5, false, true},
    {"qwen3_5_moe_text", Family::qwen3_5, false, true},
    {"deepseek_v3", Family::deepseek_v3, false, true},
    {"kimi_k2", Family::deepseek_v3, false, true},
    {"deepseek_v32", Family::deepseek_v3, true, true},
    {"glm_moe_dsa", Family::deepseek_v3, true, true},
    {"glm4_moe", Family::glm4_moe, false, true},
    {"gpt_oss", Family::gpt_oss, false, true},
    {"mixtral", Family::mixtral, false, true},
}};

constexpr std::int64_t kMaxField = std::int64_t{1} << 40;

bool contains_fp4(const json& v) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  return s.find("FP4") != std::string::npos || s.find("fp4") != std::string::npos;
}

bool groups_have_4bit_float(const json& q) {
  auto g = q.find("config_groups");
  if (g == q.end() || !g->is_object()) return false;
  for (const auto& [name, group] : g->items()) {
    (void)name;
    if (!group.is_object()) continue;
    auto w = group.find("weights");
    if (w == group.end() || !w->is_object()) continue;
    auto bits = w->find("num_bits");
    auto type = w->find("type");
    if (bits != w->end() && bits->is_number_integer() && bits->get<std::int64_t>() == 4 && type != w->end() &&
        type->is_string() && type->get<std::string>() == "float")
      return true;
  }
  return false;
}

bool quantization_is_fp4(const json& q) {
  if (!q.is_object()) return false;
  std::string method;
  if (auto m = q.find("quant_method"); m != q.end() && m->is_string()) method = m->get<std::string>();
  if (method == "mxfp4") return true;
  if (method == "modelopt") {
    if (auto a = q.find("quant_algo"); a != q.end() && contains_fp4(*a)) return true;
    if (auto layers = q.find("quantized_layers"); layers != q.end() && layers->is_object())
      for (const auto& [name, layer] : layers->items()) {
        (void)name;
        if (layer.is_object())
          if (auto a = layer.find("quant_algo"); a != layer.end() && contains_fp4(*a)) return true;
      }
    return groups_have_4bit_float(q);
  }
  if (method == "compressed-tensors") {
    if (auto f = q.find("format");
        f != q.end() && f->is_string() && f->get<std::string>().find("nvfp4") != std::string::npos)
      return true;
    return groups_have_4bit_float(q);
  }
  return false;
}
}  // namespace

ModelConfig ModelConfig::from_json(const json& config, std::string source) {
  if (!config.is_object())
    throw InputError(source, "is not a JSON object", "point --config at the model's config.json");
  ModelConfig c;
  c.json_ = config;
  c.source_ = std::move(source);
  auto mt = config.find("model_type");
  if (mt == config.end() || !mt->is_string())
    throw InputError(c.source_ + ": model_type", "missing (it selects the counting rules)",
                     "use the checkpoint's own config.json");
  c.model_type_ = mt->get<std::string>();
  bool known = false;
  for (const auto& row : kTypes)
    if (row.model_type == c.model_type_) {
      c.family_ = row.family;
      c.indexer_ = row.indexer;
      c.experts_ = row.experts;
      known = true;
    }
  if (!known) {
    std::string list;
    for (const auto& row : kTypes) list += (list.empty() ? "" : ", ") + std::string(row.model_type);
    throw InputError(c.source_ + ": model_type",
                     quote_for_message(c.model_type_) + " has no counting rules (known: " + list + ")",
                     "add rules for the architecture in src/params/tensor_rules.cpp and count_config.cpp");
  }
  auto tc = config.find("text_config");
  c.nested_ = tc != config.end() && tc->is_object();
  c.check_shape();
  return c;
}

// Shape fields that every architecture here reads: a zero or an impossible grouping gives a meaningless N, so it is
// refused up front, naming the field (absent fields are left to the counting rules, which say what is missing).
void ModelConfig::check_shape() const {
  const std::string fix = "use the checkpoint's own config.json";
  auto where = [&](const char* k) { return source_ + ": " + (nested_ ? "text_config." : "") + k; };
  for (const char* k : {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads"})
    if (auto n = find_int(k); n && *n == 0) throw InputError(where(k), "is 0; a model has at least one", fix);
  // Widths: a zero head, vocabulary or FFN width is no model (a head_dim of 0 planned a model with no attention).
  for (const char* k : {"head_dim", "vocab_size", "intermediate_size", "moe_intermediate_size", "qk_nope_head_dim",
                        "qk_rope_head_dim", "v_head_dim"})
    if (auto n = find_int(k); n && *n == 0) throw InputError(where(k), "is 0; a width is at least 1", fix);
  auto heads = find_int("num_attention_heads");
  auto kv = find_int("num_key_value_heads");
  if (heads && kv && *kv > *heads)
    throw InputError(where("num_key_value_heads"),
                     fmt::format("is {}, more than num_attention_heads ({}); each key/value head serves a group of "
                                 "query heads",
                                 *kv, *heads),
                     fix);
  if (heads && kv && *heads % *kv != 0)
    throw InputError(
        where("num_key_value_heads"),
        fmt::format("is {}, which does not divide num_attention_heads ({}) into equal groups", *kv, *heads), fix);
}

const json& ModelConfig::text() const { return nested_ ? json_["text_config"] : json_; }

std::optional<std::int64_t> ModelConfig::find_int(std::string_view key) const {
  const std::string k(key);
  const json* v = nullptr;
  std::string where = source_ + ": " + k;
  if (auto it = text().find(k); it != text().end() && !it->is_null()) {
    v = &*it;
    if (nested_) where = source_ + ": text_config." + k;
  } else if (auto r = json_.find(k); nested_ && r != json_.end() && !r->is_null()) {
    v = &*r;
  }
  if (!v) return std::nullopt;
  if (!v->is_number_integer())
    throw InputError(where, "is " + json_excerpt(v->dump()) + ", not an integer",
                     "use the checkpoint's own config.json");
  auto n = v->get<std::int64_t>();
  if (n < 0 || n > kMaxField)
    throw InputError(where, fmt::format("is {}, outside 0..2^40", n), "use the checkpoint's own config.json");
  return n;
}

std::int64_t ModelConfig::require_int(std::string_view key) const {
  if (auto v = find_int(key)) return *v;
  throw InputError(source_ + ": " + std::string(key),
                   fmt::format("missing; model_type {} needs it to count N", model_type_),
                   "use the checkpoint's own config.json");
}

bool ModelConfig::find_bool(std::string_view key, bool fallback) const {
  const std::string k(key);
  const json* v = nullptr;
  if (auto it = text().find(k); it != text().end() && !it->is_null())
    v = &*it;
  else if (auto r = json_.find(k); nested_ && r != json_.end() && !r->is_null())
    v = &*r;
  if (!v) return fallback;
  if (!v->is_boolean())
    throw InputError(source_ + ": " + k, "is " + json_excerpt(v->dump()) + ", not true or false",
                     "use the model's config.json");
  return v->get<bool>();
}

namespace {

std::int64_t at_most(std::int64_t n, std::int64_t limit, const std::string& where) {
  if (n > limit)
    throw InputError(where, fmt::format("is {}, over the limit of {} (docs/limits.md)", n, limit),
                     "use the checkpoint's own config.json");
  return n;
}

}  // namespace

std::int64_t ModelConfig::num_layers() const {
  return at_most(require_int("num_hidden_layers"), kMaxLayers, source_ + ": num_hidden_layers");
}

std::int64_t ModelConfig::mtp_layers() const {
  if (auto n = find_int("num_nextn_predict_layers"))
    return at_most(*n, kMaxLayers, source_ + ": num_nextn_predict_layers");
  if (auto n = find_int("mtp_num_hidden_layers")) return at_most(*n, kMaxLayers, source_ + ": mtp_num_hidden_layers");
  return 0;
}

bool ModelConfig::fp4_two_per_byte() const {
  if (auto q = json_.find("quantization_config"); q != json_.end() && quantization_is_fp4(*q)) return true;
  if (nested_)
    if (auto q = text().find("quantization_config"); q != text().end() && quantization_is_fp4(*q)) return true;
  return false;
}

std::string_view ModelConfig::experts_field() const {
  switch (family_) {
    case Family::deepseek_v3:
    case Family::glm4_moe:
      return "n_routed_experts";
    case Family::gpt_oss:
    case Family::mixtral:
      return "num_local_experts";
    default:
      return "num_experts";
  }
}

std::int64_t ModelConfig::num_experts() const {
  const std::string_view field = experts_field();
  if (auto n = find_int(field)) {
    if (*n == 0)
      throw InputError(source_ + ": " + std::string(field), "is 0, but the model has routed experts",
                       "use the checkpoint's own config.json");
    return at_most(*n, kMaxExperts, source_ + ": " + std::string(field));
  }
  std::string fix = "use the checkpoint's own config.json";
  if (field == "n_routed_experts" && find_int("num_routed_experts"))
    fix =
        "this config names it num_routed_experts (InferSim renames Hugging Face's n_routed_experts); use the "
        "checkpoint's own config.json";
  throw InputError(
      source_ + ": " + std::string(field),
      fmt::format("missing; a {} checkpoint has routed experts and N counts them at top-k / {}", model_type_, field),
      fix);
}

std::int64_t ModelConfig::top_k() const {
  auto k = find_int("num_experts_per_tok");
  if (!k && family_ == Family::gpt_oss) k = find_int("experts_per_token");
  if (!k)
    throw InputError(source_ + ": num_experts_per_tok",
                     fmt::format("missing; a {} checkpoint has routed experts and N counts them at top-k "
                                 "(num_experts_per_tok) of the expert count",
                                 model_type_),
                     "use the checkpoint's own config.json");
  const std::int64_t e = num_experts();
  if (*k == 0 || *k > e)
    throw InputError(source_ + ": num_experts_per_tok",
                     fmt::format("is {}, outside 1..{} ({})", *k, e, experts_field()),
                     "use the checkpoint's own config.json");
  return *k;
}

bool ModelConfig::is_moe_layer(std::int64_t i) const {
  if (!experts_) return false;
  if (family_ == Family::qwen3_moe || family_ == Family::qwen3_next || family_ == Family::qwen3_5) {
    const std::int64_t step = find_int("decoder_sparse_step").value_or(1);
    auto it = text().find("mlp_only_layers");
    if (it != text().end() && it->is_array())
      for (const auto& v : *it)
        if (v.is_number_integer() && v.get<std::int64_t>() == i) return false;
    return step > 0 && (i + 1) % step == 0;
  }
  if (family_ == Family::deepseek_v3 || family_ == Family::glm4_moe) {
    const std::int64_t first_dense = find_int("first_k_dense_replace").value_or(0);
    const std::int64_t freq = find_int("moe_layer_freq").value_or(1);
    return i >= first_dense && freq > 0 && i % freq == 0;
  }
  return true;
}

}  // namespace openrecipes::params
