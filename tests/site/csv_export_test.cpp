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
  EXPECT_EQ(rows[0].size(), 31u);
  const auto& pair = j["pairs"][0];
  const std::vector<const nlohmann::json*> entries = {&pair["ranked"][0], &pair["ranked"][1], &pair["unranked"][0]};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = *entries[i];
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), 31u);
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
    // The score's 95% interval (schema 3), appended after reasons.
    EXPECT_EQ(std::stod(row[28].get<std::string>()), e["tokens_per_s_per_gpu_interval"][0].get<double>());
    EXPECT_EQ(std::stod(row[29].get<std::string>()), e["tokens_per_s_per_gpu_interval"][1].get<double>());
    EXPECT_LT(std::stod(row[28].get<std::string>()), std::stod(row[7].get<std::string>()));
    EXPECT_GT(std::stod(row[29].get<std::string>()), std::stod(row[7].get<std::string>()));
  }
  EXPECT_EQ(rows[0][28], "tokens_per_s_per_gpu_low");
  EXPECT_EQ(rows[0][29], "tokens_per_s_per_gpu_high");
  EXPECT_EQ(rows[0][30], "within_noise_of_above");
  EXPECT_EQ(rows[1][30], "false");  // rank 1
  EXPECT_EQ(rows[2][30], "false");  // ref (12,395.4 ±4.0%) is far below mbs2 (23,232.7 ±5.4%)
  EXPECT_EQ(rows[3][30], "");       // unranked
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

TEST(CsvExport, an_unbounded_interval_reads_inf_and_within_noise_is_true_or_false_for_ranked_recipes_only) {
  const auto j = nlohmann::json::parse(R"({"pairs": [{"model": "m", "gpu": "H200", "workload": {"key": "w"},
    "non_standard_workload": true,
    "ranked": [{"id": "a", "verified": true, "rank": 1, "tokens_per_s_per_gpu": 100.5,
                "tokens_per_s_per_gpu_interval": [90.25, 111], "within_noise_of_above": false},
               {"id": "b", "verified": true, "rank": 2, "tokens_per_s_per_gpu": 99,
                "tokens_per_s_per_gpu_interval": [20, null], "within_noise_of_above": true}],
    "unranked": [{"id": "c", "verified": false}]}]})");
  const auto rows = python_csv_rows(recipes_csv(j));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1][28], "90.25");
  EXPECT_EQ(rows[1][29], "111");
  EXPECT_EQ(rows[1][30], "false");
  EXPECT_EQ(rows[2][28], "20");
  EXPECT_EQ(rows[2][29], "inf");  // no upper bound (JSON null)
  EXPECT_EQ(rows[2][30], "true");
  EXPECT_EQ(rows[3][28], "");  // not measured
  EXPECT_EQ(rows[3][29], "");
  EXPECT_EQ(rows[3][30], "");
}

}  // namespace
}  // namespace openrecipes::site
