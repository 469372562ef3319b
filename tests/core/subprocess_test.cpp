// Tests for src/core/subprocess: argv goes to the child verbatim (no shell), stdin is fed, both streams and the
// exit status come back, a signal's death reads 128 + N, and a program that cannot start is an InputError.
#include "core/subprocess.h"

#include <signal.h>

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"

namespace openrecipes {
namespace {

TEST(Subprocess, arguments_reach_the_child_verbatim_with_no_shell_in_between) {
  const std::string hostile = "$(touch /tmp/pwned); `id` ; echo 'x' \"y\" | cat > z";
  ProcessResult r = run_process({"printf", "%s", hostile});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, hostile);
  EXPECT_EQ(r.err, "");
}

TEST(Subprocess, stdin_is_fed_and_stdout_and_stderr_come_back_apart_with_the_exit_status) {
  ProcessResult r = run_process({"/bin/sh", "-c", "cat; echo oops >&2; exit 7"}, {.input = "rows\n", .env = {}});
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.out, "rows\n");
  EXPECT_EQ(r.err, "oops\n");
}

TEST(Subprocess, megabytes_on_both_streams_and_stdin_do_not_deadlock) {
  const std::string big(3 << 20, 'a');  // over any pipe buffer (64 KiB)
  ProcessResult r = run_process({"/bin/sh", "-c", "cat; head -c 2000000 /dev/zero >&2"}, {.input = big, .env = {}});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.size(), big.size());
  EXPECT_EQ(r.err.size(), 2000000u);
}

TEST(Subprocess, a_child_that_exits_without_reading_its_stdin_does_not_kill_the_caller) {
  const std::string big(4 << 20, 'x');  // more than the pipe holds: the write meets a closed pipe (EPIPE)
  ProcessResult r = run_process({"/bin/sh", "-c", "exit 3"}, {.input = big, .env = {}});
  EXPECT_EQ(r.exit_code, 3);
}

TEST(Subprocess, env_entries_are_set_on_top_of_the_inherited_environment) {
  ProcessResult r = run_process({"/bin/sh", "-c", "printf '%s|%s' \"$RAY_DEDUP_LOGS\" \"$HOME\""},
                                {.input = {}, .env = {{"RAY_DEDUP_LOGS", "0"}, {"HOME", "/nowhere"}}});
  EXPECT_EQ(r.out, "0|/nowhere");
}

TEST(Subprocess, a_child_ended_by_a_signal_reads_128_plus_the_signal) {
  ProcessResult r = run_process({"/bin/sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
}

TEST(Subprocess, a_program_that_cannot_start_is_an_input_error_naming_it) {
  try {
    run_process({"openrecipes-no-such-program-xyz", "--help"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("openrecipes-no-such-program-xyz"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cannot start"));
  }
  EXPECT_THROW(run_process({}), InputError);
}

TEST(Subprocess, a_child_that_prints_past_the_limit_is_stopped_and_named) {
  // `yes` never ends on its own: only the limit stops it.
  ProcessOptions o;
  o.max_output_bytes = 1 << 20;
  try {
    run_process({"yes"}, o);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("yes: printed more than 1048576 bytes on stdout; stopped"));
  }
  o.max_output_bytes = 100;
  EXPECT_EQ(run_process({"/bin/sh", "-c", "printf %0100d 0"}, o).out, std::string(100, '0'));  // the limit itself
}

}  // namespace
}  // namespace openrecipes
