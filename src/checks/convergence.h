// The convergence check (SPEC §4.3): per-step loss of the recipe's 20-step arm against the reference arm, by
// the rule of Megatron-Bridge's validate_convergence (scripts/performance/utils/evaluate.py) with its pipeline
// thresholds, and stricter on missing steps and non-finite losses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/protocol.h"
#include "core/step_record.h"

namespace openrecipes::checks {

/// Loss by 0-based step, with where it came from.
struct LossCurve {
  std::string source;
  std::map<std::int64_t, double> loss;
};

/// The per-step losses of a log. Records that average k > 1 steps have no per-step loss and are an error
/// (InputError naming the line; fix: --log-interval 1). Records without a loss are left out (a skipped step).
LossCurve loss_curve_from_log(const StepLog& log);

/// Throws InputError (the file, or file:line of the first record past the end) unless `log` is an arm of
/// exactly `steps` steps (SPEC §4.3): its announced run length (Megatron's N) must be `steps`, and no record
/// may reach step `steps` or beyond (for formats that announce no length).
void require_arm_length(const StepLog& log, std::int64_t steps = protocol::kConvergenceSteps);

/// The run-level (non-step) keys a golden-values file may hold: "alloc", "max_alloc" (memory in GB, as in
/// Megatron-Bridge's tests/functional_tests/.../golden_values/*.json).
const std::vector<std::string>& golden_values_run_keys();

/// Reads a Megatron-Bridge golden-values file: {"<0-based step>": {"lm loss": x, ...}, ...}. Step keys must be
/// canonical decimals ("0", "17"; not "05", "+5", or more than 9 digits); the only other keys allowed are
/// golden_values_run_keys(), which are ignored. A golden file may hold more steps than an arm: the check
/// compares the first 20. Python json's NaN, Infinity and -Infinity (bare, as json.dump writes a non-finite loss)
/// are read as those values, so check_convergence fails on them. Throws InputError (file, key) on invalid JSON,
/// any other key, or a step without a numeric "lm loss".
LossCurve read_golden_values(std::string_view json_text, const std::string& file);

/// The thresholds (Megatron-Bridge pipeline values, SPEC §4.3).
struct ConvergenceThresholds {
  double skip_first_fraction = 0.20;    ///< drop the first floor(0.20 × n) points
  double correlation = 0.95;            ///< Pearson r >= this
  double high_loss_tolerance = 0.10;    ///< pointwise, when ref > 2.0
  double medium_loss_tolerance = 0.05;  ///< pointwise, when 0.5 < ref <= 2.0
  double low_loss_tolerance = 0.02;     ///< pointwise, when ref <= 0.5
  double max_failure_ratio = 0.10;      ///< pointwise failures and outliers: fail when ratio > this
  double final_loss_tolerance = 0.05;   ///< |cur − ref| / |ref| at the last point
  double outlier_sigmas = 3.0;          ///< residual outlier: |r − mean| > 3 × population std
};

/// The pointwise tolerance (a fraction) at a reference loss: high above 2.0, medium above 0.5, low at or below it
/// (SPEC §4.3, Megatron-Bridge's thresholds). The check and the site's tolerance band both read it here.
double pointwise_tolerance(double reference_loss, const ConvergenceThresholds& t = {});

/// The record a recipe keeps (SPEC §4.3): verdict, r, final loss difference, pointwise failures, outliers,
/// and the names of the failed tests (upstream's names: correlation, point_wise_tolerance, final_loss,
/// outliers; plus missing_steps and non_finite_loss, which upstream does not have).
struct ConvergenceResult {
  bool passed = false;
  std::int64_t points = 0;         ///< points compared after the skip
  double correlation = 0;          ///< Pearson r (NaN when a curve is constant: counts as failed)
  double final_loss_rel_diff = 0;  ///< |cur − ref| / |ref| at the last step (a fraction, not nats)
  std::int64_t pointwise_failures = 0;
  std::int64_t outliers = 0;
  std::vector<std::string> failed_tests;
  std::vector<std::string> problems;  ///< sentences naming steps, for missing or non-finite losses
};

/// Compares steps 0..steps-1 of `recipe` with `reference`. A step missing from either arm or a non-finite
/// loss fails the check (and the statistics are not computed). Never throws on content.
ConvergenceResult check_convergence(const LossCurve& recipe, const LossCurve& reference,
                                    std::int64_t steps = protocol::kConvergenceSteps,
                                    const ConvergenceThresholds& t = {});

/// One sentence per failed test of `r`, in failed_tests order, its limits read from `t` (the thresholds the check
/// ran with), e.g. "correlation r = 0.9012 < 0.95" or "final loss differs by 11.42% relative to the reference
/// (> 5%)". missing_steps and non_finite_loss have none: r.problems name their steps. `build` and
/// `check convergence` both print these.
std::vector<std::string> describe_failures(const ConvergenceResult& r, const ConvergenceThresholds& t = {});

}  // namespace openrecipes::checks
