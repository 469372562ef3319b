// Verification rules that span recipes or catch impossible evidence (registry/evaluate.h): a reference must be
// verified itself, a pair has one reference recipe, MFU and the scheduler span must be physically possible, and
// a convergence arm must be the recipe's own run. Each case breaks a scratch copy of the bundled registry.
#include <cmath>
#include <regex>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using namespace scratch;  // Scratch, build, gives_reason, has_reason, reasons_of

// lr10b: a copy of lr10 (lr 1e-4, rejected against ref) that names lr10 as its reference, so against lr10 alone
// both of its checks pass. Its log is made another run's (one run is one recipe).
void add_lr10b(const Scratch& s) {
  s.copy_recipe("lr10", "lr10b");
  const auto y = s.recipe("lr10b") / "recipe.yaml";
  s.replace(y, "reference: ref", "reference: lr10");
  s.replace(y, "configuration: ineligible", "configuration: eligible");
  s.replace(y, "convergence: {verdict: fail, correlation: 0.9693, final_loss_rel_diff: 0.11417, pointwise_failures: 3}",
            "convergence: {verdict: pass}");
  s.another_run("lr10b");
}

// lr10b, and lr10c tuned from it (a run of its own): a chain ref <- lr10 <- lr10b <- lr10c that breaks at lr10.
void add_lr10b_and_lr10c(const Scratch& s) {
  add_lr10b(s);
  s.copy_recipe("lr10b", "lr10c");
  s.replace(s.recipe("lr10c") / "recipe.yaml", "reference: lr10", "reference: lr10b");
  s.another_run("lr10c");
}

TEST(ReferenceChain, recipe_tuned_from_an_unverified_recipe_is_not_verified_and_names_it) {
  Scratch s;
  add_lr10b(s);
  auto b = build(s.root);
  const auto& lr10b = b.get("lr10b");
  ASSERT_TRUE(lr10b.configuration && lr10b.configuration->eligible);  // against lr10 alone it would pass
  ASSERT_TRUE(lr10b.convergence && lr10b.convergence->passed);
  EXPECT_FALSE(lr10b.verified);
  EXPECT_TRUE(gives_reason(lr10b,
                           "reference: 'qwen3-0.6b/H200/lr10' is not verified (configuration check: ineligible: "
                           "lr changed from 1e-05 to 0.0001"));
  EXPECT_EQ(lr10b.reasons.size(), 1u) << reasons_of(lr10b);
  EXPECT_TRUE(b.get("mbs2").verified);  // a verified chain is untouched
}

TEST(ReferenceChain, break_two_links_up_is_named_through_the_chain) {
  Scratch s;
  add_lr10b_and_lr10c(s);
  auto b = build(s.root);
  const auto& c = b.get("lr10c");
  EXPECT_FALSE(c.verified);
  EXPECT_TRUE(gives_reason(c,
                           "reference: 'qwen3-0.6b/H200/lr10b' is not verified (it is tuned from "
                           "'qwen3-0.6b/H200/lr10', which is not verified: configuration check: ineligible"));
}

// evaluate_recipe evaluates one recipe and its reference chain: each recipe gets the very result the whole
// registry's evaluation gives it, a break two links up and a cycle included.
TEST(ReferenceChain, one_recipe_evaluated_alone_gets_the_result_the_whole_registry_gives_it) {
  Scratch s;
  add_lr10b_and_lr10c(s);
  for (const bool cycle : {false, true}) {
    SCOPED_TRACE(cycle ? "ref and mbs2 form a cycle" : "lr10c's chain breaks at lr10");
    if (cycle) s.replace(s.recipe("ref") / "recipe.yaml", "reference: null", "reference: mbs2");
    const auto b = build(s.root);
    ASSERT_EQ(b.results.size(), 5u);
    for (const auto& whole : b.results) {
      SCOPED_TRACE(whole.id);
      const RecipeResult alone = evaluate_recipe(b.reg, whole.id);
      EXPECT_EQ(alone.id, whole.id);
      EXPECT_EQ(alone.entry, whole.entry);
      EXPECT_EQ(alone.verified, whole.verified);
      EXPECT_EQ(reasons_of(alone), reasons_of(whole));
      EXPECT_EQ(alone.throughput.has_value(), whole.throughput.has_value());
      if (alone.throughput && whole.throughput) {
        EXPECT_EQ(alone.throughput->tokens_per_s_per_gpu, whole.throughput->tokens_per_s_per_gpu);
      }
    }
    EXPECT_FALSE(b.get("lr10c").verified);  // the chain's break reached it, so the comparison above saw one
  }
  const auto reg = load_registry(s.root);
  try {
    evaluate_recipe(reg, "qwen3-0.6b/H200/nope");
    ADD_FAILURE() << "an unknown id was evaluated";
  } catch (const openrecipes::InputError& e) {
    EXPECT_EQ(e.where(), reg.root.string());
    EXPECT_EQ(e.problem(), "the registry holds no recipe qwen3-0.6b/H200/nope");
  }
}

