// Tests for src/core/atomic_output: guarded temp files disappear on destruction and on SIGINT, and are kept once
// released; several files are replaced all or none; one file is written atomically.
#include "core/atomic_output.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using openrecipes::testing::TempDir;

TEST(AtomicOutput, atomic_write_replaces_and_leaves_no_temp_file) {
  TempDir d;
  write_file_atomic(d / "out.json", "one");
  write_file_atomic(d / "out.json", "two");
  EXPECT_EQ(read_file(d / "out.json"), "two");
  int n = 0;
  for (auto& e : fs::directory_iterator(d.path())) (void)e, ++n;
  EXPECT_EQ(n, 1);
}

TEST(AtomicOutput, atomic_write_onto_a_folder_names_the_path_and_the_fix) {
  testing::TempDir d;
  std::filesystem::create_directories(d / "out.json" / "inner");
  try {
    write_file_atomic(d / "out.json", "x");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find((d / "out.json").string() + ": is a folder"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(fix: remove or rename that folder"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_directory(d / "out.json" / "inner"));
}

TEST(AtomicOutput, a_path_too_long_for_a_guard_is_an_input_error_naming_the_limit) {
  const std::string longest(TempFileGuard::kMaxPathBytes, 'a');
  try {
    write_file_atomic("/tmp/" + longest, "x");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("over the limit of 4095"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("choose a shorter output path"));
  }
}

TEST(AtomicOutput, a_guard_that_cannot_create_its_file_leaves_an_existing_one_alone) {
  TempDir d;
  const fs::path taken = d.write(".out.json.0badc0de.tmp", "someone else's");
  EXPECT_THROW(TempFileGuard(taken, "ours"), InputError);  // O_EXCL: the name is taken
  EXPECT_EQ(read_file(taken), "someone else's");
}

TEST(TempFileGuard, temp_names_sit_next_to_the_final_file_and_are_hidden) {
  auto p = temp_path_for("/some/dir/rows.parquet");
  EXPECT_EQ(p.parent_path(), fs::path("/some/dir"));
  const std::string name = p.filename().string();
  ASSERT_EQ(name.size(), std::string(".rows.parquet.").size() + 8 + 4);
  EXPECT_THAT(name, ::testing::StartsWith(".rows.parquet."));
  EXPECT_THAT(name, ::testing::EndsWith(".tmp"));
  EXPECT_EQ(name.substr(14, 8).find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(TempFileGuard, destroyed_guard_removes_its_file_and_released_guard_keeps_it) {
  TempDir tmp;
  auto a = tmp.write("a.tmp", "x");
  auto b = tmp.write("b.tmp", "y");
  {
    TempFileGuard ga(a), gb(b);
    gb.release();
  }
  EXPECT_FALSE(fs::exists(a));
  EXPECT_TRUE(fs::exists(b));
}

TEST(TempFileGuard, sigint_removes_guarded_files_then_ends_the_process_by_that_signal) {
  TempDir tmp;
  auto a = tmp.write("a.tmp", "x");
  auto kept = tmp.write("kept.tmp", "y");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    TempFileGuard g(a);
    raise(SIGINT);
    _exit(0);  // not reached: SIGINT's default action ends the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_FALSE(fs::exists(a));
  EXPECT_TRUE(fs::exists(kept));
}

// An output pair (r.parquet and its manifest) with the finished temp files that replace it.
struct OldAndNew {
  TempDir tmp;
  fs::path a = tmp.write("r.parquet", "old-a");
  fs::path b = tmp.write("r.manifest.json", "old-b");
  fs::path ta = tmp.write(".r.parquet.1.tmp", "new-a");
  fs::path tb = tmp.write(".r.manifest.json.1.tmp", "new-b");
};

TEST(CommitReplacements, both_files_replaced_together) {
  OldAndNew f;
  TempDir& tmp = f.tmp;
  const fs::path &a = f.a, &b = f.b, &ta = f.ta, &tb = f.tb;
  const Replacement pair[] = {{ta, a}, {tb, b}};
  commit_replacements(pair);
  EXPECT_EQ(read_file(a), "new-a");
  EXPECT_EQ(read_file(b), "new-b");
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 2);  // no backups left
}

TEST(CommitReplacements, a_folder_in_the_way_is_refused_before_anything_is_replaced) {
  TempDir tmp;
  auto a = tmp.write("r.parquet", "old-a");
  fs::create_directories(tmp / "r.manifest.json");
  auto ta = tmp.write(".r.parquet.1.tmp", "new-a");
  auto tb = tmp.write(".r.manifest.json.1.tmp", "new-b");
  const Replacement pair[] = {{ta, a}, {tb, tmp / "r.manifest.json"}};
  try {
    commit_replacements(pair);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr((tmp / "r.manifest.json").string() + ": is a folder"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("fix: remove or rename that folder"));
  }
  EXPECT_EQ(read_file(a), "old-a");
}

TEST(CommitReplacements, a_failed_second_rename_puts_the_first_file_back) {
  OldAndNew f;
  TempDir& tmp = f.tmp;
  const fs::path &a = f.a, &b = f.b, &ta = f.ta, &tb = f.tb;
  const Replacement pair[] = {{ta, a}, {tb, b}};
  // The second temp file vanishes after the checks, so its rename fails (ENOENT) after the first one succeeded.
  EXPECT_THROW(commit_replacements(pair, [&] { fs::remove(tb); }), InputError);
  EXPECT_EQ(read_file(a), "old-a");
  EXPECT_EQ(read_file(b), "old-b");
  // A target that did not exist before is removed again.
  auto c = tmp / "c.parquet";
  auto tc = tmp.write(".c.parquet.1.tmp", "new-c");
  auto td = tmp.write(".d.1.tmp", "new-d");
  const Replacement fresh[] = {{tc, c}, {td, tmp / "d"}};
  EXPECT_THROW(commit_replacements(fresh, [&] { fs::remove(td); }), InputError);
  EXPECT_FALSE(fs::exists(c));
}

TEST(CommitReplacements, sigterm_between_the_renames_waits_until_both_are_done) {
  OldAndNew f;
  const fs::path &a = f.a, &b = f.b, &ta = f.ta, &tb = f.tb;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    TempFileGuard ga(ta), gb(tb);
    const Replacement pair[] = {{ta, a}, {tb, b}};
    commit_replacements(pair, [] { kill(getpid(), SIGTERM); });
    _exit(0);  // not reached: the held SIGTERM ends the process once both renames are done
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(read_file(a), "new-a");
  EXPECT_EQ(read_file(b), "new-b");
}

// Runs in a fresh process (started by the test below) so that the guard installs its handlers after SIGHUP was
// set to be ignored, as nohup does.
TEST(TempFileGuardChild, DISABLED_ignored_sighup_stays_ignored) {
  const char* file = std::getenv("OPENRECIPES_GUARD_TEST_FILE");
  ASSERT_NE(file, nullptr);
  signal(SIGHUP, SIG_IGN);
  TempFileGuard g(file);
  raise(SIGHUP);
  EXPECT_TRUE(fs::exists(file));
  g.release();
}

TEST(TempFileGuard, sighup_ignored_by_the_process_keeps_files_and_the_run_going) {
  TempDir tmp;
  auto a = tmp.write("a.tmp", "x");
  setenv("OPENRECIPES_GUARD_TEST_FILE", a.c_str(), 1);
  auto r =
      openrecipes::testing::run_process({fs::read_symlink("/proc/self/exe").string(), "--gtest_also_run_disabled_tests",
                                         "--gtest_filter=TempFileGuardChild.*"});
  unsetenv("OPENRECIPES_GUARD_TEST_FILE");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("[  PASSED  ] 1 test"));
  EXPECT_TRUE(fs::exists(a));
}

}  // namespace
}  // namespace openrecipes
