// Models of the registry (registry/models/<id>.yaml): checkpoint id and revision, family, layer shape, and the
// active parameter count N with how it was counted (SPEC §3).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "checks/component_check.h"

namespace openrecipes::registry {

struct ModelInfo {
  std::string id;                                 ///< file name without .yaml, e.g. "qwen3-0.6b"
  std::string name;                               ///< display name
  std::string family;                             ///< e.g. "qwen3", "qwen3.5" (objective conventions key on it)
  std::string checkpoint;                         ///< Hugging Face id, e.g. "Qwen/Qwen3-0.6B"
  std::optional<std::string> revision;            ///< checkpoint revision (commit), when pinned
  std::int64_t active_params = 0;                 ///< N, parameters applied per token in matrix multiplies
  std::string counted_from;                       ///< "config" or "safetensors"
  std::string counting;                           ///< how N was counted, in words (the arithmetic)
  std::map<std::string, std::int64_t> breakdown;  ///< N by class (attention, dense_mlp, ...), sums to N
  nlohmann::json config;           ///< the Hugging Face config.json fields N is counted from (may be empty)
  checks::LayerShape layer_shape;  ///< for component tests
  std::string tokenizer;           ///< the tokenizer's family (kind and vocabulary), in words ("" when not given)
  std::string chat_template;       ///< its chat template's turn markers, in words ("" when not given)
  /// Where its Megatron-LM arguments come from: a framework's model script at a commit ("slime 624b824a
  /// scripts/models/qwen3-8B.sh"); "" when no framework has one.
  std::string model_args;
  std::string notes;  ///< what all of its recipes need (PROTOCOL.md "Running a recipe")
  /// The reference rows build (registry/rows/<id>) its standard-workload recipes' rows must be (`rows_build:`).
  std::optional<std::string> rows_build;
  std::string file;
};

/// Loads every registry/models/*.yaml (sorted by name). Throws InputError on a malformed file, a file name that
/// is not a model id, or a breakdown that does not sum to N.
std::map<std::string, ModelInfo> load_models(const std::filesystem::path& dir);

}  // namespace openrecipes::registry
