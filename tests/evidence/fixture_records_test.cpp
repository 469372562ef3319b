// Each real fixture log's parsed step records, pinned as data: tests/evidence/records/<path under
// ../shared/fixtures>.records.jsonl holds one JSON object per record (step, steps covered, time, rows, tokens, loss,
// learning rate, grad norm, skipped, nan, line), in file order, plus a first line with the log's own facts (format,
// step-time field, announced run length). The runner parses the fixture with read_step_log (interval from the gaps
// between its lines) and compares byte for byte. A new fixture log is a new .records.jsonl file; with
// OPENRECIPES_WRITE_RECORDS=1 the runner writes the files for the logs listed here instead of comparing.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "evidence/step_log.h"
#include "testing/param_name.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {
namespace fs = std::filesystem;

fs::path records_dir() { return testing::source_dir() / "tests" / "evidence" / "records"; }

template <typename T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// The records of `log` as the expected-values file holds them.
std::string records_text(const StepLog& log) {
  std::string out = nlohmann::ordered_json{{"format", log.format},
                                           {"time_field", log.time_field},
                                           {"train_iters", or_null(log.train_iters)},
                                           {"records", log.records.size()}}
                        .dump() +
                    "\n";
  for (const auto& r : log.records)
    out += nlohmann::ordered_json{{"first_step", r.first_step},
                                  {"steps", r.steps},
                                  {"time_s", or_null(r.time_s)},
                                  {"rows", or_null(r.rows)},
                                  {"tokens", or_null(r.tokens)},
                                  {"loss", or_null(r.loss)},
                                  {"learning_rate", or_null(r.learning_rate)},
                                  {"grad_norm", or_null(r.grad_norm)},
                                  {"skipped", r.skipped},
                                  {"nan", r.nan},
                                  {"line", r.line}}
               .dump() +
           "\n";
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixture logs pinned here, as paths under ../shared/fixtures (each Megatron-LM format).
const std::vector<std::string> kLogs = {"logs/mdk-gpt3-7b-fp16-1node.log",  "logs/seo-dense-0.2b-a100.log",
                                        "logs/seo-moe64-top1-ep4-a100.log", "runs/megatron-h200/ref.log",
                                        "runs/megatron-h200/mbs2.log",      "runs/megatron-h200/lr10.log"};

class FixtureRecords : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureRecords, the_parsed_records_equal_the_expected_values_file) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const std::string rel = GetParam();
  const fs::path expected = records_dir() / (rel + ".records.jsonl");
  const std::string got = records_text(read_step_log(testing::fixtures_dir() / rel, "megatron", std::nullopt, rel));
  if (const char* w = std::getenv("OPENRECIPES_WRITE_RECORDS"); w && std::string(w) == "1") {
    fs::create_directories(expected.parent_path());
    std::ofstream(expected, std::ios::binary) << got;
    GTEST_SKIP() << "wrote " << expected;
  }
  ASSERT_TRUE(fs::exists(expected)) << expected << " is missing (OPENRECIPES_WRITE_RECORDS=1 writes it)";
  EXPECT_EQ(got, slurp(expected));
}

INSTANTIATE_TEST_SUITE_P(Logs, FixtureRecords, ::testing::ValuesIn(kLogs), testing::param_name);

TEST(FixtureRecords, every_expected_values_file_belongs_to_a_pinned_log) {
  for (const auto& e : fs::recursive_directory_iterator(records_dir())) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), records_dir()).string();
    ASSERT_TRUE(rel.size() > 14 && rel.substr(rel.size() - 14) == ".records.jsonl") << rel;
    rel.resize(rel.size() - 14);
    EXPECT_NE(std::find(kLogs.begin(), kLogs.end(), rel), kLogs.end()) << rel << " is not in kLogs";
  }
}

}  // namespace
}  // namespace openrecipes::evidence
