// A tuned recipe's search (docs/tune.md "The winner"; evidence.search), on the bundled tulu3-tuned: the winner of
// `openrecipes tune` of tulu3-ref on one H200 (real Megatron-LM d98e8a64), submitted with --search. It verifies as
// bundled with its search read; each way the search can disagree with the recipe (another start, another winner's
// command, another score, a record that does not read) makes it not verified with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "evidence/step_log.h"
#include "measure/throughput.h"
#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using namespace scratch;  // Scratch, build, gives_reason, has_reason, reasons_of

struct TunedScratch : Scratch {
  TunedScratch() : Scratch({"tulu3-ref", "tulu3-tuned"}) {}
  fs::path search() const { return recipe("tulu3-tuned") / "evidence/search.json"; }
  nlohmann::json search_json() const { return nlohmann::json::parse(read(search())); }
  void write_search(const nlohmann::json& j) const { write(search(), j.dump(2)); }
};

// Whether tulu3-tuned, built from `s`, is not verified and gives a reason containing `reason`.
::testing::AssertionResult tuned_refused_with(const Scratch& s, const std::string& reason) {
  const auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  if (r.verified) return ::testing::AssertionFailure() << "tulu3-tuned verified";
  return gives_reason(r, reason);
}

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
    EXPECT_EQ(evidence::outcome_name(t.outcome), j["trials"][i]["outcome"].get<std::string>());
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
  EXPECT_TRUE(tuned_refused_with(s,
                                 "trial 1 records 1000.0 tokens/s/GPU, and its log "
                                 "evidence/search-trials/01.log gives 10725.7 over steps 3–12"));

  // A measured peak other than the log's max allocated.
  TunedScratch p;
  j = p.search_json();
  j["trials"][1]["measured_peak_mib"] = 40000.0;
  p.write_search(j);
  auto b = build(p.root);
  EXPECT_TRUE(gives_reason(b.get("tulu3-tuned"),
                           "trial 2 records a measured peak of 40000 MiB, and its log "
                           "evidence/search-trials/02.log shows 56289 MiB"));

  // A trial's log removed: its numbers cannot be recomputed.
  TunedScratch m;
  fs::remove(m.recipe("tulu3-tuned") / "evidence/search-trials/05.log");
  EXPECT_TRUE(tuned_refused_with(m, "trial 5's log evidence/search-trials/05.log does not read"));
}

// Regression: a search whose winner is not its best measured trial verified (a trial's log made 2x faster within the
// timestamp slack, its numbers recomputed to match), and a trial's predicted peak edited to 99,999 MiB was published
// as "no fit" (the planner is deterministic: the build now recomputes each prediction).
TEST(BundledSearch, the_winner_is_the_best_trial_by_tunes_rule_and_each_prediction_is_the_planners) {
  TunedScratch s;
  // Trial 4 (micro-batch 32 + selective recompute, measured within noise of the winner) made 1.6x as fast, within
  // the slack the timestamps allow.
  const auto log = s.recipe("tulu3-tuned") / "evidence/search-trials/04.log";
  std::string text = s.read(log);
  std::string faster;
  const std::regex elapsed("elapsed time per iteration \\(ms\\): ([0-9.]+)");
  auto it = std::sregex_iterator(text.begin(), text.end(), elapsed);
  std::size_t at = 0;
  for (; it != std::sregex_iterator(); ++it) {
    faster += text.substr(at, static_cast<std::size_t>(it->position(1)) - at);
    faster += fmt::format("{:.1f}", std::stod((*it)[1]) * 0.62);
    at = static_cast<std::size_t>(it->position(1) + it->length(1));
  }
  faster += text.substr(at);
  s.write(log, faster);
  auto j = s.search_json();
  const auto steps = j["trials"][3]["steps_measured"].get<std::int64_t>();
  const auto warmup = j["warmup_steps"].get<std::int64_t>();
  const auto m = measure::measure_throughput(evidence::parse_step_log(faster, "megatron", std::nullopt, log.string()),
                                             {warmup, warmup + steps - 1}, {1, 512, 32});
  j["trials"][3]["tokens_per_s_per_gpu"] = m.tokens_per_s_per_gpu;
  j["trials"][3]["tokens_per_s_per_gpu_interval"] = {m.interval.score_low, m.interval.score_high};
  j["trials"][3]["mean_step_time_s"] = m.mean_step_time_s;
  j["trials"][3]["within_noise_of_best"] = false;
  s.write_search(j);
  EXPECT_TRUE(
      tuned_refused_with(s,
                         "its winner is trial 2, and by tune's rule (a trial replaces the best only when its whole 95% "
                         "interval lies above the best's) the best of its measured trials is trial 4"));

  // A prediction edited: the planner gives the same number for the same command every time.
  TunedScratch p;
  j = p.search_json();
  j["trials"][2]["predicted_peak_mib"] = 99999.0;
  j["trials"][2]["planner_fits"] = false;
  p.write_search(j);
  EXPECT_TRUE(
      tuned_refused_with(p,
                         "trial 3 records a predicted peak of 99999 MiB, and the planner predicts 33712 MiB for its "
                         "candidate's command"));
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
  EXPECT_TRUE(gives_reason(r, "is a search on 8 GPUs, and the recipe ran on 1"));

  TunedScratch c;
  j = c.search_json();
  for (auto& x : j["candidates"])
    if (x["start"] == true) x["command"] = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --bf16";
  c.write_search(j);
  b = build(c.root);
  EXPECT_TRUE(gives_reason(b.get("tulu3-tuned"), "is not the command of the reference qwen3-0.6b/H200/tulu3-ref"));
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
  EXPECT_TRUE(gives_reason(r,
                           "is a search from 'qwen3-0.6b/H200/tulu3-mbs16', and the recipe's reference is "
                           "qwen3-0.6b/H200/tulu3-ref"));
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
  EXPECT_TRUE(gives_reason(r,
                           "the recipe's command is not that of the winner 'tulu3-ref-mbs32' in "
                           "recipes/qwen3-0.6b/H200/tulu3-tuned/evidence/search.json"));
}

