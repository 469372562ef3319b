// The build on the bundled registry (the three real H200 runs) and every bad-input case a stranger's recipe can
// bring, each on a scratch copy of the registry.
#include "registry/evaluate.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"
#include "testing/support.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;

using namespace scratch;  // Scratch, build, bundled, has_reason, reasons_of

TEST(Build, bundled_registry_ranks_mbs2_above_ref_and_rejects_lr10) {
  auto b = build(bundled());
  ASSERT_EQ(b.results.size(), 7u);
  const auto& ref = b.get("ref");
  const auto& mbs2 = b.get("mbs2");
  const auto& lr10 = b.get("lr10");
  EXPECT_TRUE(ref.verified) << reasons_of(ref);
  EXPECT_TRUE(mbs2.verified) << reasons_of(mbs2);
  EXPECT_FALSE(lr10.verified);
  auto pairs = build_pairs(b.reg, b.results, false);
  ASSERT_EQ(pairs.size(), 2u);  // mock data, then the fixture rows (by workload key)
  EXPECT_FALSE(pairs[0].standard_workload);
  ASSERT_EQ(pairs[0].ranked.size(), 2u);
  EXPECT_EQ(pairs[0].ranked[0]->id, "qwen3-0.6b/H200/mbs2");
  EXPECT_EQ(pairs[0].ranked[1]->id, "qwen3-0.6b/H200/ref");
  ASSERT_EQ(pairs[0].unranked.size(), 1u);
  EXPECT_EQ(pairs[0].unranked[0]->id, "qwen3-0.6b/H200/lr10");
}

TEST(Build, bundled_fixture_rows_pair_ranks_the_submitted_device_runs) {
  // The three real Megatron-LM runs on the fixture rows that `openrecipes run` made on one H200 and `submit` wrote:
  // tulu3-cefusion with its component test's raw output (SPEC §4.2), slower than its reference at this shape.
  auto b = build(bundled());
  const auto& ref = b.get("tulu3-ref");
  const auto& mbs16 = b.get("tulu3-mbs16");
  const auto& cefusion = b.get("tulu3-cefusion");
  EXPECT_TRUE(ref.verified) << reasons_of(ref);
  EXPECT_TRUE(ref.is_reference);
  EXPECT_TRUE(mbs16.verified) << reasons_of(mbs16);
  EXPECT_TRUE(cefusion.verified) << reasons_of(cefusion);
  auto pairs = build_pairs(b.reg, b.results, false);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_FALSE(pairs[1].standard_workload);
  // tulu3-tuned (docs/tune.md): the winner of `openrecipes tune` from tulu3-ref on the same H200, within noise of
  // tulu3-mbs16 (their intervals overlap: its one slow step widens its own).
  const auto& tuned = b.get("tulu3-tuned");
  EXPECT_TRUE(tuned.verified) << reasons_of(tuned);
  ASSERT_EQ(pairs[1].ranked.size(), 4u);
  EXPECT_EQ(pairs[1].ranked[0]->id, "qwen3-0.6b/H200/tulu3-tuned");
  EXPECT_EQ(pairs[1].ranked[1]->id, "qwen3-0.6b/H200/tulu3-mbs16");
  EXPECT_EQ(pairs[1].ranked[2]->id, "qwen3-0.6b/H200/tulu3-ref");
  EXPECT_EQ(pairs[1].ranked[3]->id, "qwen3-0.6b/H200/tulu3-cefusion");
  EXPECT_TRUE(pairs[1].unranked.empty());
  EXPECT_TRUE(pairs[1].within_noise_of_above[1]);
  EXPECT_FALSE(pairs[1].within_noise_of_above[2]);
  // Its score by hand: iterations 6..20 of its train.log (ms), 32 rows x 512 tokens each.
  const double sum_s = (380.5 + 384.6 + 380.9 + 359.2 + 353.5 + 361.8 + 348.8 + 832.8 + 347.3 + 384.4 + 384.9 + 365.6 +
                        373.7 + 364.3 + 365.3) /
                       1000;
  EXPECT_NEAR(tuned.throughput->tokens_per_s_per_gpu, 15.0 * 32 * 512 / sum_s, 1e-9);
  EXPECT_EQ(tuned.entry->recipe->layout.micro_batch, 32);
  // T = 32 rows x 512 tokens per step; the score is over steps 5-19 of a 20-step run.
  EXPECT_EQ(mbs16.throughput->total_tokens, 15.0 * 32 * 512);
  // submit kept the command as the run started it: the published command is checked against that argv.
  EXPECT_EQ(ref.coverage.code(), "LAVDTC");
  EXPECT_EQ(mbs16.coverage.code(), "LAVDTC");
}

