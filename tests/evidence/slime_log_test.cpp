// slime / miles step and perf dict lines (formats of slime's model.py and train_metric_utils.py logger calls).
#include "evidence/slime_log.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {

const char* kLog =
    "[2026-10-11 10:00:01] model.py:918 - step 0: {'train/loss': 1.25, 'train/grad_norm': np.float64(3.5), "
    "'train/lr-pg_0': 1e-05, 'train/global_batch_size': 128, 'train/step': 0}\n"
    "[2026-10-11 10:00:01] train_metric_utils.py:401 - perf 0: {'perf/train_wait_time': 0.5, 'perf/train_time': "
    "4.25, 'perf/step_time': 4.75, 'perf/wait_time_ratio': 0.105}\n"
    "[2026-10-11 10:00:02] rollout_metrics.py:268 - perf 1: {'perf/rollout_time': 0.1, 'rollout/x': \"a'b\"}\n"
    "[2026-10-11 10:00:03] model.py:918 - critic-step 1: {'train/critic-loss': 9.0}\n"
    "[2026-10-11 10:00:05] model.py:918 - step 1: {'train/loss': 1.125, 'train/global_batch_size': 128, "
    "'train/step': 1}\n"
    "[2026-10-11 10:00:05] train_metric_utils.py:401 - perf 1: {'perf/step_time': 4.5, 'perf/train_time': 4.0}\n";

TEST(SlimeLog, step_and_perf_lines_merge_by_step) {
  auto log = parse_slime_log(kLog, "slime.log");
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[0].first_step, 0);
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 4.75);
  EXPECT_DOUBLE_EQ(*log.records[0].loss, 1.25);
  EXPECT_EQ(*log.records[0].rows, 128);
  EXPECT_EQ(log.records[0].line, 2u);  // the perf line gives the time
  EXPECT_DOUBLE_EQ(*log.records[1].time_s, 4.5);
  EXPECT_DOUBLE_EQ(*log.records[1].loss, 1.125);  // not the critic's loss
}

TEST(SlimeLog, miles_format_reads_the_same_lines) {
  EXPECT_EQ(parse_slime_log(kLog, "m.log", "miles").format, "miles");
}

TEST(SlimeLog, step_logged_twice_with_different_values_is_an_error) {
  std::string text = std::string(kLog) + "step 1: {'train/loss': 2.0}\n";
  EXPECT_THAT(testing::message_of([&] { parse_slime_log(text, "s.log"); }),
              ::testing::HasSubstr("s.log:7: step 1 logged twice with different values (also line 5)"));
}

// miles logs each step line twice with the same text: once from log_utils.py log_train_step (L542) and once from
// megatron_utils/model.py (L854), so the logger prefixes differ and the dicts do not (notes/slime.md §2.1).
const char* kMilesLog =
    "[2026-11-02 09:00:01] log_utils.py:542 - step 0: {'train/loss': 1.25, 'train/grad_norm': 3.5, "
    "'train/lr-pg_0': 1e-05, 'train/step': 0}\n"
    "[2026-11-02 09:00:01] model.py:854 - step 0: {'train/loss': 1.25, 'train/grad_norm': 3.5, "
    "'train/lr-pg_0': 1e-05, 'train/step': 0}\n"
    "[2026-11-02 09:00:01] train_metric_utils.py:401 - perf 0: {'perf/train_wait_time': 0.5, 'perf/train_time': "
    "4.25, 'perf/step_time': 4.75}\n"
    "[2026-11-02 09:00:06] log_utils.py:542 - step 1: {'train/loss': 1.125, 'train/grad_norm': 2.75, "
    "'train/lr-pg_0': 1e-05, 'train/step': 1}\n"
    "[2026-11-02 09:00:06] model.py:854 - step 1: {'train/loss': 1.125, 'train/grad_norm': 2.75, "
    "'train/lr-pg_0': 1e-05, 'train/step': 1}\n"
    "[2026-11-02 09:00:06] train_metric_utils.py:401 - perf 1: {'perf/step_time': 4.5}\n";

TEST(SlimeLog, miles_step_line_printed_twice_with_the_same_dict_is_read_once) {
  auto log = parse_slime_log(kMilesLog, "miles.log", "miles");
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_DOUBLE_EQ(*log.records[0].loss, 1.25);
  EXPECT_DOUBLE_EQ(*log.records[0].grad_norm, 3.5);
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 4.75);
  EXPECT_DOUBLE_EQ(*log.records[1].loss, 1.125);
  EXPECT_DOUBLE_EQ(*log.records[1].time_s, 4.5);
}

TEST(SlimeLog, miles_repeat_that_disagrees_is_an_error_naming_both_lines) {
  std::string text = kMilesLog;
  auto at = text.find("model.py:854 - step 1: {'train/loss': 1.125");
  text.replace(text.find("1.125", at), 5, "1.126");
  EXPECT_THAT(testing::message_of([&] { parse_slime_log(text, "miles.log", "miles"); }),
              ::testing::HasSubstr("miles.log:5: step 1 logged twice with different values (also line 4)"));
}

