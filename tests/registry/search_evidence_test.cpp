// A tuned recipe's search (issue 29; evidence.search), on the bundled tulu3-tuned: the winner of `openrecipes tune` of
// tulu3-ref on one H200 (real Megatron-LM d98e8a64), submitted with --search. It verifies as bundled with its search
// read; each way the search can disagree with the recipe (another start, another winner's command, another score, a
// record that does not read) makes it not verified with the reason.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using scratch::build;
using scratch::has_reason;
using scratch::reasons_of;
using scratch::Scratch;

struct TunedScratch : Scratch {
  TunedScratch() : Scratch({"tulu3-ref", "tulu3-tuned"}) {}
  fs::path search() const { return recipe("tulu3-tuned") / "evidence/search.json"; }
  nlohmann::json search_json() const { return nlohmann::json::parse(read(search())); }
  void write_search(const nlohmann::json& j) const { write(search(), j.dump(2)); }
};

TEST(BundledSearch, the_tuned_recipe_verifies_with_its_search) {
  TunedScratch s;
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  ASSERT_TRUE(r.verified) << reasons_of(r);
  ASSERT_TRUE(r.search);
  const auto j = s.search_json();  // the file itself, read independently
  EXPECT_EQ(r.search->recipe, "qwen3-0.6b/H200/tulu3-ref");
  EXPECT_EQ(r.search->gpus, 1);
  EXPECT_EQ(r.search->stopped, "budget");
  ASSERT_EQ(r.search->trials.size(), j["trials"].size());
  ASSERT_EQ(r.search->trials.size(), 8u);
  for (std::size_t i = 0; i < r.search->trials.size(); ++i) {
    const auto& t = r.search->trials[i];
    EXPECT_EQ(t.outcome, j["trials"][i]["outcome"].get<std::string>());
    EXPECT_EQ(t.tokens_per_s_per_gpu, j["trials"][i]["tokens_per_s_per_gpu"].get<double>());
    EXPECT_EQ(t.predicted_peak_mib, j["trials"][i]["predicted_peak_mib"].get<double>());
  }
  // The winner: trial 2, micro-batch 32; its 20-step run is the recipe's evidence, scored the same by the build.
  ASSERT_TRUE(r.search->winner);
  EXPECT_EQ(r.search->winner->trial, 2);
  EXPECT_EQ(r.search->winner->candidate, "tulu3-ref-mbs32");
  EXPECT_TRUE(r.search->trials[1].best);
  ASSERT_TRUE(r.throughput);
  EXPECT_NEAR(*r.search->winner->tokens_per_s_per_gpu, r.throughput->tokens_per_s_per_gpu,
              1e-9 * r.throughput->tokens_per_s_per_gpu);
  EXPECT_EQ(r.entry->recipe->layout.micro_batch, 32);
}

TEST(BundledSearch, every_trials_numbers_are_recomputed_from_its_own_log) {
  TunedScratch s;
  // The start's trial forged slower (a bigger speed-up on the page): its log says otherwise.
  auto j = s.search_json();
  j["trials"][0]["tokens_per_s_per_gpu"] = 1000.0;
  j["trials"][0]["tokens_per_s_per_gpu_interval"] = {900.0, 1100.0};
  s.write_search(j);
  auto b = build(s.root);
  EXPECT_FALSE(b.get("tulu3-tuned").verified);
  EXPECT_TRUE(has_reason(b.get("tulu3-tuned"),
                         "trial 1 records 1000.0 tokens/s/GPU, and its log "
                         "evidence/search-trials/01.log gives 10725.7 over steps 3–12"))
      << reasons_of(b.get("tulu3-tuned"));

  // A measured peak other than the log's max allocated.
  TunedScratch p;
  j = p.search_json();
  j["trials"][1]["measured_peak_mib"] = 40000.0;
  p.write_search(j);
  b = build(p.root);
  EXPECT_TRUE(has_reason(b.get("tulu3-tuned"),
                         "trial 2 records a measured peak of 40000 MiB, and its log "
                         "evidence/search-trials/02.log shows 56289 MiB"))
      << reasons_of(b.get("tulu3-tuned"));

  // A trial's log removed: its numbers cannot be recomputed.
  TunedScratch m;
  fs::remove(m.recipe("tulu3-tuned") / "evidence/search-trials/05.log");
  b = build(m.root);
  EXPECT_FALSE(b.get("tulu3-tuned").verified);
  EXPECT_TRUE(has_reason(b.get("tulu3-tuned"), "trial 5's log evidence/search-trials/05.log does not read"))
      << reasons_of(b.get("tulu3-tuned"));
}

