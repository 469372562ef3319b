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

std::string launcher_error(const std::string& line) {
  return testing::message_of([&] { parse_launcher_times(line, "t.txt", "a"); });
}

std::string sacct_error(const std::string& text) {
  return testing::message_of([&] { parse_sacct_times(text, "s.txt", "7"); });
}

TEST(SchedulerTimes, launcher_time_that_is_not_finite_says_so) {
  auto m = launcher_error("a rc=0 start=nan end=1795973250.85\n");
  EXPECT_NE(m.find("t.txt:1: 'start=nan' is not a finite time"), std::string::npos) << m;
  m = launcher_error("a rc=0 start=0 end=1e300\n");
  EXPECT_NE(m.find("t.txt:1: 'end=1e300' is not a finite time"), std::string::npos) << m;
}

TEST(SchedulerTimes, launcher_field_given_twice_is_an_error) {
  auto m = launcher_error("a rc=0 start=10 start=1 end=20\n");
  EXPECT_NE(m.find("t.txt:1: field 'start=' is given twice"), std::string::npos) << m;
}

TEST(SchedulerTimes, a_run_longer_than_a_year_is_an_error) {
  // 0 to 31,708,800 s is 367 days.
  auto m = launcher_error("a rc=0 start=0 end=31708800\n");
  EXPECT_NE(m.find("t.txt:1: end is 31708800 s after start: more than a year"), std::string::npos) << m;
  EXPECT_NO_THROW(parse_launcher_times("a rc=0 start=0 end=31622400\n", "t.txt", "a"));  // 366 days exactly
}

// One line of `scontrol show job -o` (fields trimmed to those read, plus a few it passes over).
const char* const kScontrolLine =
    "JobId=42 JobName=ref UserId=u(1000) JobState=COMPLETED Reason=None ExitCode=0:0 RunTime=00:01:26 "
    "SubmitTime=2026-10-11T09:04:58 StartTime=2026-10-11T09:05:00 EndTime=2026-10-11T09:06:26 NumNodes=1\n";

TEST(SchedulerTimes, scontrol_line_gives_the_jobs_span_exit_code_and_state) {
  const auto t = parse_scontrol_times(std::string("JobId=41 StartTime=x EndTime=y\n") + kScontrolLine, "j.txt", "42");
  EXPECT_EQ(t.finished_s - t.admitted_s, 86.0);  // 09:05:00 to 09:06:26
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_EQ(t.state, "COMPLETED");
  EXPECT_EQ(t.line, 2u);
}

TEST(SchedulerTimes, scontrol_time_that_is_no_time_or_missing_is_an_error_naming_the_field) {
  std::string bad = kScontrolLine;
  bad.replace(bad.find("2026-10-11T09:05:00"), 19, "2026-02-30T09:05:00");
  auto m = testing::message_of([&] { parse_scontrol_times(bad, "j.txt", "42"); });
  EXPECT_NE(m.find("j.txt:1: StartTime '2026-02-30T09:05:00' is not a date or time of day"), std::string::npos) << m;
  EXPECT_NE(m.find("give scontrol output for a finished job"), std::string::npos) << m;
  std::string no_end = kScontrolLine;
  no_end.replace(no_end.find(" EndTime="), 28, "");
  m = testing::message_of([&] { parse_scontrol_times(no_end, "j.txt", "42"); });
  EXPECT_NE(m.find("j.txt:1: no EndTime field"), std::string::npos) << m;
}

TEST(SchedulerTimes, sacct_column_named_twice_is_an_error) {
  auto m =
      sacct_error("JobID|Start|End|End|ExitCode\n7|2026-10-11T09:05:00|2026-10-11T09:06:26|2026-10-11T19:06:26|0:0\n");
  EXPECT_NE(m.find("s.txt:1: sacct header names the column 'End' twice"), std::string::npos) << m;
}

TEST(SchedulerTimes, sacct_date_that_does_not_exist_is_an_error_naming_it) {
  auto m = sacct_error("JobID|Start|End|ExitCode\n7|2026-02-30T09:05:00|2026-03-01T09:06:26|0:0\n");
  EXPECT_NE(m.find("s.txt:2: Start '2026-02-30T09:05:00' is not a date or time of day"), std::string::npos) << m;
  m = sacct_error("JobID|Start|End|ExitCode\n7|2026-10-11T09:05:00|2026-10-11T25:06:26|0:0\n");
  EXPECT_NE(m.find("s.txt:2: End '2026-10-11T25:06:26' is not a date or time of day"), std::string::npos) << m;
  // 2024 is a leap year: Feb 29 exists; 00:00 to 00:10 that day is 600 s.
  auto t = parse_sacct_times("JobID|Start|End\n7|2024-02-29T00:00:00|2024-02-29T00:10:00\n", "s.txt", "7");
  EXPECT_DOUBLE_EQ(t.finished_s - t.admitted_s, 600);
}

}  // namespace
}  // namespace openrecipes::evidence