TEST(Build, bundled_numbers_follow_the_spec_formulas) {
  auto b = build(bundled());
  const auto& ref = b.get("ref");
  // Score from the 15 step times of iterations 6..20 (ms) of ref.log, by hand:
  const double sum_s = (4926.7 + 5150.5 + 4831.0 + 5085.6 + 5648.8 + 5730.1 + 5994.4 + 5425.3 + 5457.1 + 4788.2 +
                        5112.3 + 5228.7 + 5332.4 + 4796.4 + 5799.5) /
                       1000;
  const double score = 15.0 * 32 * 2048 / sum_s;
  EXPECT_NEAR(ref.throughput->tokens_per_s_per_gpu, score, 1e-9);
  EXPECT_NEAR(*ref.mfu, 6.0 * 595984384 * score / 989e12, 1e-15);                           // MFU = 6 N score / peak
  EXPECT_NEAR(*ref.dollars_per_million_tokens, 7.912 / (score * 3600) * 1e6, 1e-12);        // $ per 1M tokens
  EXPECT_NEAR(*ref.gpu_hours, (1795973164.166403326 - 1795973020.792464496) / 3600, 1e-9);  // times.txt
  EXPECT_TRUE(ref.is_reference);
  for (const auto& s : ref.stack) EXPECT_EQ(s.status, "pinned") << s.component;
}

TEST(Build, lr10_is_rejected_naming_the_argument_and_the_convergence_tests) {
  auto b = build(bundled());
  const auto& lr10 = b.get("lr10");
  EXPECT_TRUE(gives_reason(lr10, "configuration check: ineligible: lr changed from 1e-05 to 0.0001 — math"));
  EXPECT_TRUE(has_reason(lr10,
                         "convergence check: failed: 3 of 16 points (18.8%, more than the 10% allowed) differ from the "
                         "reference loss by more than the pointwise tolerance"));
  EXPECT_TRUE(has_reason(lr10, "final loss differs by 11.42% relative to the reference (> 5%)"));
  EXPECT_EQ(lr10.reasons.size(), 2u) << reasons_of(lr10);  // its claims agree with what the checks conclude
  EXPECT_EQ(lr10.convergence->failed_tests, (std::vector<std::string>{"point_wise_tolerance", "final_loss"}));
}

TEST(Build, mbs2_changes_are_structural_and_its_curve_matches) {
  auto b = build(bundled());
  const auto& mbs2 = b.get("mbs2");
  ASSERT_TRUE(mbs2.configuration);
  EXPECT_EQ(mbs2.configuration->changes.size(), 3u);  // eval_micro_batch_size, micro_batch_size, recompute_granularity
  EXPECT_TRUE(mbs2.convergence->passed);
  EXPECT_EQ(mbs2.convergence->pointwise_failures, 0);
}

TEST(BuildBadInput, claimed_score_the_log_does_not_give_is_reported_not_trusted) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "tokens_per_s_per_gpu: 23232.69", "tokens_per_s_per_gpu: 30000");
  auto b = build(s.root);
  const auto& mbs2 = b.get("mbs2");
  EXPECT_FALSE(mbs2.verified);
  EXPECT_TRUE(gives_reason(mbs2, "the recipe claims 30000.0 tokens/s/GPU, but its log gives 23232.7"));
  EXPECT_NEAR(mbs2.throughput->tokens_per_s_per_gpu, 23232.69, 0.01);  // what is shown is what the log gives
  auto pairs = build_pairs(b.reg, b.results, false);
  EXPECT_EQ(pairs[0].ranked.size(), 1u);
}

TEST(BuildBadInput, malformed_recipe_yaml_is_reported_with_file_and_line) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "gpus: 1", "gpus: [1");
  auto b = build(s.root);
  const auto& mbs2 = b.get("mbs2");
  EXPECT_FALSE(mbs2.verified);
  EXPECT_TRUE(gives_reason(mbs2, "recipe.yaml:"));
  EXPECT_TRUE(gives_reason(mbs2, "malformed YAML"));
  EXPECT_TRUE(b.get("ref").verified);  // one bad recipe does not stop the build
}

