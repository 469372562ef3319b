// Test support: where the shared fixtures are, running the CLI and the reference-implementation oracles as
// child processes (argument vectors, no shell), scratch folders removed after each test, and the message of an
// InputError a call throws.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/subprocess.h"

namespace openrecipes::testing {

/// ../shared/fixtures next to the checkout (or $OPENRECIPES_FIXTURES). Empty path when missing.
std::filesystem::path fixtures_dir();

/// True when the environment says CI=true (what CI services set): a test that needs ../shared/fixtures fails then
/// instead of skipping.
bool on_ci();

/// The project's source tree (for registry/, tests/oracles/, tests/golden/).
std::filesystem::path source_dir();

using openrecipes::ProcessResult;

/// Runs `argv` through core's run_process (no shell; argv[0] looked up in PATH when it has no '/'), feeding
/// `input` on stdin; captures both streams. Fails the test (and returns exit_code -1) when the program cannot
/// start.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input = {});

/// The `openrecipes` binary under test: $OPENRECIPES_BIN, else the build folder's binary.
std::string cli_binary();

/// Runs the `openrecipes` binary under test (cli_binary) with `args`.
ProcessResult run_cli(const std::vector<std::string>& args, const std::string& input = {});

/// /usr/bin/python3 with Debian's numpy and jinja2 (the oracles); node_modules folder with tokenizers@0.23.2.
std::string oracle_python();
std::filesystem::path oracle_node_modules();

/// The message of the InputError that `f` throws: its what(), "where: what (fix: fix)", so the fix is there too.
/// When `f` throws nothing, fails the test at `file`:`line` (the caller's: __builtin_FILE/LINE, which GCC and
/// clang 14 have; clang 14 has no std::source_location) and returns "". Any other exception passes
/// through and fails the test as gtest reports it: a bug is not bad input (core/error.h). A test that needs `f` to
/// succeed says EXPECT_NO_THROW.
std::string message_of(const std::function<void()>& f, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE());

/// The names of the entries of folder `dir` (files and folders, hidden ones too), sorted.
std::vector<std::string> file_names_in(const std::filesystem::path& dir);

/// A fresh empty folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  /// Writes `content` to `name` (creating folders) and returns the full path.
  std::filesystem::path write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace openrecipes::testing

/// Skips the current test when ../shared/fixtures is not there (the fixtures are not part of the repo); fails it
/// instead under CI=true, where a skip would hide a lost check (testing::on_ci).
#define OPENRECIPES_REQUIRE_FIXTURES()                                                                         \
  do {                                                                                                         \
    if (::openrecipes::testing::fixtures_dir().empty()) {                                                      \
      if (::openrecipes::testing::on_ci()) GTEST_FAIL() << "needs ../shared/fixtures, which CI=true requires"; \
      GTEST_SKIP() << "needs ../shared/fixtures (set OPENRECIPES_FIXTURES to point elsewhere)";                \
    }                                                                                                          \
  } while (0)

/// As OPENRECIPES_REQUIRE_FIXTURES, for one file of the fixtures (a std::filesystem::path).
#define OPENRECIPES_REQUIRE_FIXTURE_FILE(path)                                                                    \
  do {                                                                                                            \
    if (!std::filesystem::exists(path)) {                                                                         \
      if (::openrecipes::testing::on_ci()) GTEST_FAIL() << "needs " << (path) << ", which CI=true requires";      \
      GTEST_SKIP() << "needs " << (path) << " (../shared/fixtures; set OPENRECIPES_FIXTURES to point elsewhere)"; \
    }                                                                                                             \
  } while (0)