TEST(PairReference, second_root_in_a_pair_is_not_verified_and_the_most_used_root_stays_the_reference) {
  Scratch s;  // lr10 declares reference: null: ref has mbs2 tuned from it, lr10 none
  const auto y = s.recipe("lr10") / "recipe.yaml";
  s.replace(y, "reference: ref", "reference: null");
  s.replace(y, "configuration: ineligible", "configuration: eligible");
  s.replace(y, "convergence: {verdict: fail, correlation: 0.9693, final_loss_rel_diff: 0.11417, pointwise_failures: 3}",
            "convergence: {verdict: pass}");
  auto b = build(s.root);
  EXPECT_TRUE(b.get("ref").verified) << reasons_of(b.get("ref"));
  EXPECT_TRUE(b.get("ref").is_reference);
  const auto& lr10 = b.get("lr10");
  EXPECT_FALSE(lr10.verified);
  EXPECT_FALSE(lr10.is_reference);
  EXPECT_TRUE(gives_reason(lr10,
                           "reference: the pair already has the reference recipe 'qwen3-0.6b/H200/ref'; a second "
                           "reference would rank without any check"));
  auto pairs = build_pairs(b.reg, b.results, false);
  ASSERT_EQ(pairs.size(), 1u);
  ASSERT_EQ(pairs[0].ranked.size(), 2u);  // mbs2, ref
  EXPECT_EQ(pairs[0].unranked.size(), 1u);
}

TEST(PairReference, roots_nobody_is_tuned_from_tie_break_by_earliest_date_then_id) {
  Scratch s;  // three roots, none with recipes tuned from it: lr10 has the earliest date
  for (const char* n : {"mbs2", "lr10"}) s.replace(s.recipe(n) / "recipe.yaml", "reference: ref", "reference: null");
  s.replace(s.recipe("lr10") / "recipe.yaml", "date: 2026-11-29", "date: 2026-11-28");
  auto b = build(s.root);
  EXPECT_TRUE(b.get("lr10").is_reference);
  EXPECT_TRUE(has_reason(b.get("mbs2"), "the pair already has the reference recipe 'qwen3-0.6b/H200/lr10'"));
  EXPECT_TRUE(has_reason(b.get("ref"), "the pair already has the reference recipe 'qwen3-0.6b/H200/lr10'"));
  // Same dates: the smallest id (lr10 < mbs2 < ref).
  s.replace(s.recipe("lr10") / "recipe.yaml", "date: 2026-11-28", "date: 2026-11-29");
  s.replace(s.recipe("mbs2") / "recipe.yaml", "date: 2026-11-29", "date: 2026-11-28");
  auto b2 = build(s.root);
  EXPECT_TRUE(b2.get("mbs2").is_reference);
  EXPECT_TRUE(has_reason(b2.get("lr10"), "the pair already has the reference recipe 'qwen3-0.6b/H200/mbs2'"));
}

