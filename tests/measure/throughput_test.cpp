// Score and CV (SPEC §2), on the real H200 logs with the expected values computed by hand in the test.
#include "measure/throughput.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "evidence/megatron_log.h"
#include "evidence/slime_log.h"
#include "testing/support.h"

namespace openrecipes::measure {
namespace {

// A record as a log gives it: a step time and a loss (a record without a loss inside the window is an error).
StepRecord rec(std::int64_t first, std::int64_t k, double t, std::size_t line = 1) {
  StepRecord r;
  r.first_step = first;
  r.steps = k;
  r.time_s = t;
  r.loss = 2.5;
  r.line = line;
  return r;
}

StepLog log_of(std::vector<StepRecord> records) {
  StepLog log;
  log.file = "x.log";
  log.records = std::move(records);
  return log;
}

StepLog twenty_steps(double t = 2.0) {
  std::vector<StepRecord> r;
  for (int s = 0; s < 20; ++s) r.push_back(rec(s, 1, t, static_cast<std::size_t>(s + 1)));
  return log_of(r);
}

std::string error_of(const StepLog& log, Window w = {5, 19}) {
  return testing::message_of([&] { measure_throughput(log, w, {8, 8192, 128}); });
}

TEST(Throughput, h200_ref_score_and_cv_match_the_hand_calculation) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = testing::fixtures_dir() / "runs/megatron-h200/ref.log";
  auto log = evidence::parse_megatron_log(read_file(path), "ref.log", 1);
  auto m = measure_throughput(log, {5, 19}, {1, 2048, 32});
  // Iterations 6..20 (steps 5..19), "elapsed time per iteration (ms)" read from ref.log:
  const double ms[] = {4926.7, 5150.5, 4831.0, 5085.6, 5648.8, 5730.1, 5994.4, 5425.3,
                       5457.1, 4788.2, 5112.3, 5228.7, 5332.4, 4796.4, 5799.5};
  double sum_s = 0;
  for (double x : ms) sum_s += x / 1000;
  const double tokens = 15.0 * 32 * 2048;  // 15 steps x 32 rows x 2048 tokens, no padding
  EXPECT_NEAR(m.tokens_per_s_per_gpu, tokens / (1 * sum_s), 1e-9);
  EXPECT_NEAR(m.tokens_per_s_per_gpu, 12395.37, 0.01);  // 983040 tokens / 79.3070 s
  const double mean = sum_s / 15;
  double ss = 0;
  for (double x : ms) ss += (x / 1000 - mean) * (x / 1000 - mean);
  EXPECT_NEAR(m.cv, std::sqrt(ss / 15) / mean, 1e-12);
  EXPECT_DOUBLE_EQ(m.total_tokens, tokens);
}

TEST(Throughput, score_sums_before_dividing) {
  // Two steps of 1 s and 3 s with 100 tokens each: 200 / 4 = 50 tokens/s, not mean(100, 33.3) = 66.7.
  std::vector<StepRecord> r{rec(0, 1, 1.0), rec(1, 1, 3.0)};
  auto m = measure_throughput(log_of(r), {0, 1}, {1, 10, 10});
  EXPECT_DOUBLE_EQ(m.tokens_per_s_per_gpu, 50.0);
  EXPECT_DOUBLE_EQ(m.cv, 0.5);  // pop. std 1.0 / mean 2.0
}

TEST(Throughput, gpu_count_divides_the_score) {
  auto m = measure_throughput(twenty_steps(2.0), {5, 19}, {8, 8192, 128});
  EXPECT_DOUBLE_EQ(m.tokens_per_s_per_gpu, 128.0 * 8192 / (8 * 2.0));
  EXPECT_DOUBLE_EQ(m.cv, 0.0);
}

TEST(Throughput, interval_records_inside_the_window_count_for_k_steps) {
  // log interval 5: records cover steps 0-4, 5-9, 10-14, 15-19.
  std::vector<StepRecord> r{rec(0, 5, 9.0), rec(5, 5, 1.0), rec(10, 5, 2.0), rec(15, 5, 3.0)};
  auto m = measure_throughput(log_of(r), {5, 19}, {1, 100, 1});
  EXPECT_DOUBLE_EQ(m.total_time_s, 5 * 1.0 + 5 * 2.0 + 5 * 3.0);
  EXPECT_DOUBLE_EQ(m.tokens_per_s_per_gpu, 1500.0 / 30.0);
  EXPECT_EQ(m.step_times_s.size(), 15u);
}

TEST(Throughput, window_that_cuts_a_logging_interval_is_an_error_naming_it) {
  std::vector<StepRecord> r{rec(0, 10, 2.0, 7), rec(10, 10, 2.0, 9)};
  auto m = error_of(log_of(r));
  EXPECT_NE(m.find("x.log:7: this record averages steps 0–9 (a logging interval of 10)"), std::string::npos) << m;
  EXPECT_NE(m.find("--log-interval 1"), std::string::npos) << m;
}

TEST(Throughput, skipped_or_nan_step_inside_the_window_is_an_error) {
  auto log = twenty_steps();
  log.records[7].skipped = 1;
  EXPECT_NE(error_of(log).find("x.log:8: step 7 skipped 1 optimizer update"), std::string::npos) << error_of(log);
  log = twenty_steps();
  log.records[12].nan = 1;
  EXPECT_NE(error_of(log).find("step 12 has a nan loss"), std::string::npos);
  log = twenty_steps();
  log.records[12].loss = std::nan("");
  EXPECT_NE(error_of(log).find("step 12 has a nan loss"), std::string::npos);
}

TEST(Throughput, skipped_step_outside_the_window_is_fine) {
  auto log = twenty_steps();
  log.records[2].skipped = 1;
  EXPECT_NO_THROW(measure_throughput(log, {5, 19}, {1, 1, 1}));
}

TEST(Throughput, missing_step_is_an_error_naming_it) {
  auto log = twenty_steps();
  log.records.erase(log.records.begin() + 11);
  EXPECT_NE(error_of(log).find("step 11 of the measured window 5–19 is missing"), std::string::npos);
  auto short_log = twenty_steps();
  short_log.records.resize(18);
  EXPECT_NE(error_of(short_log).find("step 18 of the measured window"), std::string::npos);
}

TEST(Throughput, zero_or_negative_step_time_is_an_error) {
  auto log = twenty_steps();
  log.records[6].time_s = 0.0;
  EXPECT_NE(error_of(log).find("step 6 has step time 0 s; it must be positive"), std::string::npos) << error_of(log);
  log.records[6].time_s = -1.5;
  EXPECT_NE(error_of(log).find("step 6 has step time -1.5 s"), std::string::npos);
  log.records[6].time_s.reset();
  EXPECT_NE(error_of(log).find("step 6 has no step time"), std::string::npos);
}

TEST(Throughput, rows_or_tokens_that_disagree_with_the_workload_are_errors) {
  auto log = twenty_steps();
  log.records[9].rows = 64;
  EXPECT_NE(error_of(log).find("step 9 trained 64 rows, but the workload's global batch is 128"), std::string::npos);
  log = twenty_steps();
  log.records[9].tokens = 128 * 8192 + 1;
  EXPECT_NE(error_of(log).find("rows carry no padding"), std::string::npos);
}

TEST(Throughput, step_logged_twice_is_an_error) {
  auto log = twenty_steps();
  log.records.push_back(rec(10, 1, 2.0, 99));
  EXPECT_NE(error_of(log).find("x.log:99: step 10 is logged twice"), std::string::npos);
}

// The real ref.log with one training_log line edited (`from` replaced by `to` on the line of `iteration`), as
// Megatron prints a bf16 step whose gradient is not finite: "grad norm: nan", both counters 0.
std::string ref_log_with(int iteration, const std::string& from, const std::string& to) {
  std::string text = read_file(testing::fixtures_dir() / "runs/megatron-h200/ref.log");
  auto at = text.find(fmt::format("iteration {:>8}/      20 |", iteration));
  EXPECT_NE(at, std::string::npos);
  auto field = text.find(from, at);
  EXPECT_LT(field, text.find('\n', at)) << from;
  text.replace(field, from.size(), to);
  return text;
}

std::string measure_error(const std::string& text) {
  return testing::message_of([&] {
    measure_throughput(evidence::parse_megatron_log(text, "ref.log", 1), {5, 19}, {1, 2048, 32});
  });
}

TEST(Throughput, nan_or_inf_grad_norm_inside_the_window_fails_though_the_counters_say_0) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // Iteration 10 (step 9) of ref.log is at line 1222 and prints "grad norm: 2.950".
  auto e = measure_error(ref_log_with(10, "grad norm: 2.950", "grad norm: nan"));
  EXPECT_NE(e.find("ref.log:1222: step 9 has gradient norm nan inside the measured window 5–19"), std::string::npos)
      << e;
  e = measure_error(ref_log_with(10, "grad norm: 2.950", "grad norm: inf"));
  EXPECT_NE(e.find("step 9 has gradient norm inf"), std::string::npos) << e;
}

