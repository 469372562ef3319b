// CLI transcripts as data (DuckDB's sqllogictest idea): each folder of tests/cli/transcripts/ is one run of the
// `openrecipes` binary, checked byte for byte. A case folder holds:
//   args       one argument per line; $SOURCE is the checkout, $FIXTURES ../shared/fixtures (the case is skipped
//              when the fixtures are missing), $CASE the case's own folder (for inputs it carries)
//   stdout     the exact standard output expected ($SOURCE and $FIXTURES stand for those paths here too)
//   stderr     the exact standard error expected (likewise)
//   exit_code  the exit status expected (0 ok, 1 a check failed, 2 bad input, 3 internal error)
// The README's `make run` block is pinned too: it must equal the build_bundled_registry case's stdout, so the
// manual cannot drift from the program. A new case is a new folder.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/text.h"
#include "testing/param_name.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;

fs::path transcripts() { return testing::source_dir() / "tests" / "cli" / "transcripts"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) ADD_FAILURE() << "missing " << p;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces every `from` in `s` by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t i = 0; (i = s.find(from, i)) != std::string::npos; i += to.size()) s.replace(i, from.size(), to);
  return s;
}

class Transcript : public ::testing::TestWithParam<std::string> {};

TEST_P(Transcript, stdout_stderr_and_exit_code_are_byte_identical_to_the_case_files) {
  const fs::path dir = transcripts() / GetParam();
  const std::string args_text = slurp(dir / "args");
  if (args_text.find("$FIXTURES") != std::string::npos) OPENRECIPES_REQUIRE_FIXTURES();
  auto expand = [&](std::string s) {
    s = replace_all(std::move(s), "$CASE", dir.string());
    s = replace_all(std::move(s), "$SOURCE", testing::source_dir().string());
    return replace_all(std::move(s), "$FIXTURES", testing::fixtures_dir().string());
  };
  std::vector<std::string> args;
  for (auto line : lines_of(args_text)) args.push_back(expand(std::string(line)));
  auto r = testing::run_cli(args);
  EXPECT_EQ(r.exit_code, std::stoi(slurp(dir / "exit_code"))) << r.err;
  EXPECT_EQ(r.out, expand(slurp(dir / "stdout")));
  EXPECT_EQ(r.err, expand(slurp(dir / "stderr")));
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  std::error_code ec;  // a missing folder gives no cases, and the README test below fails on it
  for (const auto& e : fs::directory_iterator(transcripts(), ec))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Cases, Transcript, ::testing::ValuesIn(case_names()), testing::param_name);

// The fenced block that follows the README's "`make run` prints" line, with its final newline.
std::string readme_make_run_block() {
  const std::string readme = slurp(testing::source_dir() / "README.md");
  const std::size_t intro = readme.find("`make run` prints");
  if (intro == std::string::npos) return "(no \"`make run` prints\" line in README.md)";
  const std::size_t open = readme.find("```\n", intro);
  const std::size_t close = readme.find("\n```\n", open + 4);
  if (open == std::string::npos || close == std::string::npos) return "(no fenced block after it)";
  return readme.substr(open + 4, close + 1 - (open + 4));
}

TEST(ReadmeTranscript, the_make_run_block_of_the_readme_is_the_main_jobs_stdout) {
  EXPECT_EQ(readme_make_run_block(), slurp(transcripts() / "build_bundled_registry" / "stdout"));
  EXPECT_EQ(slurp(transcripts() / "build_bundled_registry" / "args"), "build\n$SOURCE/registry\n");
}

}  // namespace
}  // namespace openrecipes
