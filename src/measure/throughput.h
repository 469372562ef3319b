// Score, its 95% interval and step-time variation over the measured window (SPEC §2 "Score", "CV"; PROTOCOL.md
// "Measurement"; docs/protocol.md "Status and ranking" for the interval).
#pragma once

#include <cstdint>
#include <vector>

#include "core/step_record.h"
#include "measure/window.h"

namespace openrecipes::measure {

/// The workload facts a measurement needs.
struct StepShape {
  std::int64_t gpus = 0;          ///< n_GPU
  std::int64_t row_length = 0;    ///< L, tokens per row (rows carry no padding)
  std::int64_t global_batch = 0;  ///< rows per optimizer step
};

/// How every score interval is computed, in the words the outputs print beside it (once per output).
inline constexpr const char* kIntervalMethod =
    "95% t-interval of the mean step time over the window; step times are treated as independent";

/// The 95% interval of a score (docs/protocol.md), from the window's step times t_1..t_n (seconds): the Student
/// t-interval of the mean step time, mean ± h with h = t_{0.975, n−1} · s / √n (s the sample standard deviation, n − 1
/// in its denominator; the quantile from Boost.Math's students_t), mapped through score = tokens per step / (GPUs ×
/// mean step time): [T / (G·(mean + h)), T / (G·(mean − h))]. Step times are treated as independent (consecutive steps
/// of one run are not quite, so the interval describes the window's noise, not every source of run-to-run variation).
/// When mean − h ≤ 0 the interval has no upper bound: score_high is +infinity (JSON writes null, text "unbounded"). A
/// window of one step has no spread to measure: h and score_high are +infinity, score_low 0.
struct ScoreInterval {
  std::int64_t n = 0;           ///< step times in the window
  double t_quantile = 0;        ///< t_{0.975, n−1}, dimensionless (+infinity when n < 2)
  double mean_step_time_s = 0;  ///< the mean step time, seconds
  double half_width_s = 0;      ///< h = t_{0.975, n−1} · s / √n, seconds
  double score_low = 0;         ///< tokens / second / GPU, T / (G·(mean + h))
  double score_high = 0;        ///< tokens / second / GPU, T / (G·(mean − h)); +infinity when mean − h ≤ 0
  bool bounded() const;         ///< score_high is finite
  double relative_half_width() const;  ///< h / mean, dimensionless (0.021 = ±2.1% of the mean step time)
};

/// The interval of the score `tokens_per_step` / (`gpus` × mean of `step_times_s`) (ScoreInterval says how).
/// `step_times_s` holds each step's time in seconds (every one positive and finite, as measure_throughput checks);
/// `tokens_per_step` > 0, `gpus` ≥ 1. Throws std::invalid_argument (a bug in the caller) on an empty `step_times_s` or
/// a non-positive argument.
ScoreInterval score_interval(const std::vector<double>& step_times_s, double tokens_per_step, std::int64_t gpus);

/// The ranking's "within noise" rule (docs/protocol.md): the two closed intervals [score_low, score_high] share a point
/// (touching counts; an unbounded interval reaches every higher score).
bool intervals_overlap(const ScoreInterval& a, const ScoreInterval& b);

/// tune's rule for a new best (docs/tune.md "Trials"): `challenger`'s interval lies wholly above `best`'s, its low
/// above the best's high (never when the best's is unbounded above). The build replays a search's trials with it.
bool interval_clears(const ScoreInterval& challenger, const ScoreInterval& best);

/// How far below the best a trial's interval must end before tune cuts it: one window's interval does not cover drift
/// between runs (MLPerf states run-to-run variation as roughly ±2.5-5%), so a trial as fast as the best must never be
/// cut for a slightly slower machine moment.
inline constexpr double kCutMargin = 0.05;

/// tune's rule for cutting a trial as slower (docs/tune.md "Trials"): its interval, over the steps measured so far, is
/// bounded and ends more than kCutMargin below the best's bottom (score_high < best.score_low × (1 − kCutMargin)).
/// The build checks a search's cut trials with it.
bool interval_falls_short(const ScoreInterval& trial, const ScoreInterval& best);

/// What the window gives: tokens/s/GPU = ΣT_i / (n_GPU × Σt_i) summed before dividing, and the coefficient of
/// variation of t_i (population standard deviation / mean). `step_times_s` holds t_i for every step of W in
/// order (a logging interval of k steps contributes its average k times, so its spread understates the steps' own).
struct Throughput {
  double tokens_per_s_per_gpu = 0;  ///< tokens / second / GPU
  double cv = 0;                    ///< dimensionless
  double total_tokens = 0;          ///< ΣT_i over W
  double total_time_s = 0;          ///< Σt_i over W, seconds
  double mean_step_time_s = 0;
  std::vector<double> step_times_s;
  ScoreInterval interval;  ///< the score's 95% interval from step_times_s (score_interval)
};

/// Measures `log` over `window`. T_i = global_batch × row_length; a record that prints its own rows or tokens
/// must agree with that. A record covering k > 1 steps is used only when all k lie inside the window.
/// Throws InputError naming the file, line and step when: a step of W is missing or covered twice; a logging
/// interval is cut by the window (fix: --log-interval 1); a step in W was skipped or is nan (or its loss is not
/// finite); a step in W has a non-finite gradient norm or no loss at all, whatever the log's counters say;
/// t_i is missing, zero or negative; a record's rows or tokens disagree with the workload.
Throughput measure_throughput(const StepLog& log, const Window& window, const StepShape& shape);

}  // namespace openrecipes::measure