TEST(Throughput, nan_grad_norm_outside_the_window_is_fine) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // Iteration 3 is step 2, a warm-up step: never scored.
  std::string text = read_file(testing::fixtures_dir() / "runs/megatron-h200/ref.log");
  auto at = text.find("iteration        3/      20 |");
  auto field = text.find("grad norm: ", at);
  auto end = text.find(" |", field);
  text.replace(field, end - field, "grad norm: nan");
  EXPECT_NO_THROW(measure_throughput(evidence::parse_megatron_log(text, "ref.log", 1), {5, 19}, {1, 2048, 32}));
}

TEST(Throughput, line_without_lm_loss_inside_the_window_fails_naming_the_step) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto e = measure_error(ref_log_with(10, " lm loss: 1.157654E+01 |", ""));
  EXPECT_NE(e.find("ref.log:1222: step 9 has no loss in the log inside the measured window 5–19"), std::string::npos)
      << e;
}

TEST(Throughput, record_without_loss_or_with_nan_grad_norm_is_an_error) {
  auto log = twenty_steps();
  log.records[15].loss.reset();
  EXPECT_NE(error_of(log).find("x.log:16: step 15 has no loss"), std::string::npos) << error_of(log);
  log = twenty_steps();
  log.records[6].grad_norm = -std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of(log).find("x.log:7: step 6 has gradient norm -inf"), std::string::npos) << error_of(log);
  log = twenty_steps();
  log.records[6].grad_norm = 3.5;  // a finite norm is what every real step has
  EXPECT_NO_THROW(measure_throughput(log, {5, 19}, {8, 8192, 128}));
}

