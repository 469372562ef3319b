// Score, its interval and CV over the window (SPEC §2; docs/protocol.md "Status and ranking" for the interval).
#include "measure/throughput.h"

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <boost/math/distributions/students_t.hpp>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::measure {

bool ScoreInterval::bounded() const { return std::isfinite(score_high); }

double ScoreInterval::relative_half_width() const { return half_width_s / mean_step_time_s; }

ScoreInterval score_interval(const std::vector<double>& step_times_s, double tokens_per_step, std::int64_t gpus) {
  if (step_times_s.empty() || !(tokens_per_step > 0) || gpus < 1)
    throw std::invalid_argument("score_interval needs step times, positive tokens per step and a GPU count");
  constexpr double kInf = std::numeric_limits<double>::infinity();
  ScoreInterval out;
  out.n = static_cast<std::int64_t>(step_times_s.size());
  const double n = static_cast<double>(out.n);
  double sum = 0;
  for (double t : step_times_s) sum += t;
  const double mean = out.mean_step_time_s = sum / n;
  const double per_step = tokens_per_step / static_cast<double>(gpus);
  if (out.n < 2) {
    out.t_quantile = out.half_width_s = out.score_high = kInf;
    return out;
  }
  double ss = 0;
  for (double t : step_times_s) ss += (t - mean) * (t - mean);
  const double s = std::sqrt(ss / (n - 1));
  out.t_quantile = boost::math::quantile(boost::math::students_t_distribution<double>(n - 1), 0.975);
  out.half_width_s = out.t_quantile * s / std::sqrt(n);
  out.score_low = per_step / (mean + out.half_width_s);
  out.score_high = mean - out.half_width_s > 0 ? per_step / (mean - out.half_width_s) : kInf;
  return out;
}

bool intervals_overlap(const ScoreInterval& a, const ScoreInterval& b) {
  return a.score_low <= b.score_high && b.score_low <= a.score_high;
}

bool interval_clears(const ScoreInterval& challenger, const ScoreInterval& best) {
  return challenger.score_low > best.score_high;
}

bool interval_falls_short(const ScoreInterval& trial, const ScoreInterval& best) {
  return trial.bounded() && trial.score_high < best.score_low * (1 - kCutMargin);
}

Throughput measure_throughput(const StepLog& log, const Window& window, const StepShape& shape) {
  if (shape.gpus < 1 || shape.row_length < 1 || shape.global_batch < 1)
    throw InputError(log.file, "GPU count, row length and global batch must be positive");
  const double step_tokens = static_cast<double>(shape.global_batch) * static_cast<double>(shape.row_length);
  std::map<std::int64_t, std::size_t> covered_by;  // step -> line
  Throughput out;
  out.step_times_s.assign(static_cast<std::size_t>(window.size()), 0.0);
  for (const auto& r : log.records) {
    if (r.last_step() < window.first || r.first_step > window.last) continue;
    std::string where = fmt::format("{}:{}", log.file, r.line);
    std::string steps =
        r.steps == 1 ? fmt::format("step {}", r.first_step) : fmt::format("steps {}–{}", r.first_step, r.last_step());
    if (r.first_step < window.first || r.last_step() > window.last)
      throw InputError(where,
                       fmt::format("this record averages {} (a logging interval of {}), which the measured window "
                                   "{} cuts",
                                   steps, r.steps, window.str()),
                       "re-run with --log-interval 1 (or an interval whose records fall inside the window)");
    for (std::int64_t s = r.first_step; s <= r.last_step(); ++s) {
      auto [it, fresh] = covered_by.emplace(s, r.line);
      if (!fresh)
        throw InputError(where, fmt::format("step {} is logged twice (also line {})", s, it->second),
                         "give the log of one run only");
    }
    if (r.skipped > 0)
      throw InputError(where,
                       fmt::format("{} skipped {} inside the measured window {}", steps,
                                   counted(r.skipped, "optimizer update"), window.str()),
                       "a skipped step trains nothing; fix the loss scale or the data and re-run");
    if (r.nan > 0 || (r.loss && !std::isfinite(*r.loss)))
      throw InputError(where,
                       fmt::format("{} has a nan loss or gradient inside the measured window {}", steps, window.str()),
                       "fix the run; a nan step cannot be scored");
    // Megatron's counters count a nan loss and, under a loss scaler, a skipped update; a bf16 step whose gradient
    // norm is nan or inf is applied without either counter moving (and slime logs no counter at all).
    if (r.grad_norm && !std::isfinite(*r.grad_norm))
      throw InputError(where,
                       fmt::format("{} has gradient norm {} inside the measured window {}: not a valid update, "
                                   "whatever the log's skipped and nan counters say",
                                   steps, format_double(*r.grad_norm), window.str()),
                       "fix the run (a non-finite gradient corrupts the update); a step with one cannot be scored");
    if (!r.loss)
      throw InputError(where,
                       fmt::format("{} has no loss in the log inside the measured window {}", steps, window.str()),
                       "give the run's own complete log (Megatron's lm loss, slime's train/loss): a step whose loss "
                       "is not logged cannot be shown to have trained");
    if (!r.time_s)
      throw InputError(where, fmt::format("{} has no step time in the log", steps),
                       "give the log that prints the step time (perf/step_time, elapsed time per iteration)");
    double t = *r.time_s;
    if (!(t > 0) || !std::isfinite(t))
      throw InputError(where, fmt::format("{} has step time {} s; it must be positive", steps, format_double(t)),
                       "the log is damaged; give the run's own log");
    if (r.rows && *r.rows != shape.global_batch)
      throw InputError(
          where,
          fmt::format("{} trained {} rows, but the workload's global batch is {}", steps, *r.rows, shape.global_batch),
          "record the global batch the run used");
    if (r.tokens && static_cast<double>(*r.tokens) != step_tokens)
      throw InputError(where,
                       fmt::format("{} reports {} tokens, but {} rows of {} tokens make {} (rows carry no padding)",
                                   steps, *r.tokens, shape.global_batch, shape.row_length, format_double(step_tokens)),
                       "record the workload's global batch and row length as run");
    for (std::int64_t s = r.first_step; s <= r.last_step(); ++s)
      out.step_times_s[static_cast<std::size_t>(s - window.first)] = t;
    out.total_tokens += step_tokens * static_cast<double>(r.steps);
    out.total_time_s += t * static_cast<double>(r.steps);
  }
  for (std::int64_t s = window.first; s <= window.last; ++s)
    if (!covered_by.count(s))
      throw InputError(log.file,
                       fmt::format("step {} of the measured window {} is missing from the log", s, window.str()),
                       "give the complete log of the run (all steps 0 to the end of the window)");
  const double n = static_cast<double>(window.size());
  out.tokens_per_s_per_gpu = out.total_tokens / (static_cast<double>(shape.gpus) * out.total_time_s);
  out.mean_step_time_s = out.total_time_s / n;
  double ss = 0;
  for (double t : out.step_times_s) ss += (t - out.mean_step_time_s) * (t - out.mean_step_time_s);
  out.cv = std::sqrt(ss / n) / out.mean_step_time_s;
  out.interval = score_interval(out.step_times_s, step_tokens, shape.gpus);
  return out;
}

}  // namespace openrecipes::measure
