// Leaderboard text and JSON (site/leaderboard_report.h): a stranger's bytes never reach the terminal as
// control characters, and recipes that could not be read get their own section.
#include "site/leaderboard_report.h"

#include <cctype>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"

namespace openrecipes::site {
namespace {
namespace fs = std::filesystem;
using registry::scratch::build;
using registry::scratch::Scratch;

bool has_raw_control(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9f)
      return true;
  }
  return false;
}

// The text with its wrapped lines joined (build wraps at 120 columns): a sentence found whole wherever it breaks.
std::string unwrapped(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] == ' ') ++j;
      // a continuation line is indented deeper than a "- " item or a new row; join it with one space
      if (j - i - 1 >= 6 && j < text.size() && text[j] != '-' && !std::isdigit(static_cast<unsigned char>(text[j]))) {
        out += ' ';
        i = j - 1;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

TEST(LeaderboardText, escape_in_a_recipe_id_or_folder_name_is_shown_escaped) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "id: mbs2\n", "id: \"mbs2\\x1b[31m\"\n");
  fs::copy(s.recipe("lr10"), s.recipe("x\x1b]0;pwned\x07"), fs::copy_options::recursive);
  auto b = build(s.root);
  auto pairs = registry::build_pairs(b.reg, b.results, false);
  const auto text = leaderboard_text(b.reg, pairs);
  EXPECT_FALSE(has_raw_control(text)) << text;
  EXPECT_NE(unwrapped(text).find("id 'mbs2\\x1b[31m' does not match the recipe's folder 'mbs2'"), std::string::npos)
      << text;
  EXPECT_THAT(text, ::testing::HasSubstr("  qwen3-0.6b/H200/x\\x1b]0;pwned\\x07\n"));
  const auto json = leaderboard_json(b.reg, pairs).dump(2);
  EXPECT_FALSE(has_raw_control(json)) << json;
  EXPECT_NE(json.find("mbs2\\u001b[31m"), std::string::npos);  // nlohmann's own escape
}

// Regression (SPEC §5): the preview (--include-unverified) gave an unverified recipe a rank among the verified ones,
// moving theirs.
TEST(LeaderboardText, a_previews_unverified_recipe_takes_no_rank_and_moves_no_verified_one) {
  Scratch s;  // ref2: a copy of ref filed as a run of its own under another id: a second root, not verified
  s.copy_recipe("ref", "ref2");
  s.another_run("ref2");
  auto b = build(s.root);
  ASSERT_FALSE(b.get("ref2").verified);
  auto pairs = registry::build_pairs(b.reg, b.results, true);
  ASSERT_EQ(pairs[0].ranked.size(), 4u);  // mbs2, ref, ref2 (ties by id), lr10
  EXPECT_EQ(pairs[0].within_noise_of_above, (std::vector<bool>{false, false, false, false}));
  const auto text = leaderboard_text(b.reg, pairs);
  EXPECT_THAT(text, ::testing::HasSubstr("\n     1  mbs2 "));
  EXPECT_THAT(text, ::testing::HasSubstr("\n     2  ref "));
  EXPECT_THAT(text, ::testing::HasSubstr("\n     -  ref2 "));
  EXPECT_THAT(text, ::testing::HasSubstr("\n     -  lr10 "));
  const auto j = leaderboard_json(b.reg, pairs);
  const auto& ranked = j["pairs"][0]["ranked"];
  EXPECT_EQ(ranked[1]["rank"], 2);
  EXPECT_FALSE(ranked[2].contains("rank"));
  EXPECT_FALSE(ranked[3].contains("rank"));
}

