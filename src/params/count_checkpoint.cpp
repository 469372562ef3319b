// N from a checkpoint's safetensors headers and config.json (SPEC §3): class every tensor, unpack FP4, scale routed
// experts by top-k / expert count, count a tied output projection once, keep quantization scales out of the totals.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "core/error.h"
#include "core/text.h"
#include "params/checkpoint.h"
#include "params/count.h"
#include "params/model_config.h"
#include "params/tensor_rules.h"

namespace openrecipes::params {
namespace {

std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& where) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw InputError(where, "parameter count overflows 64 bits");
  return r;
}

// Completeness of one routed-expert projection in one layer.
struct ExpertSlot {
  std::vector<bool> seen;
  std::int64_t count = 0;
  std::string example;
};

}  // namespace

std::int64_t routed_active(std::int64_t routed_params, std::int64_t top_k, std::int64_t num_experts,
                           const std::string& where) {
  std::int64_t scaled = 0;
  if (num_experts <= 0 || __builtin_mul_overflow(routed_params, top_k, &scaled))
    throw InputError(where, "routed-expert arithmetic overflows 64 bits");
  if (scaled % num_experts != 0)
    throw InputError(where,
                     fmt::format("routed-expert parameters {} × top-k {} are not a multiple of the expert count "
                                 "{} (experts of unequal size?)",
                                 routed_params, top_k, num_experts),
                     "check that config.json belongs to this checkpoint");
  return scaled / num_experts;
}

namespace {

// The values tensor `t` holds: FP4 blocks and 4-bit U8 weights unpacked (two a byte, `unpacked_fp4` set); an E8M0
// tensor is a quantization scale (`role` reclassed); other integer-packed weights are refused.
std::int64_t stored_values(const TensorInfo& t, TensorRole& role, bool fp4, const std::function<std::string()>& where,
                           bool& unpacked_fp4) {
  std::int64_t params = static_cast<std::int64_t>(t.elements);
  if (t.elements > static_cast<std::uint64_t>(INT64_MAX / 2))
    throw InputError(where(), "element count is too large to count");
  if (t.dtype == Dtype::F8_E8M0 && role.cls != ParamClass::quantization_scale) {
    // E8M0 has an 8-bit exponent and no sign or mantissa: it can only hold powers of two, i.e. scales.
    if (is_counted(role.cls))
      throw InputError(where(),
                       fmt::format("is F8_E8M0, but its name makes it a {} weight; E8M0 holds exponents only (no "
                                   "mantissa), so it is a quantization scale, not a weight",
                                   param_class_name(role.cls)),
                       "check that config.json belongs to this checkpoint; a scale stored under a weight's name "
                       "needs a rule in src/params/tensor_rules.cpp");
    role.cls = ParamClass::quantization_scale;  // an E8M0 tensor among excluded parts (MTP, vision): still a scale
  }
  if (role.fp4_blocks) {
    if (t.dtype != Dtype::U8)
      throw InputError(where(),
                       fmt::format("MXFP4 blocks are {}, not U8 (two FP4 values per byte)", dtype_name(t.dtype)),
                       "re-download the checkpoint; the blocks tensor does not match the MXFP4 layout");
    unpacked_fp4 = true;
    return params * 2;
  }
  if (role.cls == ParamClass::quantization_scale || role.cls == ParamClass::index_table || !dtype_is_integer(t.dtype))
    return params;
  if (t.dtype == Dtype::U8 && fp4) {
    unpacked_fp4 = true;
    return params * 2;
  }
  if (t.dtype == Dtype::U8 && is_counted(role.cls))
    throw InputError(where(),
                     "is a U8 weight, but config.json's quantization_config declares no 4-bit format, so "
                     "how many values each byte holds is unknown",
                     "use the checkpoint's own config.json (with its quantization_config)");
  if (t.dtype != Dtype::U8 && t.dtype != Dtype::I8 && is_counted(role.cls))
    throw InputError(where(),
                     fmt::format("is a {} weight: integer-packed weights (GPTQ/AWQ-style) are not "
                                 "supported",
                                 dtype_name(t.dtype)),
                     "count N from the unquantized (BF16) or FP8/FP4 checkpoint");
  return params;
}

// Routed experts as the tensors name them: the expert count (from config.json at the first routed tensor) and, for
// experts stored one tensor each, which experts each layer's projection has.
struct ExpertTally {
  std::int64_t experts = 0;
  std::string first_routed;
  std::map<std::pair<std::int64_t, std::string_view>, ExpertSlot> per_expert;

  void add(const TensorInfo& t, const TensorRole& role, const ModelConfig& cfg, ParamCount& pc,
           const std::function<std::string()>& where) {
    if (experts == 0) {
      try {
        experts = cfg.num_experts();
        pc.num_experts = experts;
        pc.top_k = cfg.top_k();
      } catch (const InputError& e) {
        throw InputError(
            e.where(),
            e.problem() + " (the checkpoint has routed-expert tensors, e.g. " + quote_for_message(t.name, 200) + ")",
            e.fix());
      }
      first_routed = t.name;
    }
    if (role.experts == TensorRole::Experts::fused) {
      if (t.shape.empty() || t.shape[0] != static_cast<std::uint64_t>(experts))
        throw InputError(where(),
                         fmt::format("stacks {} experts on its first dimension, but config.json {} is {}",
                                     t.shape.empty() ? 0 : t.shape[0], cfg.experts_field(), experts),
                         "use the checkpoint's own config.json");
      return;
    }
    if (role.expert >= experts)
      throw InputError(
          where(), fmt::format("expert index {} is past config.json {} {}", role.expert, cfg.experts_field(), experts),
          "use the checkpoint's own config.json");
    ExpertSlot& slot = per_expert[{role.layer, role.projection}];
    if (slot.seen.empty()) {
      slot.seen.assign(static_cast<std::size_t>(experts), false);
      slot.example = t.name;
    }
    if (!slot.seen[static_cast<std::size_t>(role.expert)]) {
      slot.seen[static_cast<std::size_t>(role.expert)] = true;
      ++slot.count;
    }
  }