TEST(BundledSearch, a_winner_score_other_than_the_evidence_is_caught) {
  TunedScratch s;
  auto j = s.search_json();
  j["winner"]["tokens_per_s_per_gpu"] = 45000.0;
  s.write_search(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, "says its winner's run scored 45000.0, and the recipe's evidence scores 41044.8"));
}

TEST(BundledSearch, a_record_that_does_not_read_is_caught_naming_the_file) {
  TunedScratch s;
  auto j = s.search_json();
  j["trials"][2]["outcome"] = "fast";
  s.write_search(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r,
                           "recipes/qwen3-0.6b/H200/tulu3-tuned/evidence/search.json: trials[2].outcome 'fast' is "
                           "not one tune writes"));

  s.write(s.search(), "{\"format\": \"openrecipes-tune\"");
  b = build(s.root);
  EXPECT_TRUE(gives_reason(b.get("tulu3-tuned"), "tulu3-tuned/evidence/search.json"));
  EXPECT_FALSE(b.get("tulu3-tuned").verified);
}

// Regression: a trial's outcome relabelled, two trials' logs swapped, a fit verdict, the GPU's memory or a
// candidate's knobs edited each published a search tune never ran; each is now held to its own source.
TEST(BundledSearch, an_outcome_a_log_a_fit_verdict_or_a_knob_other_than_its_source_is_caught) {
  // Trial 4 ran all 10 steps: it cannot have been cut. Trial 3 ran 6: it cannot be "measured".
  TunedScratch o;
  auto j = o.search_json();
  j["trials"][3]["outcome"] = "cut: slower";
  j["trials"][2]["outcome"] = "measured";
  o.write_search(j);
  auto b = build(o.root);
  EXPECT_FALSE(b.get("tulu3-tuned").verified);
  EXPECT_TRUE(gives_reason(b.get("tulu3-tuned"), "trial 4 is marked cut as slower, and measured all its 10 steps"));
  EXPECT_TRUE(gives_reason(b.get("tulu3-tuned"), "trial 3 is marked measured, and measured 6 of its 10 steps"));

  // Trials 2 and 4 ran micro-batch 32 without and with selective recompute: their logs swapped, each argument dump
  // shows the other's recompute.
  TunedScratch w;
  const auto trials = w.recipe("tulu3-tuned") / "evidence/search-trials";
  const std::string two = w.read(trials / "02.log"), four = w.read(trials / "04.log");
  w.write(trials / "02.log", four);
  w.write(trials / "04.log", two);
  EXPECT_TRUE(
      tuned_refused_with(w,
                         "trial 2's log evidence/search-trials/02.log ran recompute selective, and its candidate "
                         "tulu3-ref-mbs32 records recompute none"));

  // A fit verdict flipped: 57,122 MiB is within the 128,472.3 MiB usable of an H200 (143,771 MiB less the planner's
  // margin), so the planner says it fits.
  TunedScratch f;
  j = f.search_json();
  j["candidates"][1]["planner_fits"] = false;
  f.write_search(j);
  b = build(f.root);
  EXPECT_TRUE(gives_reason(b.get("tulu3-tuned"),
                           "candidate tulu3-ref-mbs32 records that it does not fit the GPU, and its predicted peak of "
                           "57122 MiB is within the usable memory"));

  // Another GPU memory than gpus.yaml's H200.
  TunedScratch m;
  j = m.search_json();
  j["memory_mib"] = 40000.0;
  m.write_search(j);
  b = build(m.root);
  EXPECT_TRUE(
      gives_reason(b.get("tulu3-tuned"), "planned for 40000 MiB a GPU, and the recipe's GPU type has 143771 MiB"));

  // A candidate's knob other than its command's.
  TunedScratch k;
  j = k.search_json();
  j["candidates"][2]["micro_batch"] = 8;
  k.write_search(j);
  b = build(k.root);
  const auto& r = b.get("tulu3-tuned");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, "candidate tulu3-ref-mbs16 records micro-batch 8, and its command sets micro-batch 16"));
  // Messages name the record inside the registry, wherever the registry lies.
  for (const auto& reason : r.reasons)
    EXPECT_EQ(reason.message.find(k.root.string()), std::string::npos) << reason.message;
}

}  // namespace
}  // namespace openrecipes::registry
