// Run length as an argument (PROTOCOL.md "Measurement"; SPEC §2 "Window", §4.3): which resolved arguments set how
// long a run is rather than what each of its steps computes.
#pragma once

#include <map>
#include <string>

#include "checks/argument_rules.h"

namespace openrecipes::checks {

/// True when `name`, changed between two argument dumps `a` and `b`, changes only how long the run is:
/// Megatron's train_iters, train_samples, exit_interval, exit_duration_in_mins and slime's num_rollout (from which
/// slime derives train_iters); and lr_decay_iters (lr_decay_samples) when each dump sets it to its own
/// train_iters (train_samples), i.e. the decay follows the run length as it does when left at its default.
/// Anything else, e.g. an lr_decay_iters that differs from the run length, is not run length.
bool is_run_length_change(const std::string& name, const std::map<std::string, std::string>& a,
                          const std::map<std::string, std::string>& b);

/// SPEC §4.3: a separate convergence arm must be the measured run's own configuration, only shorter, or another
/// layout's run (the reference's own log, say) could stand as the recipe's arm. The sentence listing each argument in
/// which `arm` differs from `run` other than bookkeeping (by `rules`) and run length ("x is A in the arm but B in the
/// measured run; ..."), or "" when there is none.
std::string arm_differences(const std::map<std::string, std::string>& arm,
                            const std::map<std::string, std::string>& run, const ArgumentRules& rules);

}  // namespace openrecipes::checks
