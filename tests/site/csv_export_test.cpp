// Tests for src/site/csv_export: RFC 4180 quoting and OWASP's CSV-injection rule, worked out by hand; and the CSV of
// the bundled registry's leaderboard read back by Python's csv module (the reference reader), cell for cell against
// the JSON the build computed, with a stranger's formula in a recipe field.
#include "site/csv_export.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"
#include "site/leaderboard_report.h"
#include "testing/support.h"

namespace openrecipes::site {
namespace {
using registry::scratch::build;
using registry::scratch::Scratch;

TEST(CsvExport, text_cells_are_quoted_and_a_formula_start_is_neutralised) {
  EXPECT_EQ(csv_text_cell("mbs2"), "\"mbs2\"");
  EXPECT_EQ(csv_text_cell(""), "\"\"");
  EXPECT_EQ(csv_text_cell("a,b\nc"), "\"a,b\nc\"");  // commas and newlines stay inside the quotes
  EXPECT_EQ(csv_text_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_text_cell("=1+1"), "\"'=1+1\"");
  EXPECT_EQ(csv_text_cell("+49 30"), "\"'+49 30\"");
  EXPECT_EQ(csv_text_cell("-2"), "\"'-2\"");
  EXPECT_EQ(csv_text_cell("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(csv_text_cell("\tx"), "\"'\tx\"");
  EXPECT_EQ(csv_text_cell("a=b"), "\"a=b\"");  // only the first character counts
  EXPECT_EQ(csv_text_cell("<script>alert(1)</script>"), "\"<script>alert(1)</script>\"");
}

TEST(CsvExport, number_cells_are_shortest_round_trip_and_empty_when_absent) {
  EXPECT_EQ(csv_number_cell(nlohmann::json(23232.686090261104)), "23232.686090261104");
  EXPECT_EQ(csv_number_cell(nlohmann::json(2)), "2");
  EXPECT_EQ(csv_number_cell(nlohmann::json(-0.5)), "-0.5");  // our own numbers are not text: no quote, no '
  EXPECT_EQ(csv_number_cell(nlohmann::json()), "");
  EXPECT_EQ(csv_number_cell(nlohmann::json("12")), "");
}

// `csv` parsed by Python's csv module: one list of cells per row.
nlohmann::json python_csv_rows(const std::string& csv) {
  testing::TempDir d;
  auto path = d.write("recipes.csv", csv);
  auto r = testing::run_process({testing::oracle_python(), "-c",
                                 "import csv, json, sys\n"
                                 "print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))",
                                 path.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CsvExport, the_bundled_leaderboard_reads_back_cell_for_cell_and_a_strangers_formula_stays_text) {
  Scratch s;
  s.replace(s.recipe("lr10") / "recipe.yaml", "  github: openrecipes\n",
            "  name: \"=HYPERLINK(\\\"https://evil.example\\\",\\\"x\\\")\"\n  link: https://example.com\n");
  auto b = build(s.root);
  const auto j = leaderboard_json(b.reg, registry::build_pairs(b.reg, b.results, false));
  const auto rows = python_csv_rows(recipes_csv(j));
  ASSERT_EQ(rows.size(), 4u);  // header + mbs2, ref (ranked) + lr10 (unranked)
  EXPECT_EQ(rows[0][0], "id");
  EXPECT_EQ(rows[0].size(), 28u);
  const auto& pair = j["pairs"][0];
  const std::vector<const nlohmann::json*> entries = {&pair["ranked"][0], &pair["ranked"][1], &pair["unranked"][0]};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = *entries[i];
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), 28u);
    EXPECT_EQ(row[0], e["id"]);
    EXPECT_EQ(row[1], "qwen3-0.6b");
    EXPECT_EQ(row[2], "H200");
    EXPECT_EQ(row[4], "true");  // the mock-data workload is non-standard
    EXPECT_EQ(std::stod(row[7].get<std::string>()), e["tokens_per_s_per_gpu"].get<double>());
    EXPECT_EQ(std::stod(row[8].get<std::string>()), e["cv"].get<double>());
    // The layout (schema 2): tp, pp, cp, ep, etp, dp, vpp, micro_batch after gpus.
    for (const auto& [k, col] : std::vector<std::pair<const char*, int>>{
             {"tp", 10}, {"pp", 11}, {"cp", 12}, {"ep", 13}, {"etp", 14}, {"dp", 15}, {"micro_batch", 17}})
      EXPECT_EQ(row[col], std::to_string(e["layout"][k].get<std::int64_t>())) << k;
    EXPECT_EQ(row[16], "");  // no vpp
    EXPECT_EQ(std::stod(row[18].get<std::string>()), e["mfu"].get<double>());
    EXPECT_EQ(std::stod(row[19].get<std::string>()), e["dollars_per_million_tokens"].get<double>());
    EXPECT_EQ(std::stod(row[20].get<std::string>()), e["gpu_hours"].get<double>());
  }
  EXPECT_EQ(rows[0][10], "tp");
  EXPECT_EQ(rows[1][17], "2");  // mbs2: micro-batch 2
  EXPECT_EQ(rows[1][5], "verified");
  EXPECT_EQ(rows[1][6], "1");
  EXPECT_EQ(rows[2][6], "2");
  EXPECT_EQ(rows[2][25], "reference");
  EXPECT_EQ(rows[1][24], "eligible");
  EXPECT_EQ(rows[1][25], "pass");
  EXPECT_EQ(rows[3][5], "unranked");
  EXPECT_EQ(rows[3][6], "");
  EXPECT_EQ(rows[3][21], "'=HYPERLINK(\"https://evil.example\",\"x\")");  // text, never a formula
  EXPECT_EQ(rows[3][24], "ineligible");
  EXPECT_EQ(rows[3][25], "fail");
  EXPECT_EQ(rows[0][26], "evidence");
  EXPECT_EQ(rows[1][26], "LAVDT-");  // the bundled runs: log, dump, versions, device, times; no launch.json
  EXPECT_THAT(rows[3][27].get<std::string>(), ::testing::HasSubstr("configuration check: ineligible: lr changed"));
}

}  // namespace
}  // namespace openrecipes::site
