// What a recipe claims it measured, checked against what its evidence gives (SPEC §2, §5: "score within 0.5% of
// what it claims"), and the numbers no real run can give. Each function returns sentences without the stage name;
// registry/evaluate files them as reasons of the measurement stage (core/reason.h), which print "measurement: ".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "evidence/step_log.h"
#include "measure/throughput.h"

namespace openrecipes::measure {

/// True when `a` is within `rel` of `b`, relative to |b| (|a − b| ≤ rel × |b|).
bool within_relative(double a, double b, double rel);

/// The claims of tokens/s/GPU and step-time CV (fractions, 0.05 = 5%) against the recomputed `t`: the score must be
/// within protocol::kClaimTolerance of it; the CV within max(0.05 percentage points, kClaimTolerance × the CV).
/// One sentence per claim that is off, with both values.
std::vector<std::string> throughput_claim_problems(double claimed_tokens_per_s_per_gpu, double claimed_cv,
                                                   const Throughput& t);

/// The claimed GPU-hours against those computed from the scheduler times (within protocol::kClaimTolerance).
std::optional<std::string> gpu_hours_claim_problem(double claimed, double computed);

/// Numbers no real run can give: a score that is not a finite positive number, a non-finite cost ($ per 1M
/// tokens) or MFU, or an MFU (a fraction) above 1, i.e. above the GPU's dense BF16 peak.
std::vector<std::string> implausible_numbers(double tokens_per_s_per_gpu, std::optional<double> dollars_per_million,
                                             std::optional<double> mfu);

/// Seconds of training the log itself reports for the whole run: each distinct record's step time times the
/// steps it covers (a step logged twice counts once; non-finite or non-positive times are left out).
double logged_step_seconds(const StepLog& log);

/// When the scheduler's span (finished − admitted, seconds) is shorter than logged_step_seconds(log) by more than
/// 0.1% and the clock's `resolution_s` (Slurm's Start and End are whole seconds: the span read may be up to 1 s short
/// of the run's; the launcher's own clock, 0), the sentence saying so: the times cannot belong to that run.
std::optional<std::string> scheduler_span_problem(const StepLog& log, double admitted_s, double finished_s,
                                                  double resolution_s);

}  // namespace openrecipes::measure
