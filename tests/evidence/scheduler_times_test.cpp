#include "evidence/scheduler_times.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {

TEST(SchedulerTimes, launcher_times_of_the_h200_runs) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto text = read_file(testing::fixtures_dir() / "runs/megatron-h200/times.txt");
  auto ref = parse_launcher_times(text, "times.txt", "ref");
  EXPECT_DOUBLE_EQ(ref.admitted_s, 1795973020.792464496);
  EXPECT_DOUBLE_EQ(ref.finished_s, 1795973164.166403326);
  EXPECT_EQ(ref.exit_code, 0);
  EXPECT_EQ(ref.line, 1u);
  auto lr10 = parse_launcher_times(text, "times.txt", "lr10");
  EXPECT_EQ(lr10.line, 3u);
  EXPECT_THROW(parse_launcher_times(text, "times.txt", "nope"), InputError);
}

TEST(SchedulerTimes, launcher_end_before_start_is_an_error) {
  EXPECT_THROW(parse_launcher_times("a rc=0 start=10 end=5\n", "t.txt", "a"), InputError);
  EXPECT_THROW(parse_launcher_times("a rc=0 start=10\n", "t.txt", "a"), InputError);
}

TEST(SchedulerTimes, sacct_start_to_end_of_the_allocation) {
  std::string text =
      "JobID|JobName|Submit|Start|End|ExitCode\n"
      "4242|sft|2026-10-11T09:00:00|2026-10-11T09:05:00|2026-10-11T09:20:30|0:0\n"
      "4242.batch|batch|2026-10-11T09:05:00|2026-10-11T09:05:00|2026-10-11T09:20:30|0:0\n";
  auto t = parse_sacct_times(text, "sacct.txt", "4242");
  EXPECT_DOUBLE_EQ(t.finished_s - t.admitted_s, 15 * 60 + 30);  // Start 09:05:00 to End 09:20:30
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_THROW(parse_sacct_times("JobID|Start\n", "s.txt", "1"), InputError);
  EXPECT_THROW(parse_sacct_times("JobID|Start|End\n7|Unknown|Unknown\n", "s.txt", "7"), InputError);
}

}  // namespace
}  // namespace openrecipes::evidence