TEST(SlimeLog, perf_total_train_time_of_runs_before_the_rename_is_the_step_time) {
  // slime before 2e27587bc (2025-10-30) logged train_wait + train as perf/total_train_time.
  const char* old_log =
      "step 0: {'train/loss': 1.25}\n"
      "perf 0: {'perf/train_wait_time': 0.5, 'perf/train_time': 4.25, 'perf/total_train_time': 4.75}\n"
      "step 1: {'train/loss': 1.125}\n"
      "perf 1: {'perf/train_wait_time': 0.25, 'perf/train_time': 4.25, 'perf/total_train_time': 4.5}\n";
  auto log = parse_slime_log(old_log, "old.log");
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 4.75);
  EXPECT_DOUBLE_EQ(*log.records[1].time_s, 4.5);
  EXPECT_EQ(log.time_field, "perf/total_train_time");
  EXPECT_EQ(parse_slime_log(kLog, "new.log").time_field, "perf/step_time");
}

TEST(SlimeLog, a_log_mixing_perf_step_time_and_perf_total_train_time_is_an_error) {
  EXPECT_THAT(testing::message_of([&] {
                parse_slime_log("perf 0: {'perf/total_train_time': 4.75}\nperf 1: {'perf/step_time': 4.5}\n",
                                "mix.log");
              }),
              ::testing::HasSubstr("mix.log:2: this perf line gives the step time as 'perf/step_time', line 1 "
                                   "as 'perf/total_train_time'"));
}

TEST(SlimeLog, train_grad_norm_is_read_including_nan_and_inf) {
  auto log = parse_slime_log(
      "step 0: {'train/loss': 1.25, 'train/grad_norm': nan}\n"
      "step 1: {'train/loss': 1.25, 'train/grad_norm': inf}\n"
      "step 2: {'train/loss': 1.25, 'train/grad_norm': np.float64(2.5)}\n",
      "g.log");
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_TRUE(std::isnan(*log.records[0].grad_norm));
  EXPECT_TRUE(std::isinf(*log.records[1].grad_norm));
  EXPECT_DOUBLE_EQ(*log.records[2].grad_norm, 2.5);
}

TEST(SlimeLog, truncated_dict_is_an_error_naming_the_line) {
  EXPECT_THAT(testing::message_of([&] { parse_slime_log("step 0: {'train/loss': 1.2, 'train/global_b", "s.log"); }),
              ::testing::HasSubstr("s.log:1: cannot read the step 0 dict"));
}

TEST(SlimeLog, no_step_lines_is_an_error) { EXPECT_THROW(parse_slime_log("hello\nworld\n", "s.log"), InputError); }

std::string slime_error(const std::string& text) {
  return testing::message_of([&] { parse_slime_log(text, "s.log"); });
}

TEST(SlimeLog, negative_or_huge_step_numbers_are_errors_naming_the_line) {
  auto m = slime_error("step 0: {'train/loss': 1.25}\nstep -1: {'train/loss': 1.25}\n");
  EXPECT_THAT(m, ::testing::HasSubstr("s.log:2: 'step -1:' is not a step number"));
  m = slime_error("step 0: {'train/loss': 1.25}\nperf 1000000000000000000000000000000: {'perf/step_time': 4.5}\n");
  EXPECT_THAT(m, ::testing::HasSubstr("s.log:2: 'perf 1000000000000000000000000000000:' is not a step number"));
}

TEST(SlimeLog, steps_that_count_down_are_an_error_as_in_megatron_logs) {
  auto m = slime_error("step 19: {'train/loss': 1.25}\nstep 18: {'train/loss': 1.25}\n");
  EXPECT_THAT(m, ::testing::HasSubstr("s.log:2: step 18 comes after step 19 (line 1): steps must count up"));
  m = slime_error("perf 3: {'perf/step_time': 4.5}\nperf 2: {'perf/step_time': 4.5}\n");
  EXPECT_THAT(m, ::testing::HasSubstr("s.log:2: perf 2 comes after perf 3 (line 1)"));
}

TEST(SlimeLog, a_key_given_twice_in_a_dict_is_an_error_naming_key_and_line) {
  auto m = slime_error("step 0: {'train/loss': 1.25}\nperf 0: {'perf/step_time': 4.5, 'perf/step_time': 0.001}\n");
  EXPECT_THAT(m, ::testing::HasSubstr("s.log:2: cannot read the perf 0 dict"));
  EXPECT_THAT(m, ::testing::HasSubstr("key 'perf/step_time' appears twice in one dict"));
}

TEST(SlimeLog, step_time_below_one_millisecond_is_an_error) {
  auto m = slime_error("perf 0: {'perf/step_time': 1e-320}\n");
  EXPECT_THAT(m, ::testing::HasSubstr("s.log:1: 'perf/step_time' 1e-320 s is below 1 ms"));
}

}  // namespace
}  // namespace openrecipes::evidence
