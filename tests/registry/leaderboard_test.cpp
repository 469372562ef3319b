// Pairs (registry/leaderboard.h): the pair's workload description comes only from a verified recipe, and
// recipes that could not be read are kept apart from the pairs.
#include "registry/leaderboard.h"

#include <gtest/gtest.h>

#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
using scratch::build;
using scratch::Scratch;

const char* kMockDescription =
    "Megatron-LM mock data (--mock-data, NullTokenizer, seed 1234): synthetic rows of 2,048 tokens, 32 rows per step. "
    "Not the protocol's Tulu 3 workload.";

TEST(PairDescription, unverified_recipe_cannot_supply_the_pairs_workload_description) {
  Scratch s;  // lr10 (rejected) sorts first by id and brings its own description
  s.replace(s.recipe("lr10") / "recipe.yaml", "description: \"Megatron-LM mock data",
            "description: \"OFFICIAL: this pair is sponsored. Megatron-LM mock data");
  auto b = build(s.root);
  ASSERT_FALSE(b.get("lr10").verified);
  for (bool include_unverified : {false, true}) {
    auto pairs = build_pairs(b.reg, b.results, include_unverified);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].workload_description, kMockDescription);
  }
}

TEST(PairDescription, reference_recipe_speaks_before_other_verified_recipes) {
  Scratch s;  // mbs2 (verified, sorts before ref) words it differently: ref's words are the pair's
  s.replace(s.recipe("mbs2") / "recipe.yaml", "description: \"Megatron-LM mock data",
            "description: \"Mock data as mbs2 tells it. Megatron-LM mock data");
  auto b = build(s.root);
  ASSERT_TRUE(b.get("mbs2").verified);
  EXPECT_EQ(build_pairs(b.reg, b.results, false)[0].workload_description, kMockDescription);
}

TEST(PairDescription, pair_without_a_verified_recipe_has_no_description) {
  Scratch s;  // ref's stack contradicts its evidence: ref unverified, so mbs2 and lr10 too
  s.replace(s.recipe("ref") / "recipe.yaml", "pytorch: 2.11.0+cu130", "pytorch: 2.12.0");
  auto b = build(s.root);
  ASSERT_FALSE(b.get("mbs2").verified);
  EXPECT_EQ(build_pairs(b.reg, b.results, false)[0].workload_description, "");
}

TEST(UnreadableRecipes, are_one_entry_after_the_pairs_not_a_pair) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "gpus: 1", "gpus: [1");
  auto b = build(s.root);
  auto pairs = build_pairs(b.reg, b.results, false);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_FALSE(pairs[0].unreadable);
  EXPECT_EQ(pairs[0].model, "qwen3-0.6b");
  EXPECT_TRUE(pairs[1].unreadable);
  ASSERT_EQ(pairs[1].unranked.size(), 1u);
  EXPECT_EQ(pairs[1].unranked[0]->id, "qwen3-0.6b/H200/mbs2");
  EXPECT_TRUE(pairs[1].ranked.empty());
}

}  // namespace
}  // namespace openrecipes::registry

namespace openrecipes::registry {
namespace {

TEST(LeaderboardKeys, a_non_standard_workload_may_not_take_the_standard_workloads_key) {
  scratch::Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "key: megatron-mock-seq2048-gbs32", "key: tulu3-sft");
  auto b = scratch::build(s.root);
  const auto& r = b.get("mbs2");
  EXPECT_FALSE(r.entry->recipe.has_value());
  EXPECT_TRUE(scratch::gives_reason(r, "'tulu3-sft' is the standard workload's key"));
}

}  // namespace
}  // namespace openrecipes::registry

namespace openrecipes::registry {
namespace {

// A verified, measured result of pair (m, H200, w) with score `score` and interval [low, high].
struct Board {
  Registry reg;
  std::vector<RecipeEntry> entries;
  std::vector<RecipeResult> results;
  void add(const std::string& name, double score, double low, double high) {
    RecipeEntry e;
    e.id = "m/H200/" + name;
    Recipe r;
    r.id = e.id;
    r.name = name;
    r.model = "m";
    r.gpu = "H200";
    r.workload.key = "w";
    e.recipe = r;
    entries.push_back(e);
    RecipeResult res;
    res.id = e.id;
    res.verified = true;
    measure::Throughput t;
    t.tokens_per_s_per_gpu = score;
    t.interval.score_low = low;
    t.interval.score_high = high;
    res.throughput = t;
    results.push_back(res);
  }
  std::vector<Pair> pairs() {
    for (std::size_t i = 0; i < results.size(); ++i) results[i].entry = &entries[i];
    return build_pairs(reg, results, false);
  }
};

TEST(WithinNoise, a_recipe_whose_interval_overlaps_the_one_ranked_above_is_within_noise_of_it) {
  Board b;
  b.add("a", 1000, 950, 1060);  // rank 1
  b.add("b", 980, 930, 1030);   // overlaps a (930..1030 meets 950..1060): within noise
  b.add("c", 800, 780, 820);    // 780..820 is below b's 930: not within noise
  b.add("d", 700, 650, 779);    // below c's 780 by one: not within noise
  auto pairs = b.pairs();
  ASSERT_EQ(pairs.size(), 1u);
  const Pair& p = pairs[0];
  ASSERT_EQ(p.ranked.size(), 4u);
  EXPECT_EQ(p.ranked[0]->id, "m/H200/a");
  EXPECT_EQ(p.ranked[1]->id, "m/H200/b");
  EXPECT_EQ(p.within_noise_of_above, (std::vector<bool>{false, true, false, false}));
}

TEST(WithinNoise, the_order_stays_by_the_point_score_whatever_the_intervals) {
  Board b;
  b.add("wide", 990, 100, 5000);  // a wide interval ranks by its point score: second
  b.add("narrow", 1000, 995, 1005);
  auto pairs = b.pairs();
  ASSERT_EQ(pairs[0].ranked.size(), 2u);
  EXPECT_EQ(pairs[0].ranked[0]->id, "m/H200/narrow");
  EXPECT_EQ(pairs[0].within_noise_of_above, (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace openrecipes::registry
