// What the planner predicts for a candidate of `openrecipes tune` (docs/tune.md; SPEC §7): one home for the prediction
// tune records and the build recomputes (the planner is deterministic: a prediction is never taken on trust).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/megatron_args.h"
#include "layout/memory.h"
#include "registry/recipe.h"

namespace openrecipes::registry {

/// The planner's predicted peak per GPU (MiB, rounded as tune.json records it) of one candidate's command: the start's
/// argument dump `start_dump` with what the candidate's command sets over it (an argument the start's command sets and
/// the candidate's does not is back at the framework's default; VPP as validate_args derives it), on the search's GPU
/// count, through registry::recipe_memory and layout::estimate_memory, as tune planned it. nullopt when the command or
/// the resulting dump does not give a shape and setup.
std::optional<double> predicted_peak_mib(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                         const std::string& candidate_command, std::int64_t gpus);

/// The training setup a candidate's command gives, as predicted_peak_mib reads it (the start's dump with the command
/// over it, on `gpus` GPUs): what the search's record says of the candidate is held to it. nullopt as there.
std::optional<layout::TrainingSetup> candidate_setup(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                                     const std::string& candidate_command, std::int64_t gpus);

/// The whole prediction predicted_peak_mib rounds: the one home of "what the planner predicts for a candidate's
/// command", which tune records and the build recomputes.
std::optional<layout::MemoryEstimate> predicted_memory(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                                       const std::string& candidate_command, std::int64_t gpus);

}  // namespace openrecipes::registry
