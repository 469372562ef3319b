// The learning rate Megatron-LM's schedule gives at each iteration, from the argument dump, to check the rates
// a log prints against the dump it came with (SPEC §4.1: the dump is what the configuration check diffs, so it
// must be the run's own). Upstream: megatron/core/optimizer_param_scheduler.py, OptimizerParamScheduler.get_lr.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/step_record.h"

namespace openrecipes::checks {

/// The learning rate after `iteration` optimizer steps (1-based, as Megatron's "iteration k" lines print it)
/// for an iteration-based run, from the dump's `lr`, `min_lr`, `lr_decay_style` (constant, linear, cosine),
/// `lr_decay_iters` (else `train_iters`), `lr_warmup_iters` or `lr_warmup_fraction`, and `lr_warmup_init`:
/// a linear warmup from lr_warmup_init to lr, then min_lr + coeff × (lr − min_lr) with coeff = 1 − r (linear)
/// or (1 + cos(π r)) / 2 (cosine), r = (k − warmup) / (decay − warmup); min_lr past the decay. Returns nullopt
/// (the schedule is not modelled, nothing is claimed) for sample-based runs, batch-size rampup, a decoupled
/// learning rate, other decay styles, or a value that is not a number. Never throws.
std::optional<double> megatron_learning_rate(const std::map<std::string, std::string>& args, std::int64_t iteration);

/// How far a printed rate may be from the schedule's, relative: Megatron prints `{:.6E}` today and `{:.3E}` in
/// older versions, which rounds by up to 5e-4.
inline constexpr double kPrintedRateTolerance = 6e-4;

/// Problems (sentences naming file:line, the printed rate and the dump's) where a record's printed learning
/// rate differs from megatron_learning_rate(iteration − iterations skipped so far) by more than
/// kPrintedRateTolerance (Megatron steps its scheduler only on successful updates), at most three, plus a
/// count of the rest. Empty when the log prints no rates, the schedule is not modelled, or the log does not
/// start at iteration 1 (a resumed run's scheduler state is unknown).
std::vector<std::string> check_logged_learning_rates(const std::map<std::string, std::string>& args,
                                                     const StepLog& log);

}  // namespace openrecipes::checks