TEST(Throughput, slime_train_grad_norm_nan_inside_the_window_fails) {
  // 20 slime steps as slime prints them (model.py step line, train_metric_utils.py perf line), step 7's gradient
  // norm nan: slime has no skipped/nan counters, so only the norm shows it.
  std::string text;
  for (int s = 0; s < 20; ++s)
    text += fmt::format(
        "step {}: {{'train/loss': 1.5, 'train/grad_norm': {}, 'train/global_batch_size': 128}}\n"
        "perf {}: {{'perf/step_time': 4.5}}\n",
        s, s == 7 ? "nan" : "2.25", s);
  auto log = evidence::parse_slime_log(text, "slime.log");
  EXPECT_THAT(testing::message_of([&] {
                measure_throughput(log, {5, 19}, {8, 8192, 128});
              }),
              ::testing::HasSubstr("slime.log:16: step 7 has gradient norm nan"));
}

// Score intervals (docs/protocol.md "Status and ranking"): the Student t-interval of the mean step time, mapped through
// score = T / (G × mean).

TEST(ScoreInterval, five_step_times_match_the_hand_calculation) {
  // t = 1.0, 1.2, 0.9, 1.1, 1.3 s: mean 1.1; deviations -0.1 0.1 -0.2 0 0.2, squares sum 0.10, s² = 0.10 / 4 = 0.025,
  // s = 0.158113883; s/√5 = √0.005 = 0.0707106781; t_{0.975,4} = 2.7764451052 (printed t-table);
  // h = 2.7764451052 × 0.0707106781 = 0.1963243161; T = 16,384 tokens a step on 1 GPU:
  // low = 16384 / 1.2963243161 = 12,638.8125, high = 16384 / 0.9036756839 = 18,130.3982.
  auto in = score_interval({1.0, 1.2, 0.9, 1.1, 1.3}, 16384, 1);
  EXPECT_EQ(in.n, 5);
  EXPECT_NEAR(in.t_quantile, 2.7764451052, 1e-9);
  EXPECT_NEAR(in.mean_step_time_s, 1.1, 1e-12);
  EXPECT_NEAR(in.half_width_s, 0.1963243161, 1e-9);
  EXPECT_NEAR(in.score_low, 12638.8125224, 1e-6);
  EXPECT_NEAR(in.score_high, 18130.3982090, 1e-6);
  EXPECT_TRUE(in.bounded());
  EXPECT_NEAR(in.relative_half_width(), 0.1963243161 / 1.1, 1e-9);
  // G GPUs divide both bounds.
  auto on8 = score_interval({1.0, 1.2, 0.9, 1.1, 1.3}, 16384, 8);
  EXPECT_NEAR(on8.score_low, 12638.8125224 / 8, 1e-6);
  EXPECT_NEAR(on8.score_high, 18130.3982090 / 8, 1e-6);
}