  // Every layer's projection has all the experts config.json declares.
  void check_complete(const std::filesystem::path& path, const ModelConfig& cfg) const {
    for (const auto& [key, slot] : per_expert)
      if (slot.count != experts)
        throw InputError(
            path.string() + ": layer " + std::to_string(key.first) + " " + std::string(key.second),
            fmt::format("has {} of the {} routed experts config.json declares ({} {}), e.g. {}", slot.count, experts,
                        cfg.experts_field(), experts, quote_for_message(slot.example, 200)),
            "download every shard, or use the checkpoint's own config.json");
  }
};

// Each counted class's active parameters (routed experts at top-k / experts), and N and the counted total.
void count_active(ParamCount& pc, const ExpertTally& tally, const std::filesystem::path& path) {
  for (ParamClass c : kAllParamClasses) {
    ClassCount& cc = pc.of(c);
    if (!is_counted(c)) continue;
    if (c == ParamClass::routed_expert && cc.params > 0) {
      const std::int64_t k = *pc.top_k;
      cc.active = routed_active(cc.params, k, tally.experts, path.string() + ": " + tally.first_routed);
      pc.notes.push_back(fmt::format("routed experts counted at top-k {} of {} experts", k, tally.experts));
    } else {
      cc.active = cc.params;
    }
    pc.n_active = checked_add(pc.n_active, cc.active, path.string());
    pc.counted_total = checked_add(pc.counted_total, cc.params, path.string());
  }
}

}  // namespace

ParamCount count_from_checkpoint(const std::filesystem::path& path, const nlohmann::json& config,
                                 const std::string& config_source) {
  const ModelConfig cfg = ModelConfig::from_json(config, config_source);
  const TensorRules rules(cfg);
  const Checkpoint ck = open_checkpoint(path);
  const bool fp4 = cfg.fp4_two_per_byte();

  ParamCount pc;
  pc.source = "checkpoint";
  pc.model_type = cfg.model_type();
  pc.shards = static_cast<std::int64_t>(ck.shards.size());
  pc.tensors = static_cast<std::int64_t>(ck.tensors.size());
  pc.tensor_list.reserve(ck.tensors.size());

  std::int64_t total = 0;  // every class but quantization_scale
  ScaleCount scales;
  std::int64_t embedding_params = -1;
  std::string embedding_name;
  bool has_output = false;
  bool unpacked_fp4 = false;
  ExpertTally tally;

  for (const CheckpointTensor& ct : ck.tensors) {
    const TensorInfo& t = *ct.info;
    const std::function<std::string()> where = [&] {
      return ck.shards[ct.shard].file.string() + ": tensor " + quote_for_message(t.name, 200);
    };
    TensorRole role;
    try {
      role = rules.classify(t.name);
    } catch (const InputError& e) {
      throw InputError(ck.shards[ct.shard].file.string() + ": " + e.where(), e.problem(), e.fix());
    }
    const std::int64_t params = stored_values(t, role, fp4, where, unpacked_fp4);
    if (role.cls == ParamClass::routed_expert) tally.add(t, role, cfg, pc, where);
    if (role.cls == ParamClass::embedding) {
      if (embedding_params >= 0)
        throw InputError(where(), "is a second input embedding (first: " + quote_for_message(embedding_name, 200) + ")",
                         "check that config.json belongs to this checkpoint");
      embedding_params = params;
      embedding_name = t.name;
    }
    if (role.cls == ParamClass::output_projection) has_output = true;

    ClassCount& cc = pc.of(role.cls);
    if (cc.tensors == 0) cc.example = t.name;
    ++cc.tensors;
    cc.params = checked_add(cc.params, params, t.name);
    if (role.cls == ParamClass::quantization_scale) {
      ++scales.tensors;
      scales.values = checked_add(scales.values, params, t.name);
    } else {
      total = checked_add(total, params, t.name);
    }
    pc.tensor_list.push_back({t.name, role.cls, params});
  }

  tally.check_complete(path, cfg);

  if (!has_output) {
    if (!cfg.tie_word_embeddings())
      throw InputError(path.string(), "has no lm_head.weight, and config.json says tie_word_embeddings is false",
                       "download every shard, or use the checkpoint's own config.json");
    if (embedding_params < 0)
      throw InputError(path.string(), "has neither lm_head.weight nor an input embedding (embed_tokens.weight)",
                       "download every shard of the checkpoint");
    ClassCount& out = pc.of(ParamClass::output_projection);
    out.params = embedding_params;
    out.example = embedding_name + " (tied)";
    pc.output_tied = true;
    pc.notes.push_back("output projection tied to " + embedding_name +
                       ": counted once at its size, as the output matrix multiply uses it (docs/params.md)");
  }

  count_active(pc, tally, path);
  pc.total_params = total;
  pc.quantization_scales = scales;
  if (unpacked_fp4) pc.notes.push_back("FP4 weights stored two per byte counted unpacked (2 values per byte)");
  if (pc.of(ParamClass::mtp).tensors > 0)
    pc.notes.push_back(fmt::format("MTP: {} tensors left out ({} MTP layers in config.json)",
                                   pc.of(ParamClass::mtp).tensors, cfg.mtp_layers()));
  return pc;
}

}  // namespace openrecipes::params
