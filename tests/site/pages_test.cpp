// Tests for the site's pages (site/pages.h and each page's view file): the views hold the build's numbers in the site's
// formats with their exact values, the GPU-type comparison says so when there is one GPU type and draws both charts
// when there are two, and every page of a board is written.
#include "site/pages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"
#include "site/leaderboard_report.h"

namespace openrecipes::site {
namespace {
using registry::scratch::build;
using registry::scratch::Scratch;

// The rendered page at `path` of `board`'s site ("" when it has none).
std::string page_of(const nlohmann::json& board, const std::string& path) {
  for (const auto& p : site_pages(board))
    if (p.path == path) return p.bytes;
  return "";
}

nlohmann::json board_of(const std::filesystem::path& root, bool include_unverified = false) {
  auto b = build(root);
  return leaderboard_json(b.reg, registry::build_pairs(b.reg, b.results, include_unverified));
}

TEST(Pages, model_view_ranks_with_the_builds_numbers_and_says_one_gpu_type_is_no_comparison) {
  Scratch s;
  const auto board = board_of(s.root);
  const auto v = model_view(board, "qwen3-0.6b");
  ASSERT_EQ(v["pairs"].size(), 1u);
  const auto& ranked = v["pairs"][0]["ranked"];
  ASSERT_EQ(ranked.size(), 2u);
  const auto& best = board["pairs"][0]["ranked"][0];
  EXPECT_EQ(ranked[0]["id"], "qwen3-0.6b/H200/mbs2");
  EXPECT_EQ(ranked[0]["rank"], "1");
  // The README's row: 23,232.7 tokens/s/GPU, CV 9.4%, MFU 8.4%, $0.0946, 0.0241 GPU-h.
  EXPECT_EQ(ranked[0]["tokens_per_s_per_gpu"]["text"], "23,232.7");
  EXPECT_EQ(std::stod(ranked[0]["tokens_per_s_per_gpu"]["value"].get<std::string>()),
            best["tokens_per_s_per_gpu"].get<double>());
  EXPECT_EQ(ranked[0]["cv"]["text"], "9.4%");
  EXPECT_EQ(ranked[0]["mfu"]["text"], "8.4%");
  EXPECT_EQ(ranked[0]["dollars_per_million_tokens"]["text"], "$0.0946");
  EXPECT_EQ(ranked[0]["gpu_hours"]["text"], "0.0241");
  EXPECT_EQ(ranked[0]["convergence"], "pass (r 1.0000)");
  EXPECT_EQ(ranked[1]["configuration"], "reference");
  EXPECT_EQ(v["n"], "595,984,384");
  ASSERT_EQ(v["comparisons"].size(), 1u);
  EXPECT_EQ(v["comparisons"][0]["single"], true);
  EXPECT_EQ(v["comparisons"][0]["single_gpu"], "H200");
  EXPECT_FALSE(v["comparisons"][0].contains("speed_chart"));
}

TEST(Pages, two_gpu_types_on_one_workload_are_compared_in_two_charts_and_a_table) {
  Scratch s;
  // The same three runs filed under H100 too: the H100 pair prices them at H100's rate ($6.88 vs $7.912).
  std::filesystem::create_directories(s.root / "recipes/qwen3-0.6b/H100");
  for (const char* name : {"ref", "mbs2", "lr10"}) {
    std::filesystem::copy(s.recipe(name), s.root / "recipes/qwen3-0.6b/H100" / name,
                          std::filesystem::copy_options::recursive);
    s.replace(s.root / "recipes/qwen3-0.6b/H100" / name / "recipe.yaml", "gpu: H200", "gpu: H100");
    // ... as runs on H100s: their evidence names the device (SPEC §5: the GPU type is checked against it).
    s.replace(s.root / "recipes/qwen3-0.6b/H100" / name / "evidence/env.txt", "NVIDIA H200          ",
              "NVIDIA H100 80GB HBM3");
    // ... each its own run: a step log recording another recipe's steps is one run published twice (not ranked).
    s.another_run_at(s.root / "recipes/qwen3-0.6b/H100" / name / "evidence/train.log");
  }
  const auto board = board_of(s.root);
  const auto v = model_view(board, "qwen3-0.6b");
  ASSERT_EQ(v["comparisons"].size(), 1u);
  const auto& cmp = v["comparisons"][0];
  EXPECT_EQ(cmp["comparable"], true);
  ASSERT_EQ(cmp["rows"].size(), 2u);
  EXPECT_EQ(cmp["rows"][0]["gpu"], "H100");
  EXPECT_EQ(cmp["rows"][1]["gpu"], "H200");
  // $/1M = rate / (score × 3600) × 1e6: 6.88 / (23,232.69 × 3600) × 1e6 = $0.0823 on H100.
  EXPECT_EQ(cmp["rows"][0]["dollars_per_million_tokens"]["text"], "$0.0823");
  EXPECT_EQ(cmp["rows"][1]["dollars_per_million_tokens"]["text"], "$0.0946");
  EXPECT_NE(cmp["speed_chart"].get<std::string>().find(">23,232.7</text>"), std::string::npos);
  EXPECT_NE(cmp["cost_chart"].get<std::string>().find(">$0.0823</text>"), std::string::npos);
}

TEST(Pages, recipe_view_holds_the_diff_the_arms_the_window_and_the_evidence_links) {
  Scratch s;
  const auto board = board_of(s.root, true);
  const auto& pair = board["pairs"][0];
  const auto v = recipe_view(pair, pair["ranked"][0]);
  EXPECT_EQ(v["window"], "steps 5–19 (15 steps)");
  EXPECT_EQ(v["configuration_check"]["verdict"], "eligible");
  EXPECT_EQ(v["configuration_check"]["changes"][0]["argument"], "eval_micro_batch_size");
  EXPECT_EQ(v["convergence_check"]["verdict"], "pass");
  EXPECT_EQ(v["steps"].size(), 20u);
  EXPECT_EQ(v["steps"][5]["in_window"], true);
  EXPECT_EQ(v["steps"][4]["in_window"], false);
  EXPECT_EQ(v["tokens_per_step"], "65,536");  // 32 rows × 2,048 tokens
  EXPECT_EQ(v["evidence"][0]["href"], "../../../recipes/qwen3-0.6b/H200/mbs2/evidence/train.log");
  EXPECT_EQ(v["reproduce"]["variables"][0]["name"], "$MEGATRON_LM");
  EXPECT_EQ(v["reproduce"]["recipe_folder"], "registry/recipes/qwen3-0.6b/H200/mbs2");
  EXPECT_EQ(v["reproduce"]["has_recipe_yaml"], false);  // the site writer adds the file's text
  // mbs2 trains on Megatron-LM's --mock-data: its command reads no $SFT_DATA, so there are no rows to make.
  EXPECT_EQ(v["reproduce"]["prepare"], nlohmann::json::array());
  EXPECT_EQ(v["reproduce"]["has_prepare"], false);
  EXPECT_NE(v["loss_chart"].get<std::string>().find("reference arm"), std::string::npos);
  EXPECT_NE(v["step_chart"].get<std::string>().find("measured window 5–19"), std::string::npos);
  // lr10 is not verified: with --include-unverified its page lists every reason.
  const auto u = recipe_view(pair, pair["unranked"][0]);
  EXPECT_EQ(u["has_reasons"], true);
  EXPECT_EQ(u["reasons"].size(), 2u);
  // Each reason is a value the page renders in parts: stage, sentence, fix.
  EXPECT_EQ(u["reasons"][0]["stage"], "configuration check");
  EXPECT_EQ(u["reasons"][0]["rule"], "configuration.ineligible");
  EXPECT_EQ(u["reasons"][0]["message"].get<std::string>().rfind("ineligible: lr changed from 1e-05 to 0.0001", 0), 0u);
  // What the evidence covers, one line per piece: the bundled runs have all but the launched command.
  EXPECT_EQ(v["evidence_code"], "LAVDT-");
  ASSERT_EQ(v["evidence_items"].size(), 6u);
  EXPECT_EQ(v["evidence_items"][3]["name"], "device");
  EXPECT_EQ(v["evidence_items"][3]["present"], true);
  EXPECT_EQ(v["evidence_items"][3]["text"], "the GPU the run ran on: NVIDIA H200");
  EXPECT_EQ(v["evidence_items"][5]["present"], false);
}

// The Reproduce box of a recipe that trained on exported rows: the data-prep commands with the recipe's L and rows,
// the full rows_sha256, the run line with every variable it needs, and $SFT_DATA as the export prefix.
TEST(Pages, the_reproduce_box_gives_the_rows_commands_the_run_line_and_what_each_variable_points_at) {
  Scratch s({"tulu3-ref"});
  const auto board = board_of(s.root);
  const auto& pair = board["pairs"][0];
  const auto v = recipe_view(pair, pair["ranked"][0]);
  const auto& r = v["reproduce"];
  const std::string sha = "30eb27066ab49cc9eeef9edb3862a39c6d98649683cbfc9cfe28e19dbef4aca8";  // recipe.yaml's rows
  EXPECT_EQ(r["recipe_folder"], "registry/recipes/qwen3-0.6b/H200/tulu3-ref");
  EXPECT_EQ(r["rows_sha256"], sha);
  EXPECT_EQ(r["rows_count"], "81");
  // Each command a line a flag, continued with " \" as a shell reads it (so no window breaks one inside a flag).
  ASSERT_EQ(r["prepare"].size(), 4u);
  EXPECT_EQ(r["prepare"][0], "mkdir -p rows");
  EXPECT_EQ(r["prepare"][1],
            "openrecipes rows build \\\n  --source SOURCE_FILES \\\n  --tokenizer TOKENIZER_DIR \\\n  --row-length 512 "
            "\\\n  --rows 81 \\\n  --date 2026-01-01 \\\n  -o rows/rows.parquet");
  EXPECT_EQ(r["prepare"][2], "openrecipes rows verify rows/rows.parquet \\\n  --rows 81 \\\n  --sha256 " + sha);
  EXPECT_EQ(r["prepare"][3],
            "openrecipes rows export rows/rows.parquet \\\n  --format megatron \\\n  -o rows/megatron");
  EXPECT_EQ(r["run"],
            "openrecipes run registry/recipes/qwen3-0.6b/H200/tulu3-ref \\\n  --launcher local \\\n  --var "
            "MEGATRON_LM=Megatron-LM \\\n  --var SFT_DATA=rows/megatron \\\n  -o runs/tulu3-ref");
  ASSERT_EQ(r["variables"].size(), 2u);
  EXPECT_EQ(r["variables"][1]["name"], "$SFT_DATA");
  EXPECT_NE(
      r["variables"][1]["points_at"].get<std::string>().find("reads PREFIX.bin and PREFIX.idx (not rows.parquet)"),
      std::string::npos);
  EXPECT_NE(r["variables"][0]["points_at"].get<std::string>().find("d98e8a64ddf34856e74b24714e3bedb2f5a39553"),
            std::string::npos);
  const std::string html = page_of(board, "recipes/qwen3-0.6b/H200/tulu3-ref.html");
  EXPECT_NE(html.find("<section id=\"reproduce\""), std::string::npos);
  EXPECT_NE(html.find(sha), std::string::npos);
}

// The index lists every verified recipe in rank order with what the filters read, marks each pair's best, and has an
// empty state for a model with no standard-workload recipe; the changelog and build time come from the board's site.
TEST(Pages, the_index_lists_each_verified_recipe_for_the_filters_with_empty_states_and_the_changelog) {
  Scratch s({"ref", "mbs2", "lr10", "tulu3-ref", "tulu3-mbs16"});
  auto board = board_of(s.root);
  board["site"] = {{"built_at", "2026-12-03 18:00 UTC"},
                   {"changes",
                    {{{"built_at", "2026-12-03 18:00 UTC"},
                      {"first", false},
                      {"new", {"qwen3-0.6b/H200/tulu3-mbs16"}},
                      {"changed", nlohmann::json::array()},
                      {"removed", {"qwen3-0.6b/H200/gone"}}}}}};
  const auto v = index_view(board);
  std::vector<std::string> ids, best;
  for (const auto& r : v["rows"]) {
    ids.push_back(r["id"]);
    if (r["best"].get<bool>()) best.push_back(r["id"]);
    EXPECT_EQ(r["standard"], "0");
    EXPECT_EQ(r["model_id"], "qwen3-0.6b");
  }
  // lr10 is not verified: not listed. Pairs in the board's order, each in rank order.
  EXPECT_EQ(ids, (std::vector<std::string>{"qwen3-0.6b/H200/mbs2", "qwen3-0.6b/H200/ref", "qwen3-0.6b/H200/tulu3-mbs16",
                                           "qwen3-0.6b/H200/tulu3-ref"}));
  EXPECT_EQ(best, (std::vector<std::string>{"qwen3-0.6b/H200/mbs2", "qwen3-0.6b/H200/tulu3-mbs16"}));
  ASSERT_EQ(v["empties"].size(), 1u);
  EXPECT_EQ(v["empties"][0]["no_standard"], true);  // both workloads are non-standard
  EXPECT_EQ(v["gpu_counts"], nlohmann::json::array({"1"}));
  ASSERT_EQ(v["changes"].size(), 1u);
  EXPECT_EQ(v["changes"][0]["new"][0]["href"], "recipes/qwen3-0.6b/H200/tulu3-mbs16.html");
  EXPECT_EQ(v["changes"][0]["removed"][0]["href"], false);  // a removed recipe has no page to link
  const std::string html = page_of(board, "index.html");
  EXPECT_NE(html.find("data-model=\"qwen3-0.6b\" data-gpu=\"H200\" data-gpus=\"1\" data-framework=\"megatron-lm\""),
            std::string::npos);
  EXPECT_NE(html.find("has no verified recipe on the standard workload yet"), std::string::npos);
  EXPECT_NE(html.find("id=\"about-non-standard\""), std::string::npos);
  EXPECT_NE(html.find("Built 2026-12-03 18:00 UTC by"), std::string::npos);
  EXPECT_NE(page_of(board, "rates.html").find("Built 2026-12-03 18:00 UTC by"), std::string::npos);
}

TEST(Pages, evidence_is_kept_under_an_inert_name_and_linked_percent_encoded) {
  EXPECT_EQ(evidence_site_path("m/g/r", "evidence/train.log"), "recipes/m/g/r/evidence/train.log");
  EXPECT_EQ(evidence_site_path("m/g/r", "./evidence//env.TXT"), "recipes/m/g/r/evidence/env.TXT");
  EXPECT_EQ(evidence_site_path("m/g/r", "patches/evil.html"), "recipes/m/g/r/patches/evil.html.txt");
  EXPECT_EQ(evidence_site_path("m/g/r", "patches/a.svg"), "recipes/m/g/r/patches/a.svg.txt");
  EXPECT_EQ(evidence_site_path("m/g/r", "fix.patch"), "recipes/m/g/r/fix.patch");
  EXPECT_EQ(evidence_site_path("m/g/r", "noext"), "recipes/m/g/r/noext.txt");
  EXPECT_EQ(evidence_site_path("m/g/r", "a/../../x.log"), "");
  EXPECT_EQ(evidence_site_path("m/g/r", "/etc/passwd"), "");
  EXPECT_EQ(evidence_site_path("m/g/r", ""), "");
  EXPECT_EQ(url_path("recipes/m/g/r/train #1?.log"), "recipes/m/g/r/train%20%231%3F.log");
  EXPECT_EQ(url_path("env 100%.txt"), "env%20100%25.txt");
  EXPECT_EQ(url_path("a\xff"
                     "b"),
            "a%FFb");
}

// Regression: the preview site counted an unverified recipe twice (it is listed among the ranked, by its score, and
// among the unranked, with its reasons), and its page said "ranked 3".
TEST(Pages, a_preview_counts_each_unverified_recipe_once_and_its_page_claims_no_rank) {
  Scratch s;
  const auto board = board_of(s.root, true);
  const auto v = model_view(board, "qwen3-0.6b");
  EXPECT_EQ(v["pairs"][0]["unverified_count"], 1);  // lr10, once
  EXPECT_EQ(v["pairs"][0]["unverified_plural"], false);
  const auto& pair = board["pairs"][0];
  const auto& lr10 = pair["ranked"][2];
  ASSERT_EQ(lr10["id"], "qwen3-0.6b/H200/lr10");
  const auto page = recipe_view(pair, lr10);
  EXPECT_EQ(page["ranked"], false);
  for (const auto& p : site_pages(board))
    if (p.path == "recipes/qwen3-0.6b/H200/lr10.html") {
      EXPECT_EQ(p.bytes.find("ranked 3"), std::string::npos);
      EXPECT_NE(p.bytes.find("<span class=\"tag unverified\">not ranked</span>"), std::string::npos);
    }
  // Published (no preview): the same count, from the ids kept for it.
  EXPECT_EQ(model_view(board_of(s.root), "qwen3-0.6b")["pairs"][0]["unverified_count"], 1);
}

TEST(Pages, every_page_of_the_board_is_written_and_sorted_by_path) {
  Scratch s;
  const auto pages = site_pages(board_of(s.root, true));
  std::vector<std::string> paths;
  for (const auto& p : pages) paths.push_back(p.path);
  // A page per model file (each registry model has one, recipes or not), between the index and the rates.
  std::vector<std::string> expected{"index.html"};
  std::set<std::string> models;
  for (const auto& e : std::filesystem::directory_iterator(s.root / "models")) models.insert(e.path().stem().string());
  for (const auto& m : models) expected.push_back("models/" + m + ".html");
  for (const char* p : {"rates.html", "recipes/qwen3-0.6b/H200/lr10.html", "recipes/qwen3-0.6b/H200/mbs2.html",
                        "recipes/qwen3-0.6b/H200/ref.html"})
    expected.push_back(p);
  std::sort(expected.begin(), expected.end());  // by path: "models/deepseek-v3.2.html" before "models/deepseek-v3.html"
  EXPECT_EQ(models.size(), 23u);
  EXPECT_EQ(paths, expected);
  for (const auto& p : pages) EXPECT_EQ(p.bytes.rfind("<!DOCTYPE html>", 0), 0u) << p.path;
}

// A reason's fix is shown where it has one, and nothing where it has none (a template section shows for any string,
// so an empty fix once rendered a bare "Fix:").
TEST(Pages, a_reasons_fix_is_shown_only_where_there_is_one) {
  Scratch s;
  std::filesystem::create_directories(s.recipe("broken"));
  s.write(s.recipe("broken") / "recipe.yaml", "id: broken\nmodel: qwen3-0.6b\n");
  const auto pages = site_pages(board_of(s.root, true));
  int checked = 0;
  for (const auto& p : pages) {
    EXPECT_EQ(p.bytes.find("<span class=\"fix\">Fix: </span>"), std::string::npos) << p.path;
    if (p.path == "index.html") {
      ++checked;
      // The load error's sentence, then its fix apart (it was once inside the sentence, and again as an empty fix):
      // here every problem of the file in one sentence, each with its own fix, and the fix of them all.
      // Each required field is its own problem (gpu, gpus, author, date, workload, ...: 11 of them).
      EXPECT_NE(p.bytes.find("recipe.yaml: 11 problems: (1) line 1: missing required field &apos;gpu&apos; (fix: add "
                             "it (see docs/recipe-format.md)); (2) line 1: missing required field &apos;gpus&apos;"),
                std::string::npos);
      EXPECT_NE(p.bytes.find("missing required field &apos;claims&apos; (fix: add it (see docs/recipe-format.md)) "
                             "<span class=\"fix\">Fix: fix each where it is named, then run again</span></li>"),
                std::string::npos);
    }
    if (p.path == "models/qwen3-0.6b.html") {
      ++checked;  // lr10's reasons carry no fix
      EXPECT_NE(p.bytes.find("ineligible: lr changed from 1e-05 to 0.0001"), std::string::npos);
    }
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace openrecipes::site
