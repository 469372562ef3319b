// What the planner predicts for a candidate of `openrecipes tune` (docs/tune.md; SPEC §7): one home for the prediction
// tune records and the build recomputes (the planner is deterministic: a prediction is never taken on trust).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checks/search_check.h"
#include "evidence/megatron_args.h"
#include "layout/memory.h"
#include "registry/recipe.h"

namespace openrecipes::registry {

/// What the planner reads from and predicts for one candidate's command, as the build holds a search to it: the
/// training setup of the start's argument dump `start_dump` with what the candidate's command sets over it (an
/// argument the start's command sets and the candidate's does not is back at the framework's default; VPP as
/// validate_args derives it), on the search's GPU count, through registry::recipe_memory, and its predicted peak per
/// GPU (predicted_memory's, rounded to a MiB as tune.json records it). nullopt when the command or the resulting dump
/// does not give a shape and setup.
std::optional<checks::CandidatePrediction> candidate_prediction(const Recipe& start,
                                                                const evidence::ArgumentDump& start_dump,
                                                                const std::string& candidate_command,
                                                                std::int64_t gpus);

/// The whole prediction for a candidate's command (candidate_prediction's setup through layout::estimate_memory):
/// the one home of "what the planner predicts for a candidate's command", which tune records and the build
/// recomputes.
std::optional<layout::MemoryEstimate> predicted_memory(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                                       const std::string& candidate_command, std::int64_t gpus);

}  // namespace openrecipes::registry
