// Claim tolerances and plausibility of a recipe's measured numbers (SPEC §2, §3, §5).
#include "measure/claims.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/protocol.h"

namespace openrecipes::measure {
namespace {

std::string pct(double x) { return fmt::format("{:.2f}%", 100 * x); }

}  // namespace

bool within_relative(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::fabs(b); }

std::vector<std::string> throughput_claim_problems(double claimed_tokens_per_s_per_gpu, double claimed_cv,
                                                   const Throughput& t) {
  std::vector<std::string> out;
  const double score = t.tokens_per_s_per_gpu;
  if (!within_relative(claimed_tokens_per_s_per_gpu, score, protocol::kClaimTolerance))
    out.push_back(
        fmt::format("the recipe claims {:.1f} tokens/s/GPU, but its log gives {:.1f} ({:+.2f}%; the "
                    "protocol allows {:g}%)",
                    claimed_tokens_per_s_per_gpu, score, 100 * (claimed_tokens_per_s_per_gpu / score - 1),
                    100 * protocol::kClaimTolerance));
  if (std::fabs(claimed_cv - t.cv) > std::max(0.0005, protocol::kClaimTolerance * t.cv))
    out.push_back(
        fmt::format("the recipe claims a step-time CV of {}, but its log gives {}", pct(claimed_cv), pct(t.cv)));
  return out;
}

std::optional<std::string> gpu_hours_claim_problem(double claimed, double computed) {
  if (within_relative(claimed, computed, protocol::kClaimTolerance)) return std::nullopt;
  return fmt::format("the recipe claims {:.4f} GPU-hours, but its scheduler times give {:.4f}", claimed, computed);
}

std::vector<std::string> implausible_numbers(double tokens_per_s_per_gpu, std::optional<double> dollars_per_million,
                                             std::optional<double> mfu) {
  std::vector<std::string> out;
  if (!std::isfinite(tokens_per_s_per_gpu) || tokens_per_s_per_gpu <= 0)
    out.push_back(fmt::format("the score {} tokens/s/GPU is not a finite positive number", tokens_per_s_per_gpu));
  if (dollars_per_million && !std::isfinite(*dollars_per_million))
    out.push_back(fmt::format("the cost {} $/1M tokens is not finite", *dollars_per_million));
  if (mfu && !std::isfinite(*mfu))
    out.push_back(fmt::format("the MFU {} is not finite", *mfu));
  else if (mfu && *mfu > 1)
    out.push_back(fmt::format("MFU {:.1f}% is above 100% of the GPU's dense BF16 peak: the step times cannot be right",
                              100 * *mfu));
  return out;
}

double logged_step_seconds(const StepLog& log) {
  std::map<std::int64_t, double> by_first;
  for (const auto& rec : log.records)
    if (rec.time_s && std::isfinite(*rec.time_s) && *rec.time_s > 0)
      by_first.emplace(rec.first_step, *rec.time_s * static_cast<double>(rec.steps));
  double sum = 0;
  for (const auto& [step, t] : by_first) sum += t;
  return sum;
}

std::optional<std::string> scheduler_span_problem(const StepLog& log, double admitted_s, double finished_s,
                                                  double resolution_s) {
  const double logged = logged_step_seconds(log);
  const double span = finished_s - admitted_s;
  if (span + resolution_s >= logged * (1 - 1e-3)) return std::nullopt;
  return fmt::format("the scheduler times span {:.2f} s, less than the {:.2f} s the log's own step times add up to",
                     span, logged);
}

}  // namespace openrecipes::measure
