// The rules a build holds a tuned recipe's search to beyond its record holding together (docs/tune.md; SPEC §5, §7):
// its winner is the best of its measured trials by tune's own rule, and each trial's predicted peak is the planner's
// for its candidate's command (the planner is deterministic: a prediction is recomputed, never taken on trust).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/megatron_args.h"
#include "evidence/tune_search.h"
#include "layout/memory.h"
#include "registry/recipe.h"

namespace openrecipes::registry {

/// The best trial (its 1-based number) by tune's rule (docs/tune.md "Best"): the trials in the order run, the first
/// measured one with a score interval is the best, and a later measured one replaces it only when its interval clears
/// the best's (measure::interval_clears). nullopt when no trial was measured.
std::optional<std::int64_t> best_trial(const evidence::TuneSearch& search);

/// The planner's predicted peak per GPU (MiB, rounded as tune.json records it) of one candidate's command: the start's
/// argument dump `start_dump` with what the candidate's command sets over it (an argument the start's command sets and
/// the candidate's does not is back at the framework's default; VPP as validate_args derives it), on the search's GPU
/// count, through registry::recipe_memory and layout::estimate_memory, as tune planned it. nullopt when the command or
/// the resulting dump does not give a shape and setup.
std::optional<double> predicted_peak_mib(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                         const std::string& candidate_command, std::int64_t gpus);

/// The whole prediction predicted_peak_mib rounds: the one home of "what the planner predicts for a candidate's
/// command", which tune records and the build recomputes.
std::optional<layout::MemoryEstimate> predicted_memory(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                                       const std::string& candidate_command, std::int64_t gpus);

/// Each way `search` breaks the two rules, one sentence each: a winner that is not best_trial, and a trial whose
/// predicted peak is not predicted_peak_mib of its candidate (more than 0.5 MiB off). `start` is the recipe the search
/// started from and `start_dump` its argument dump.
std::vector<std::string> search_rule_problems(const evidence::TuneSearch& search, const Recipe& start,
                                              const evidence::ArgumentDump& start_dump);

}  // namespace openrecipes::registry