TEST(Plausibility, mfu_above_100_percent_of_peak_is_a_measurement_reason) {
  Scratch s;  // the H200's dense BF16 peak set to 1 TFLOPS: every real run of the registry is then above it
  s.replace(s.root / "gpus.yaml", "dollars_per_gpu_hour: 7.912\n    dense_bf16_tflops: 989\n",
            "dollars_per_gpu_hour: 7.912\n    dense_bf16_tflops: 1\n");
  auto b = build(s.root);
  const auto& mbs2 = b.get("mbs2");
  // By hand: MFU = 6 N score / peak, N = 595,984,384 (Qwen3-0.6B), score 23,232.69 tokens/s/GPU (the bundled
  // test pins it): 6 x 595984384 x 23232.69 / 1e12 = 83.0779... = 8307.8%.
  ASSERT_NEAR(mbs2.throughput->tokens_per_s_per_gpu, 23232.69, 0.01);
  const double mfu = 6.0 * 595984384 * mbs2.throughput->tokens_per_s_per_gpu / 1e12;
  ASSERT_EQ(fmt::format("{:.1f}", 100 * mfu), "8307.8");
  EXPECT_NEAR(*mbs2.mfu, mfu, 1e-9);
  EXPECT_TRUE(gives_reason(mbs2,
                           "measurement: MFU 8307.8% is above 100% of the GPU's dense BF16 peak: the step times "
                           "cannot be right"));
  EXPECT_FALSE(mbs2.verified);
  EXPECT_TRUE(has_reason(b.get("ref"), "measurement: MFU "));  // 6 N x 12,395.4 / 1e12 = 4432.5%
}

TEST(Plausibility, scheduler_span_shorter_than_the_logged_step_times_is_a_measurement_reason) {
  Scratch s;
  s.write(s.recipe("mbs2") / "evidence/times.txt", "mbs2 rc=0 start=1795973164.0 end=1795973164.36\n");
  s.replace(s.recipe("mbs2") / "recipe.yaml", "gpu_hours: 0.024079", "gpu_hours: 0.0001");
  auto b = build(s.root);
  // The 20 step times of mbs2's log (ms), iterations 1..20, added by hand from evidence/train.log.
  std::string text = s.read(s.recipe("mbs2") / "evidence/train.log");
  double sum_ms = 0;
  int n = 0;
  std::regex re("iteration +[0-9]+/ +20 \\|.*?elapsed time per iteration \\(ms\\): ([0-9.]+)");
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it, ++n) sum_ms += std::stod((*it)[1]);
  ASSERT_EQ(n, 20);
  const auto& mbs2 = b.get("mbs2");
  EXPECT_TRUE(gives_reason(mbs2, fmt::format("measurement: the scheduler times span 0.36 s, less than the {:.2f} s the "
                                             "log's own step times add up to",
                                             sum_ms / 1000)));
  EXPECT_FALSE(mbs2.verified);
  EXPECT_TRUE(b.get("ref").verified) << reasons_of(b.get("ref"));
}

TEST(ArgumentDump, a_dump_edited_to_hide_a_learning_rate_change_is_caught_by_the_rates_the_log_prints) {
  Scratch s;  // lr10 ran with lr 1e-4; its dump is edited to say ref's 1e-5, so the configuration diff is empty
  s.replace(s.recipe("lr10") / "evidence/train.log", "  lr .............................................. 0.0001",
            "  lr .............................................. 1e-05");
  auto b = build(s.root);
  const auto& lr10 = b.get("lr10");
  ASSERT_TRUE(lr10.configuration && lr10.configuration->eligible) << reasons_of(lr10);
  EXPECT_FALSE(lr10.verified);
  // Iteration 1 of lr10 prints 9.939057E-05; the edited dump's cosine schedule gives
  // 1e-6 + 9e-6 × (1 + cos(π/20)) / 2 = 9.944598E-06.
  EXPECT_TRUE(gives_reason(lr10,
                           "evidence: evidence/train.log:1191: the log prints learning rate 9.939057E-05 at "
                           "iteration 1, but the argument dump's schedule (lr 1e-05, min_lr 1e-06, lr_decay_style "
                           "cosine) gives 9.944598E-06"));
  EXPECT_TRUE(b.get("mbs2").verified) << reasons_of(b.get("mbs2"));  // unedited logs agree with their dumps
}

