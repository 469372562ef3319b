// Run length as an argument (PROTOCOL.md "Measurement"; SPEC §2 "Window", §4.3): which resolved arguments set how
// long a run is rather than what each of its steps computes.
#pragma once

#include <map>
#include <string>

namespace openrecipes::checks {

/// True when `name`, changed between two argument dumps `a` and `b`, changes only how long the run is:
/// Megatron's train_iters, train_samples, exit_interval, exit_duration_in_mins and slime's num_rollout (from which
/// slime derives train_iters); and lr_decay_iters (lr_decay_samples) when each dump sets it to its own
/// train_iters (train_samples), i.e. the decay follows the run length as it does when left at its default.
/// Anything else, e.g. an lr_decay_iters that differs from the run length, is not run length.
bool is_run_length_change(const std::string& name, const std::map<std::string, std::string>& a,
                          const std::map<std::string, std::string>& b);

}  // namespace openrecipes::checks