TEST(BundledSearch, a_search_on_another_gpu_count_or_from_another_command_is_caught) {
  TunedScratch s;
  auto j = s.search_json();
  j["gpus"] = 8;
  for (auto& c : j["candidates"])
    if (c["start"] == true) c["command"] = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --bf16";
  s.write_search(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(has_reason(r, "is a search on 8 GPU(s), and the recipe ran on 1")) << reasons_of(r);

  TunedScratch c;
  j = c.search_json();
  for (auto& x : j["candidates"])
    if (x["start"] == true) x["command"] = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --bf16";
  c.write_search(j);
  b = build(c.root);
  EXPECT_TRUE(has_reason(b.get("tulu3-tuned"), "is not the command of the reference qwen3-0.6b/H200/tulu3-ref"))
      << reasons_of(b.get("tulu3-tuned"));
}

TEST(BundledSearch, a_search_from_another_start_is_caught) {
  TunedScratch s;
  auto j = s.search_json();
  j["recipe"] = "qwen3-0.6b/H200/tulu3-mbs16";
  s.write_search(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_FALSE(r.search);
  EXPECT_TRUE(has_reason(r,
                         "is a search from 'qwen3-0.6b/H200/tulu3-mbs16', and the recipe's reference is "
                         "qwen3-0.6b/H200/tulu3-ref"))
      << reasons_of(r);
}

TEST(BundledSearch, a_winner_with_another_command_is_caught) {
  TunedScratch s;
  auto j = s.search_json();
  for (auto& c : j["candidates"])
    if (c["name"] == "tulu3-ref-mbs32") {
      std::string cmd = c["command"];
      cmd.replace(cmd.find("--micro-batch-size 32"), 21, "--micro-batch-size 16");
      c["command"] = cmd;
    }
  s.write_search(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(has_reason(r,
                         "the recipe's command is not that of the winner 'tulu3-ref-mbs32' in "
                         "recipes/qwen3-0.6b/H200/tulu3-tuned/evidence/search.json"))
      << reasons_of(r);
}

TEST(BundledSearch, a_winner_score_other_than_the_evidence_is_caught) {
  TunedScratch s;
  auto j = s.search_json();
  j["winner"]["tokens_per_s_per_gpu"] = 45000.0;
  s.write_search(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(has_reason(r, "says its winner's run scored 45000.0, and the recipe's evidence scores 41044.8"))
      << reasons_of(r);
}

TEST(BundledSearch, a_record_that_does_not_read_is_caught_naming_the_file) {
  TunedScratch s;
  auto j = s.search_json();
  j["trials"][2]["outcome"] = "fast";
  s.write_search(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(has_reason(r,
                         "recipes/qwen3-0.6b/H200/tulu3-tuned/evidence/search.json: trials[2].outcome 'fast' is "
                         "not one tune writes"))
      << reasons_of(r);

  s.write(s.search(), "{\"format\": \"openrecipes-tune\"");
  b = build(s.root);
  EXPECT_TRUE(has_reason(b.get("tulu3-tuned"), "tulu3-tuned/evidence/search.json")) << reasons_of(b.get("tulu3-tuned"));
  EXPECT_FALSE(b.get("tulu3-tuned").verified);
}

}  // namespace
}  // namespace openrecipes::registry