TEST(ConvergenceArm, arm_that_is_a_byte_copy_of_the_reference_arm_is_a_reason) {
  Scratch s;  // lr10's convergence arm is ref's own train.log
  fs::copy_file(s.recipe("ref") / "evidence/train.log", s.recipe("lr10") / "evidence/arm.log");
  const auto y = s.recipe("lr10") / "recipe.yaml";
  s.replace(y, "  versions: {path: evidence/env.txt",
            "  convergence_arm: {path: evidence/arm.log, format: megatron}\n  versions: {path: evidence/env.txt");
  s.replace(y, "convergence: {verdict: fail, correlation: 0.9693, final_loss_rel_diff: 0.11417, pointwise_failures: 3}",
            "convergence: {verdict: pass}");
  auto b = build(s.root);
  const auto& lr10 = b.get("lr10");
  ASSERT_TRUE(lr10.convergence && lr10.convergence->passed);  // the copied curve matches, of course
  EXPECT_TRUE(gives_reason(lr10,
                           "convergence check: the recipe's arm is byte-identical to the reference's arm "
                           "'qwen3-0.6b/H200/ref/evidence/train.log'"));
  EXPECT_TRUE(gives_reason(lr10,
                           "convergence check: the arm's arguments differ from the measured run's: lr is 1e-05 in the "
                           "arm but 0.0001 in the measured run"));
  // A reference's arm is its own: no such reason (ref is not verified all the same: outside git, nothing tells whose
  // run the log is that lr10 files as its arm).
  EXPECT_FALSE(has_reason(b.get("ref"), "byte-identical to the reference's arm")) << reasons_of(b.get("ref"));
  EXPECT_TRUE(gives_reason(b.get("ref"), "its step log records the very steps"));
}

TEST(ConvergenceArm, separate_arm_with_other_math_arguments_than_the_measured_run_is_a_reason) {
  Scratch s;  // lr10's arm is mbs2's log: a different file from ref's, but run with lr 1e-05
  fs::copy_file(s.recipe("mbs2") / "evidence/train.log", s.recipe("lr10") / "evidence/arm.log");
  s.replace(s.recipe("lr10") / "recipe.yaml", "  versions: {path: evidence/env.txt",
            "  convergence_arm: {path: evidence/arm.log, format: megatron}\n  versions: {path: evidence/env.txt");
  auto b = build(s.root);
  const auto& lr10 = b.get("lr10");
  EXPECT_TRUE(has_reason(lr10, "convergence check: the arm's arguments differ from the measured run's: "));
  EXPECT_TRUE(gives_reason(lr10, "; lr is 1e-05 in the arm but 0.0001 in the measured run;"));
  EXPECT_FALSE(has_reason(lr10, "byte-identical")) << reasons_of(lr10);
  // A structural difference is one too: the arm must be the recipe's own layout, or another run (the reference's own
  // log with a byte added, say) could stand as its arm.
  EXPECT_TRUE(gives_reason(lr10, "micro_batch_size is 2 in the arm but 1 in the measured run"));
}

TEST(ConvergenceArm, separate_arm_differing_only_in_run_length_is_accepted) {
  Scratch s;  // mbs2's arm: its own log with the dump's train_iters changed (a longer measured run's arm)
  std::string text = s.read(s.recipe("mbs2") / "evidence/train.log");
  text = std::regex_replace(text, std::regex("train_iters \\.+ 20\n"),
                            "train_iters ..................................... 25\n");
  s.write(s.recipe("mbs2") / "evidence/arm.log", text);
  s.replace(s.recipe("mbs2") / "recipe.yaml", "  versions: {path: evidence/env.txt",
            "  convergence_arm: {path: evidence/arm.log, format: megatron}\n  versions: {path: evidence/env.txt");
  auto b = build(s.root);
  EXPECT_TRUE(b.get("mbs2").verified) << reasons_of(b.get("mbs2"));
}