TEST(BuildBadInput, unknown_gpu_type_and_unknown_model) {
  Scratch s;
  fs::create_directories(s.root / "recipes/qwen3-0.6b/H110");
  fs::copy(s.recipe("ref"), s.root / "recipes/qwen3-0.6b/H110/ref", fs::copy_options::recursive);
  s.replace(s.root / "recipes/qwen3-0.6b/H110/ref/recipe.yaml", "gpu: H200", "gpu: H110");
  fs::create_directories(s.root / "recipes/llama-9/H200");
  fs::copy(s.recipe("ref"), s.root / "recipes/llama-9/H200/ref", fs::copy_options::recursive);
  s.replace(s.root / "recipes/llama-9/H200/ref/recipe.yaml", "model: qwen3-0.6b", "model: llama-9");
  auto reg = load_registry(s.root);
  auto results = evaluate_registry(reg);
  bool gpu = false, model = false;
  for (const auto& r : results) {
    if (r.id == "qwen3-0.6b/H110/ref")
      gpu = has_reason(r, "unknown GPU type 'H110' (registry/gpus.yaml has A100, B200, H100, H200)") &&
            fix_of(r, "recipe.gpu").starts_with("did you mean H100? ");  // one edit from H100, two from the others
    if (r.id == "llama-9/H200/ref") model = has_reason(r, "unknown model 'llama-9' (no registry/models/llama-9.yaml)");
  }
  EXPECT_TRUE(gpu);
  EXPECT_TRUE(model);
}

TEST(BuildBadInput, reference_that_does_not_exist) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "reference: ref", "reference: refx");
  auto b = build(s.root);
  EXPECT_TRUE(has_reason(b.get("mbs2"), "reference: 'qwen3-0.6b/H200/refx' does not exist in the registry"));
  EXPECT_EQ(fix_of(b.get("mbs2"), "reference.missing"),
            "did you mean 'qwen3-0.6b/H200/ref'? (name a recipe of the registry)");
  // Nothing within reach of a far-off name: no guess.
  s.replace(s.recipe("mbs2") / "recipe.yaml", "reference: refx", "reference: something-else-entirely");
  EXPECT_EQ(fix_of(build(s.root).get("mbs2"), "reference.missing"), "name a recipe of the registry");
}

TEST(BuildBadInput, references_that_form_a_cycle) {
  Scratch s;
  s.replace(s.recipe("ref") / "recipe.yaml", "reference: null", "reference: mbs2");
  auto b = build(s.root);
  EXPECT_TRUE(gives_reason(
      b.get("ref"),
      "reference: the references form a cycle: qwen3-0.6b/H200/ref → qwen3-0.6b/H200/mbs2 → qwen3-0.6b/H200/ref"));
  EXPECT_TRUE(has_reason(b.get("mbs2"), "form a cycle"));
  EXPECT_TRUE(has_reason(b.get("lr10"), "form a cycle"));  // its reference is in the cycle
  EXPECT_FALSE(b.get("mbs2").verified);
}

TEST(BuildBadInput, evidence_path_that_escapes_the_recipe_folder) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "log: {path: evidence/train.log",
            "log: {path: ../ref/evidence/train.log");
  s.replace(s.recipe("lr10") / "recipe.yaml", "versions: {path: evidence/env.txt", "versions: {path: /etc/passwd");
  auto b = build(s.root);
  EXPECT_TRUE(gives_reason(b.get("mbs2"), "path '../ref/evidence/train.log' leaves the recipe's folder"));
  EXPECT_TRUE(gives_reason(b.get("lr10"), "absolute path '/etc/passwd' is not allowed"));
}

TEST(BuildBadInput, truncated_log) {
  Scratch s;
  s.edit(s.recipe("mbs2") / "evidence/train.log",
         [](std::string text) { return text.substr(0, text.find("iteration       17/") + 40); });
  EXPECT_TRUE(
      gives_reason(build(s.root).get("mbs2"), "measurement: evidence/train.log:1223: training_log line is cut off"));
}

TEST(BuildBadInput, log_with_no_per_step_lines) {
  Scratch s;
  s.edit(s.recipe("mbs2") / "evidence/train.log",
         [](std::string text) { return std::regex_replace(text, std::regex(".*iteration +[0-9]+/ +20 \\|.*\n"), ""); });
  EXPECT_TRUE(gives_reason(build(s.root).get("mbs2"), "no per-step training_log lines"));
}

