// N for a registry model, recounted rather than trusted (SPEC §3): from the config.json fields the model file
// records and, when the build is given the checkpoint, from its safetensors headers.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "registry/model.h"

namespace openrecipes::registry {

struct ModelCount {
  std::int64_t n = 0;                 ///< the N the build uses (the recorded one when nothing contradicts it)
  std::string counted_from;           ///< "model file", "config arithmetic", "safetensors headers"
  std::vector<std::string> problems;  ///< each disagreement between the recorded N and a recount (stage "model")
};

/// Recounts N for `model`: config arithmetic (params::count_from_config) when the model file has `config`, and
/// safetensors headers (params::count_from_checkpoint) when `checkpoint` is given. Every recount must equal the
/// recorded N and, class by class, its breakdown; a disagreement is a problem naming the model file.
/// Bad input in the checkpoint or config is a problem too (never thrown).
ModelCount recount_active_params(const ModelInfo& model, const std::optional<std::filesystem::path>& checkpoint);

}  // namespace openrecipes::registry
