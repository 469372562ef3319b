// Tests for src/measure/claims: the 0.5% claim tolerance, the CV floor, GPU-hours claims, implausible numbers and
// the scheduler span against the log's own step times. Expected values are worked out by hand in each test.
#include "measure/claims.h"

#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace openrecipes::measure {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Throughput measured(double score, double cv) {
  Throughput t;
  t.tokens_per_s_per_gpu = score;
  t.cv = cv;
  return t;
}

TEST(Claims, a_score_within_half_a_percent_of_the_recomputed_one_stands) {
  // 20,090 is 0.45% over 20,000; 20,120 is 0.6% over.
  EXPECT_THAT(throughput_claim_problems(20090.0, 0.05, measured(20000.0, 0.05)), IsEmpty());
  EXPECT_THAT(throughput_claim_problems(20120.0, 0.05, measured(20000.0, 0.05)),
              ElementsAre("the recipe claims 20120.0 tokens/s/GPU, but its log gives 20000.0 (+0.60%; the protocol "
                          "allows 0.5%)"));
}

TEST(Claims, the_cv_claim_may_be_off_by_the_larger_of_five_hundredths_of_a_point_and_half_a_percent) {
  // CV 6%: 0.5% of it is 0.0003 < 0.0005, so 0.0604 stands (off by 0.0004) and 0.0606 (off by 0.0006) does not.
  EXPECT_THAT(throughput_claim_problems(20000.0, 0.0604, measured(20000.0, 0.06)), IsEmpty());
  EXPECT_THAT(throughput_claim_problems(20000.0, 0.0606, measured(20000.0, 0.06)),
              ElementsAre("the recipe claims a step-time CV of 6.06%, but its log gives 6.00%"));
}

TEST(Claims, gpu_hours_claims_use_the_same_half_percent) {
  EXPECT_EQ(gpu_hours_claim_problem(0.0501, 0.05), std::nullopt);  // 0.2% over
  EXPECT_EQ(gpu_hours_claim_problem(0.0503, 0.05),
            "the recipe claims 0.0503 GPU-hours, but its scheduler times give 0.0500");  // 0.6% over
}

TEST(Claims, non_finite_numbers_and_an_mfu_over_the_peak_are_implausible) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THAT(implausible_numbers(20000.0, 0.1, 0.4), IsEmpty());
  EXPECT_THAT(implausible_numbers(20000.0, 0.1, 83.078),
              ElementsAre("MFU 8307.8% is above 100% of the GPU's dense BF16 peak: the step times cannot be right"));
  EXPECT_THAT(implausible_numbers(0.0, inf, std::nan("")),
              ElementsAre("the score 0 tokens/s/GPU is not a finite positive number",
                          "the cost inf $/1M tokens is not finite", "the MFU nan is not finite"));
}

StepLog log_of(std::vector<StepRecord> records) {
  StepLog log;
  log.records = std::move(records);
  return log;
}

StepRecord record(std::int64_t first, std::int64_t steps, double time_s) {
  StepRecord r;
  r.first_step = first;
  r.steps = steps;
  r.time_s = time_s;
  return r;
}

TEST(Claims, logged_seconds_count_each_interval_once_times_its_steps) {
  // steps 0–1 at 2.0 s each (4.0), step 2 at 1.5 s logged twice (1.5 once), a non-positive time left out.
  auto log = log_of({record(0, 2, 2.0), record(2, 1, 1.5), record(2, 1, 1.5), record(3, 1, -1.0)});
  EXPECT_DOUBLE_EQ(logged_step_seconds(log), 5.5);
}

TEST(Claims, a_scheduler_span_shorter_than_the_logged_step_times_is_named) {
  auto log = log_of({record(0, 10, 1.0)});                                  // 10 s of steps
  EXPECT_EQ(scheduler_span_problem(log, 100.0, 109.995, 0), std::nullopt);  // 9.995 s: within 0.1%
  EXPECT_EQ(scheduler_span_problem(log, 100.0, 109.0, 0),
            "the scheduler times span 9.00 s, less than the 10.00 s the log's own step times add up to");
  // Slurm's whole seconds: a span read as 9 s may be a run of 9.99 s (started at 100.99, ended at 110.98); 8 s may not.
  EXPECT_EQ(scheduler_span_problem(log, 100.0, 109.0, 1), std::nullopt);
  EXPECT_EQ(scheduler_span_problem(log, 100.0, 108.0, 1),
            "the scheduler times span 8.00 s, less than the 10.00 s the log's own step times add up to");
}

}  // namespace
}  // namespace openrecipes::measure