// Regression (SPEC §3, §5): a Qwen3-0.6B run filed under a Llama-3.1-8B model file verified as that model's reference,
// MFU 56.4%.
TEST(ModelShape, a_run_filed_under_another_models_file_is_not_verified_and_names_each_difference) {
  Scratch s;
  // Llama 3.1 8B (../shared/fixtures/configs/Llama-3.1-8B/config.json), N counted by hand: 32 layers x (attention
  // 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040; MLP 3 x 4096 x 14336 = 176,160,768) + the untied output projection
  // 128256 x 4096 = 525,336,576: N = 7,504,658,432.
  s.write(s.root / "models/llama-3.1-8b.yaml",
          "name: Llama-3.1-8B\nfamily: llama3\ncheckpoint: {id: meta-llama/Llama-3.1-8B, revision: null}\n"
          "active_params:\n  n: 7504658432\n  counted_from: config\n  counting: by hand\n  breakdown:\n"
          "    attention: 1342177280\n    dense_mlp: 5637144576\n    output_projection: 525336576\n"
          "config:\n  model_type: llama\n  architectures: [LlamaForCausalLM]\n  hidden_size: 4096\n"
          "  intermediate_size: 14336\n  num_hidden_layers: 32\n  num_attention_heads: 32\n"
          "  num_key_value_heads: 8\n  vocab_size: 128256\n  tie_word_embeddings: false\n"
          "  attention_bias: false\n  mlp_bias: false\n"
          "layer_shape: {hidden_size: 4096, ffn_hidden_size: 14336, num_attention_heads: 32, num_query_groups: 8, "
          "kv_channels: 128}\nnotes: test\n");
  const auto to = s.root / "recipes/llama-3.1-8b/H200/ref";
  fs::create_directories(to.parent_path());
  fs::copy(s.recipe("ref"), to, fs::copy_options::recursive);
  fs::remove_all(s.recipe("ref"));  // the same run, moved: one copy of its evidence
  fs::remove_all(s.recipe("mbs2"));
  fs::remove_all(s.recipe("lr10"));
  s.replace(to / "recipe.yaml", "model: qwen3-0.6b", "model: llama-3.1-8b");
  auto b = build(s.root);
  const RecipeResult* r = nullptr;
  for (const auto& x : b.results)
    if (x.id == "llama-3.1-8b/H200/ref") r = &x;
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->verified);
  EXPECT_TRUE(gives_reason(*r, "the run did not train Llama-3.1-8B ("));
  for (const char* d : {"layers (num_layers): the model has 32, the run 28",
                        "hidden size (hidden_size): the model "
                        "has 4096, the run 1024",
                        "attention heads (num_attention_heads): the model has 32, the run 16",
                        "dense FFN width (ffn_hidden_size): the model has 14336, the run 3072",
                        "vocabulary (padded to a multiple of 128): the model has 128256 (128256), the run 151936"})
    EXPECT_TRUE(has_reason(*r, d)) << d << "\n" << reasons_of(*r);
}

TEST(ModelShape, the_bundled_runs_are_the_shape_of_their_model) {
  Scratch s({"ref", "mbs2", "lr10", "tulu3-ref", "tulu3-mbs16", "tulu3-tuned", "tulu3-cefusion"});
  auto b = build(s.root);
  for (const auto& r : b.results) EXPECT_FALSE(has_reason(r, "the run did not train")) << r.id;
}

// Regression (SPEC §5): a non-standard recipe's workload.rows forged to {count 1000000, sha256 000...bad} while its
// reference records {81, 30eb2706...} verified, ranked first, and its Reproduce box told users to verify against the
// forged sha.
TEST(ReferenceRows, a_recipe_whose_rows_are_not_its_references_is_not_verified_and_names_both) {
  Scratch s({"tulu3-ref", "tulu3-mbs16"});
  s.replace(s.recipe("tulu3-mbs16") / "recipe.yaml",
            "rows: {count: 81, sha256: 30eb27066ab49cc9eeef9edb3862a39c6d98649683cbfc9cfe28e19dbef4aca8}",
            "rows: {count: 1000000, sha256: " + std::string(61, '0') + "bad}");
  auto b = build(s.root);
  const auto& r = b.get("tulu3-mbs16");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, "workload.rows is {count: 1000000, sha256: " + std::string(61, '0') +
                                  "bad}, and its reference 'qwen3-0.6b/H200/tulu3-ref' records {count: 81, sha256: "
                                  "30eb27066ab49cc9eeef9edb3862a39c6d98649683cbfc9cfe28e19dbef4aca8}"));
  EXPECT_TRUE(b.get("tulu3-ref").verified);
  // Its review: leaving the rows out is no way around it.
  Scratch t({"tulu3-ref", "tulu3-mbs16"});
  t.replace(t.recipe("tulu3-mbs16") / "recipe.yaml",
            "  rows: {count: 81, sha256: 30eb27066ab49cc9eeef9edb3862a39c6d98649683cbfc9cfe28e19dbef4aca8}\n", "");
  auto c = build(t.root);
  EXPECT_TRUE(gives_reason(c.get("tulu3-mbs16"),
                           "workload.rows is not recorded, and its reference "
                           "'qwen3-0.6b/H200/tulu3-ref' records {count: 81, sha256: 30eb2706"));
}

}  // namespace
}  // namespace openrecipes::registry