TEST(ScoreInterval, fifteen_step_window_uses_t_0975_with_14_degrees_of_freedom) {
  std::vector<double> t(15, 2.0);
  t[0] = 2.5;  // any spread: the quantile does not depend on it
  EXPECT_NEAR(score_interval(t, 1, 1).t_quantile, 2.1447866879, 1e-9);  // printed t-table, df 14
}

TEST(ScoreInterval, bundled_tulu3_cefusion_log_matches_numpy) {
  // registry/recipes/qwen3-0.6b/H200/tulu3-cefusion/evidence/train.log, 1 GPU, 32 rows × 512 tokens, window 5–19.
  // Expected values from numpy 1.24.2, run in the repository root:
  //   /usr/bin/python3 -c "import re, numpy as np; ms = [float(m) for m in re.findall(r'elapsed time per iteration
  //     \(ms\): ([0-9.]+)', open('registry/recipes/qwen3-0.6b/H200/tulu3-cefusion/evidence/train.log').read())];
  //     t = np.array(ms[5:20]) / 1000; T = 32 * 512; h = 2.1447866879 * t.std(ddof=1) / np.sqrt(len(t));
  //     print(repr(t.mean()), repr(h), repr(T / (t.mean() + h)), repr(T / (t.mean() - h)))"
  //   1.4252266666666666 0.05191082826124566 11091.723049653936 11930.249067121898
  auto path = testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/tulu3-cefusion/evidence/train.log";
  auto log = evidence::parse_megatron_log(read_file(path), "train.log", 1);
  auto m = measure_throughput(log, {5, 19}, {1, 512, 32});
  const auto& in = m.interval;
  EXPECT_EQ(in.n, 15);
  EXPECT_NEAR(in.mean_step_time_s, 1.4252266666666666, 1e-12);
  EXPECT_NEAR(in.half_width_s, 0.05191082826124566, 1e-10);
  EXPECT_NEAR(in.score_low, 11091.723049653936, 1e-6);
  EXPECT_NEAR(in.score_high, 11930.249067121898, 1e-6);
  EXPECT_LT(in.score_low, m.tokens_per_s_per_gpu);
  EXPECT_GT(in.score_high, m.tokens_per_s_per_gpu);
}

