// Tests for src/site/recipes_export: one object per recipe, each the leaderboard's entry with its pair's fields and
// status added, in the leaderboard's order; the same leaderboard gives the same bytes.
#include "site/recipes_export.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"
#include "site/csv_export.h"
#include "site/leaderboard_report.h"

namespace openrecipes::site {
namespace {
using registry::scratch::build;
using registry::scratch::Scratch;

TEST(RecipesExport, every_recipe_is_its_leaderboard_entry_with_its_pair_and_status_added) {
  Scratch s;
  auto b = build(s.root);
  const auto board = leaderboard_json(b.reg, registry::build_pairs(b.reg, b.results, false));
  const auto out = recipes_json(board);
  EXPECT_EQ(out["schema"], "openrecipes-recipes/2");
  ASSERT_EQ(out["recipes"].size(), 3u);
  const auto& pair = board["pairs"][0];
  const std::vector<std::pair<const nlohmann::json*, const char*>> expected = {
      {&pair["ranked"][0], "verified"}, {&pair["ranked"][1], "verified"}, {&pair["unranked"][0], "unranked"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& got = out["recipes"][i];
    const auto& [entry, status] = expected[i];
    for (const auto& [key, value] : entry->items()) EXPECT_EQ(got.at(key), value) << got["id"] << " " << key;
    EXPECT_EQ(got.size(), entry->size() + 5);  // model, model_name, gpu, non_standard_workload, status
    EXPECT_EQ(got["status"], status);
    EXPECT_EQ(got["model"], "qwen3-0.6b");
    EXPECT_EQ(got["model_name"], "Qwen3-0.6B");
    EXPECT_EQ(got["gpu"], "H200");
    EXPECT_EQ(got["workload"]["key"], "megatron-mock-seq2048-gbs32");
    EXPECT_EQ(got["non_standard_workload"], true);
  }
  EXPECT_EQ(out["recipes"][0]["id"], "qwen3-0.6b/H200/mbs2");
  EXPECT_EQ(out["recipes"][0]["rank"], 1);
  EXPECT_EQ(out["recipes"][2]["id"], "qwen3-0.6b/H200/lr10");
  EXPECT_FALSE(out["recipes"][2].contains("rank"));
  EXPECT_EQ(recipes_json(board).dump(2), out.dump(2));
  // The site's file, written a recipe at a time, is the same bytes (and for no recipe at all).
  EXPECT_EQ(recipes_json_text(board), out.dump(2) + "\n");
  nlohmann::json empty = board;
  empty["pairs"] = nlohmann::json::array();
  EXPECT_EQ(recipes_json_text(empty), recipes_json(empty).dump(2) + "\n");
  EXPECT_EQ(recipes_json_text(empty), "{\n  \"recipes\": [],\n  \"schema\": \"openrecipes-recipes/2\"\n}\n");
}

}  // namespace
}  // namespace openrecipes::site

namespace openrecipes::site {
namespace {

TEST(RecipesExport, a_recipe_ranked_for_a_preview_is_listed_once_as_preview) {
  registry::scratch::Scratch s;
  auto b = registry::scratch::build(s.root);
  const auto board = leaderboard_json(b.reg, registry::build_pairs(b.reg, b.results, true));
  ASSERT_EQ(board["pairs"][0]["unranked"].size(), 1u);  // lr10 is ranked (a preview) and listed for its reasons
  const auto out = recipes_json(board);
  ASSERT_EQ(out["recipes"].size(), 3u);
  EXPECT_EQ(out["recipes"][2]["id"], "qwen3-0.6b/H200/lr10");
  EXPECT_EQ(out["recipes"][2]["status"], "preview");
  EXPECT_FALSE(out["recipes"][2].contains("rank"));  // a preview takes no rank (the verified recipes' ranks stay)
  const std::string csv = recipes_csv(board);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // the header and three recipes
  EXPECT_THAT(csv,
              ::testing::HasSubstr(
                  "\"qwen3-0.6b/H200/lr10\",\"qwen3-0.6b\",\"H200\",\"megatron-mock-seq2048-gbs32\",true,preview,,"));
}

}  // namespace
}  // namespace openrecipes::site