TEST(LeaderboardText, legend_names_what_the_step_time_is_for_the_log_formats_of_the_pair) {
  Scratch s;
  auto b = build(s.root);
  const auto text = leaderboard_text(b.reg, registry::build_pairs(b.reg, b.results, false));
  EXPECT_NE(
      text.find("GPU-h/run = GPUs × launch-to-exit time of the evidence run;\n   evidence: L step log, A argument "
                "dump, V versions, D device, T scheduler times, C launched command (- missing);\n   step time of "
                "a megatron log = 'elapsed time per iteration (ms)': Megatron-LM's timer of each training "
                "iteration"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("perf/step_time"), std::string::npos) << text;  // no slime recipe in the bundled pair
}

TEST(LeaderboardText, recipe_whose_interval_overlaps_the_one_above_is_marked_within_noise_in_text_and_json) {
  // The bundled tulu3 pair: tulu3-tuned ranks 1 and tulu3-mbs16 2, within noise of it (the README's board).
  Scratch s({"tulu3-ref", "tulu3-mbs16", "tulu3-tuned", "tulu3-cefusion"});
  auto b = build(s.root);
  auto pairs = registry::build_pairs(b.reg, b.results, false);
  ASSERT_EQ(pairs[0].ranked.size(), 4u);  // tulu3-tuned, tulu3-mbs16, tulu3-ref, tulu3-cefusion
  EXPECT_EQ(pairs[0].within_noise_of_above, (std::vector<bool>{false, true, false, false}));
  const auto text = leaderboard_text(b.reg, pairs);
  EXPECT_THAT(text, ::testing::HasSubstr("\n    ≈2  tulu3-mbs16 "));
  EXPECT_THAT(text, ::testing::HasSubstr("\n     3  tulu3-ref "));
  std::string flat;  // every line break with the next line's indent read as one space
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      flat += text[i];
      continue;
    }
    flat += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  EXPECT_NE(
      flat.find("≈ before a rank: within noise of the recipe ranked directly above (their 95% intervals overlap)"),
      std::string::npos)
      << text;
  EXPECT_NE(flat.find("±95% = x: tokens/s/GPU's 95% interval is score/(1+x) to score/(1−x), unbounded above when x ≥ "
                      "100%, as the mean step time's is mean·(1 ± x) (95% t-interval of the mean step time over the "
                      "window; step times are treated as independent);"),
            std::string::npos)
      << text;
  const auto j = leaderboard_json(b.reg, pairs);
  EXPECT_EQ(j["interval_method"],
            "95% t-interval of the mean step time over the window; step times are treated as independent");
  const auto& ranked = j["pairs"][0]["ranked"];
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ranked[i]["within_noise_of_above"], i == 1) << i;
    const auto& in = ranked[i]["tokens_per_s_per_gpu_interval"];
    const auto& t =
        b.get(ranked[i]["id"].get<std::string>().substr(std::string("qwen3-0.6b/H200/").size())).throughput->interval;
    EXPECT_EQ(in, nlohmann::json({t.score_low, t.score_high})) << i;
    EXPECT_EQ(ranked[i]["mean_step_time_half_width_s"], t.half_width_s) << i;
    EXPECT_EQ(ranked[i]["interval_steps"], 15) << i;
  }
  // tulu3-mbs16's interval reaches into tulu3-tuned's: that is what "within noise" says.
  EXPECT_GE(ranked[1]["tokens_per_s_per_gpu_interval"][1].get<double>(),
            ranked[0]["tokens_per_s_per_gpu_interval"][0].get<double>());
  EXPECT_TRUE(j["pairs"][0]["unranked"].empty());
}

TEST(LeaderboardText, unreadable_recipes_have_their_own_section) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "gpus: 1", "gpus: [1");
  auto b = build(s.root);
  auto pairs = registry::build_pairs(b.reg, b.results, false);
  const auto text = leaderboard_text(b.reg, pairs);
  EXPECT_EQ(text.find("(unreadable)"), std::string::npos) << text;
  auto at = text.find("recipes that could not be read:\n  qwen3-0.6b/H200/mbs2\n    - recipe: ");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NE(text.find("malformed YAML", at), std::string::npos) << text;
  EXPECT_LT(text.find("Qwen3-0.6B · H200 · workload"), at);  // after the pairs
  auto j = leaderboard_json(b.reg, pairs);
  ASSERT_EQ(j["pairs"].size(), 1u);
  ASSERT_EQ(j["unreadable"].size(), 1u);
  EXPECT_EQ(j["unreadable"][0]["id"], "qwen3-0.6b/H200/mbs2");
}

}  // namespace
}  // namespace openrecipes::site