TEST(ScoreInterval, upper_bound_is_infinite_when_the_half_width_reaches_the_mean) {
  // t = 0.1, 10.0 s: mean 5.05, s = 9.9/√2 = 7.0003571, t_{0.975,1} = 12.7062047364, h = 12.7062047364 × 4.95 =
  // 62.8957 > 5.05: no upper bound; low = 1 / (5.05 + 62.8957134) = 0.0147177.
  auto in = score_interval({0.1, 10.0}, 1, 1);
  EXPECT_NEAR(in.t_quantile, 12.7062047364, 1e-9);
  EXPECT_NEAR(in.half_width_s, 12.7062047364 * 4.95, 1e-8);
  EXPECT_FALSE(in.bounded());
  EXPECT_TRUE(std::isinf(in.score_high));
  EXPECT_NEAR(in.score_low, 1 / (5.05 + 12.7062047364 * 4.95), 1e-11);
}

TEST(ScoreInterval, one_step_has_no_spread_so_the_interval_is_everything) {
  auto in = score_interval({2.0}, 100, 1);
  EXPECT_EQ(in.n, 1);
  EXPECT_EQ(in.score_low, 0);
  EXPECT_FALSE(in.bounded());
}

TEST(ScoreInterval, identical_step_times_give_a_zero_width_interval_at_the_score) {
  auto in = score_interval(std::vector<double>(15, 2.0), 16384, 1);
  EXPECT_EQ(in.half_width_s, 0);
  EXPECT_EQ(in.score_low, 8192);
  EXPECT_EQ(in.score_high, 8192);
}

TEST(ScoreInterval, empty_step_times_or_no_gpus_are_a_callers_bug) {
  EXPECT_THROW(score_interval({}, 1, 1), std::invalid_argument);
  EXPECT_THROW(score_interval({1.0}, 1, 0), std::invalid_argument);
  EXPECT_THROW(score_interval({1.0}, 0, 1), std::invalid_argument);
}

ScoreInterval between(double low, double high) { return {.score_low = low, .score_high = high}; }

TEST(IntervalsOverlap, overlapping_intervals_are_within_noise_and_separate_ones_are_not) {
  EXPECT_TRUE(intervals_overlap(between(100, 110), between(105, 120)));
  EXPECT_TRUE(intervals_overlap(between(105, 120), between(100, 110)));  // either order
  EXPECT_TRUE(intervals_overlap(between(100, 120), between(105, 110)));  // one inside the other
  EXPECT_FALSE(intervals_overlap(between(100, 110), between(111, 120)));
  EXPECT_FALSE(intervals_overlap(between(111, 120), between(100, 110)));
}

TEST(IntervalsOverlap, touching_counts_and_an_unbounded_interval_reaches_every_higher_score) {
  EXPECT_TRUE(intervals_overlap(between(100, 110), between(110, 120)));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(intervals_overlap(between(50, inf), between(1000, 2000)));
  EXPECT_FALSE(intervals_overlap(between(50, inf), between(10, 40)));
}

// tune's two rules over intervals (docs/tune.md): a new best lies wholly above the best; a cut trial ends more than 5%
// below the best's bottom.
TEST(TuneRules, a_trial_clears_the_best_only_when_its_whole_interval_lies_above_it) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(interval_clears(between(111, 130), between(100, 110)));
  EXPECT_FALSE(interval_clears(between(110, 130), between(100, 110)));  // touching: within noise
  EXPECT_FALSE(interval_clears(between(1e9, 2e9), between(100, inf)));  // an unbounded best is never cleared
}

TEST(TuneRules, a_trial_is_cut_only_when_its_interval_ends_more_than_5_percent_below_the_best) {
  // The best's bottom is 1000: a trial is cut when its top is below 950.
  EXPECT_TRUE(interval_falls_short(between(800, 949.9), between(1000, 1100)));
  EXPECT_FALSE(interval_falls_short(between(800, 950), between(1000, 1100)));
  EXPECT_FALSE(interval_falls_short(between(800, 999), between(1000, 1100)));  // slower, but within the margin
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(interval_falls_short(between(10, inf), between(1000, 1100)));  // unbounded: it may yet be fast
}

}  // namespace
}  // namespace openrecipes::measure
