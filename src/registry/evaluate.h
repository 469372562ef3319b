// Recomputes everything a recipe claims from its evidence and runs both checks against its reference recipe
// (SPEC §2–§5): the status of each recipe, with every reason it is not verified.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/config_check.h"
#include "checks/convergence.h"
#include "measure/throughput.h"
#include "registry/registry.h"

namespace openrecipes::registry {

/// A stack component as shown: what the recipe says and whether the evidence shows it (SPEC §6 "Stack").
struct StackStatus {
  std::string component;
  std::string version;
  std::string status;  ///< "pinned" (evidence shows it), "not pinned" (evidence does not show it)
};

/// Everything the build computed for one recipe.
struct RecipeResult {
  std::string id;
  const RecipeEntry* entry = nullptr;
  bool verified = false;
  std::vector<std::string> reasons;  ///< each reason it is not verified, naming the stage ("measurement: ...")
  std::vector<std::string> notes;    ///< remarks that do not block verification

  std::optional<measure::Throughput> throughput;
  std::optional<double> gpu_hours;
  std::optional<double> dollars_per_million_tokens;
  std::optional<double> mfu;
  std::int64_t active_params = 0;   ///< N used for MFU
  std::string active_params_from;   ///< how N was (re)counted: "config arithmetic", "safetensors headers", ...
  std::optional<checks::ConfigCheck> configuration;
  std::optional<checks::ConvergenceResult> convergence;
  bool is_reference = false;  ///< no reference: both checks pass trivially
  std::string rows_status;    ///< "verified", "not applicable (non-standard workload)", or why not
  std::vector<StackStatus> stack;
};

/// Evaluates every recipe of `reg` (sorted by id). `checkpoints` maps a model id to a checkpoint (folder, index
/// or .safetensors) whose headers recount that model's N. Never throws for a recipe's bad input: it becomes a
/// reason.
std::vector<RecipeResult> evaluate_registry(const Registry& reg,
                                            const std::map<std::string, std::filesystem::path>& checkpoints = {});

}  // namespace openrecipes::registry