TEST(BuildBadInput, nan_or_skipped_step_inside_the_window) {
  Scratch s;
  s.edit(s.recipe("mbs2") / "evidence/train.log", [](std::string text) {
    text.replace(text.find("number of nan iterations:   0", text.find("iteration       10/")), 29,
                 "number of nan iterations:   1");
    text.replace(text.find("number of skipped iterations:   0", text.find("iteration       12/")), 33,
                 "number of skipped iterations:   1");
    return text;
  });
  EXPECT_TRUE(
      gives_reason(build(s.root).get("mbs2"), "step 9 has a nan loss or gradient inside the measured window 5–19"));
}

TEST(BuildBadInput, missing_step_and_zero_step_time) {
  Scratch s;
  s.edit(s.recipe("mbs2") / "evidence/train.log",
         [](std::string text) { return std::regex_replace(text, std::regex(".*iteration +13/ +20 \\|.*\n"), ""); });
  s.replace(s.recipe("lr10") / "evidence/train.log", "(ms): 6384.1", "(ms): 0.0");
  auto b = build(s.root);
  EXPECT_TRUE(
      has_reason(b.get("mbs2"), "measurement: evidence/train.log: step 12 of the measured window 5–19 is missing"))
      << reasons_of(b.get("mbs2"));
  EXPECT_TRUE(gives_reason(b.get("mbs2"), "convergence check: failed: step 12 has no loss in the recipe's arm"));
  EXPECT_TRUE(gives_reason(b.get("lr10"), "step 5 has step time 0 s; it must be positive"));
}

TEST(BuildBadInput, malformed_gpus_table_stops_the_build) {
  Scratch s;
  s.replace(s.root / "gpus.yaml", "dense_bf16_tflops: 989\n", "dense_bf16_tflops: lots\n");
  try {
    load_registry(s.root);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gpus.yaml:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dense_bf16_tflops: expected a number"), std::string::npos) << e.what();
  }
}

TEST(BuildBadInput, layout_that_disagrees_with_the_argument_dump) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "micro_batch: 2}", "micro_batch: 4}");
  auto b = build(s.root);
  EXPECT_TRUE(
      has_reason(b.get("mbs2"),
                 "layout: the recipe records the micro-batch size = 4, but its argument dump has micro_batch_size = 2"))
      << reasons_of(b.get("mbs2"));
}

TEST(BuildBadInput, stack_version_the_evidence_contradicts) {
  Scratch s;
  s.replace(s.recipe("mbs2") / "recipe.yaml", "pytorch: 2.11.0+cu130", "pytorch: 2.12.0");
  EXPECT_TRUE(gives_reason(build(s.root).get("mbs2"),
                           "stack: the recipe says pytorch 2.12.0, but the evidence shows 2.11.0, 2.11.0+cu130 "
                           "(evidence/env.txt and evidence/train.log)"));
}

TEST(BuildBadInput, include_unverified_ranks_measured_recipes_for_a_preview) {
  auto b = build(bundled());
  auto pairs = build_pairs(b.reg, b.results, true);
  ASSERT_EQ(pairs[0].ranked.size(), 3u);
  EXPECT_EQ(pairs[0].ranked[2]->id, "qwen3-0.6b/H200/lr10");  // slowest
  EXPECT_EQ(pairs[0].unranked.size(), 1u);                    // still listed with its reasons
}

}  // namespace
}  // namespace openrecipes::registry

namespace openrecipes::registry {
namespace {

// docs/memory-model.md "The rules": build applies the model's own layout rules to the run's argument dump. 16 heads
// cannot form 7 query groups: Megatron-LM refuses that shape at start-up, so a dump that shows it was edited.
TEST(EvaluateModelRules, ADumpWhoseShapeMegatronRefusesIsNotVerified) {
  scratch::Scratch s;
  s.replace(s.recipe("mbs2") / "evidence/train.log", "num_query_groups ................................ 8",
            "num_query_groups ................................ 7");
  const auto b = scratch::build(s.root);
  const auto& r = b.get("mbs2");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(scratch::gives_reason(r, "the 16 attention heads do not split into 7 query groups"));
  EXPECT_FALSE(scratch::has_reason(b.get("ref"), "breaks a rule of its model"));
}

}  // namespace
}  // namespace openrecipes::registry
