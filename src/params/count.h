// N, the active parameters per token (SPEC §3), counted two ways: from a checkpoint's safetensors headers plus its
// config.json, and from config.json's arithmetic alone (for planning before a download). Both give a ParamCount
// with the breakdown by class; compare_counts says where they disagree.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "params/param_class.h"

namespace openrecipes::params {

/// Parameters of one class. `params` counts every stored value (FP4 unpacked, every routed expert; for the
/// quantization_scale class these are scale values, which are not parameters); `active` is what the class adds to N:
/// equal to params for counted classes, params × top_k / num_experts for routed experts, 0 for excluded classes.
struct ClassCount {
  std::int64_t tensors = 0;
  std::int64_t params = 0;
  std::int64_t active = 0;
  std::string example;  // first tensor of the class in checkpoint order (checkpoint counts only)
};

/// One tensor's part of a checkpoint count.
struct TensorCount {
  std::string name;
  ParamClass cls = ParamClass::attention;
  std::int64_t params = 0;  // unpacked value count
};

/// The quantization scales of a checkpoint: stored values that rescale quantized weights (`weight_scale_inv`,
/// `weight_scale`, `weight_scale_2`, `input_scale`, `k_scale`, `v_scale`, gpt-oss `*_scales`, and every F8_E8M0
/// tensor). Not parameters: outside N and outside total_params (SPEC §3: "quantization scales" are left out).
struct ScaleCount {
  std::int64_t tensors = 0;
  std::int64_t values = 0;  // elements stored, one per scale
};

/// The result of a count.
struct ParamCount {
  std::string source;              // "checkpoint" or "config"
  std::string model_type;          // config.json model_type
  std::int64_t n_active = 0;       // N: sum of `active` over the counted classes
  std::int64_t counted_total = 0;  // sum of `params` over the counted classes (every routed expert)
  /// Every stored parameter, FP4 unpacked: the sum of `params` over every class but quantization_scale (checkpoint
  /// counts only). Quantization scales are not parameters and are not in it.
  std::optional<std::int64_t> total_params;
  /// The quantization_scale class's tensors and values, reported apart from total_params (checkpoint counts only).
  std::optional<ScaleCount> quantization_scales;
  std::int64_t tensors = 0;                 // tensors read (checkpoint counts only)
  std::int64_t shards = 0;                  // files read (checkpoint counts only)
  std::optional<std::int64_t> top_k;        // MoE models
  std::optional<std::int64_t> num_experts;  // MoE models
  bool output_tied = false;  // no lm_head tensor: the output projection is the input embedding, counted once
  std::array<ClassCount, kParamClassCount> by_class{};
  std::vector<std::string> notes;        // how the count was made (tying, MTP layers, FP4 unpacking, ...)
  std::vector<TensorCount> tensor_list;  // checkpoint counts: every tensor, in shard order, by name within a shard

  ClassCount& of(ParamClass c) { return by_class[static_cast<std::size_t>(c)]; }
  const ClassCount& of(ParamClass c) const { return by_class[static_cast<std::size_t>(c)]; }
};

/// Counts N from the checkpoint at `path` (a folder, its model.safetensors.index.json, or one .safetensors file;
/// see open_checkpoint) and its parsed `config` (config.json; `config_source` names it in messages). Reads headers
/// only. Every tensor is classed by TensorRules; routed experts count at top_k / num_experts; FP4 stored two per
/// byte counts unpacked (gpt-oss `*_blocks`, and U8 weights when quantization_config declares FP4); with no
/// lm_head tensor and tie_word_embeddings (default true) the output projection counts the embedding's size once.
/// Quantization scales (including every F8_E8M0 tensor) go to quantization_scales, never to total_params.
/// Throws InputError for every error of open_checkpoint and ModelConfig, a tensor no rule classes, an F8_E8M0 tensor
/// that the name rules class as a counted weight (E8M0 holds exponents only: a scale), routed experts
/// without num_experts / num_experts_per_tok in the config, a layer missing some of num_experts experts, a stacked
/// expert tensor whose first dimension is not num_experts, an expert index past num_experts, U8 weights in a config
/// declaring no 4-bit format, integer-packed weights (I16..U64), a missing lm_head with tie_word_embeddings false,
/// and two input embeddings.
ParamCount count_from_checkpoint(const std::filesystem::path& path, const nlohmann::json& config,
                                 const std::string& config_source = "config.json");

/// Counts N from `config` alone: per layer, the attention (GQA, gated GQA, MLA, gated DeltaNet, sparse-attention
/// indexer), dense MLP, shared experts, router and routed experts (top_k of num_experts), plus the output projection
/// vocab_size × hidden_size. Predicts the counted classes and the embedding; norms, biases, MTP layers, vision towers
/// and quantization scales are not predicted (total_params and quantization_scales stay empty). Throws InputError
/// naming any field the family needs that is missing or malformed, and on arithmetic overflow.
ParamCount count_from_config(const nlohmann::json& config, const std::string& config_source = "config.json");

/// Routed experts' share of N: `routed_params` × `top_k` / `num_experts` (SPEC §3: "routed experts at top-k of the
/// expert count"). Throws InputError (naming `where`) when the product overflows 64 bits or is not a whole number
/// (experts of unequal size).
std::int64_t routed_active(std::int64_t routed_params, std::int64_t top_k, std::int64_t num_experts,
                           const std::string& where);

/// A value on which two counts disagree.
struct CountDifference {
  std::string what;  // "N", "attention.active", "routed_expert.params", ...
  std::int64_t checkpoint = 0;
  std::int64_t config = 0;
};

/// Where `checkpoint` (from count_from_checkpoint) and `config` (from count_from_config) disagree: N, then each
/// counted class's params and active, then the embedding's params. Empty when they agree.
std::vector<CountDifference> compare_counts(const ParamCount& checkpoint, const ParamCount& config);

}  // namespace openrecipes::params
