// The README's facts held to the program (issue 44): what it says of the bundled runs is counted from the registry and
// read from the tool's own output, not from prose that drifts.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/files.h"
#include "core/text.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;

std::string readme() { return read_file(testing::source_dir() / "README.md"); }

// The bundled H200 runs: one recipe folder each under registry/recipes/qwen3-0.6b/H200/.
std::vector<fs::path> bundled_runs() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(testing::source_dir() / "registry/recipes/qwen3-0.6b/H200"))
    if (e.is_directory()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ReadmeFacts, the_count_of_bundled_runs_is_the_registrys) {
  const std::vector<std::string> words = {"zero", "one",   "two",   "three", "four", "five",
                                          "six",  "seven", "eight", "nine",  "ten"};
  const auto runs = bundled_runs();
  ASSERT_LT(runs.size(), words.size());
  EXPECT_NE(readme().find("from the " + words[runs.size()] + " real H200 runs in `registry/recipes/qwen3-0.6b/H200/`"),
            std::string::npos)
      << runs.size() << " runs";
}

TEST(ReadmeFacts, the_planners_worst_error_on_the_bundled_runs_is_the_tools) {
  // `plan --log` on every bundled run's log: the largest |error| of its predicted peak, as the tool prints it.
  std::vector<std::string> args = {"plan", "--log"};
  for (const auto& r : bundled_runs()) args.push_back((r / "evidence/train.log").string());
  const auto out = testing::run_cli(args);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  double worst = 0;
  const std::regex row(R"(^\S+\s+\d+\s+\d+\s+([+-][0-9.]+)%)");
  std::size_t rows = 0;
  for (const auto& line : lines_of(out.out)) {
    std::smatch m;
    const std::string s(line);
    if (std::regex_search(s, m, row)) {
      worst = std::max(worst, std::abs(std::stod(m[1])));
      ++rows;
    }
  }
  EXPECT_EQ(rows, bundled_runs().size());
  std::smatch m;
  const std::string text = readme();
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(evidence/train\.log` \(all within\s+([0-9.]+)%\))")));
  EXPECT_DOUBLE_EQ(std::stod(m[1]), worst);
}

}  // namespace
}  // namespace openrecipes
