// Run length in the configuration check (PROTOCOL.md "Measurement"): a profiler run (25 steps, window 5–19) and a
// 14-step run (window 4–13) of the bundled mbs2 configuration, real H200 runs (tests/registry/data/run_length/
// SOURCE.txt), tuned from the 20-step reference `ref`, with and without a separate 20-step convergence arm.
#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "scratch_registry.h"
#include "testing/megatron_logs.h"

namespace openrecipes::registry {
namespace {

namespace fs = std::filesystem;
using namespace scratch;  // Scratch, build, gives_reason, has_reason, reasons_of

fs::path data() { return testing::source_dir() / "tests/registry/data/run_length"; }

// A recipe `id` in the scratch registry: mbs2's recipe with the measured log, times and environment of the real
// run `run` (data/run_length/<run>.log), its run length, and its claims as the run gives them. With `arm`, the
// 20-step run copied to evidence/arm.log is the recipe's separate convergence arm.
void add_run_length_recipe(const Scratch& s, const std::string& id, const std::string& run, int steps,
                           const std::string& claims, const fs::path& arm = {}) {
  s.copy_recipe("mbs2", id);
  const auto dir = s.recipe(id);
  fs::copy_file(data() / (run + ".log"), dir / "evidence/train.log", fs::copy_options::overwrite_existing);
  fs::copy_file(data() / "times.txt", dir / "evidence/times.txt", fs::copy_options::overwrite_existing);
  fs::copy_file(data() / "env.txt", dir / "evidence/env.txt", fs::copy_options::overwrite_existing);
  const auto y = dir / "recipe.yaml";
  s.replace(y, "steps_per_run: 20\n",
            steps == 14 ? "steps_per_run: 14\nwindow: {first: 4, last: 13}\n"
                        : "steps_per_run: " + std::to_string(steps) + "\n");
  s.replace(y, "format: launcher, run: mbs2}", "format: launcher, run: " + run + "}");
  s.replace(y, "--train-iters 20", "--train-iters " + std::to_string(steps));
  std::string yaml = s.read(y);
  yaml = yaml.substr(0, yaml.find("claims:\n")) + "claims:\n" + claims;
  s.write(y, yaml);
  if (!arm.empty()) {
    fs::copy_file(arm, dir / "evidence/arm.log");
    s.another_run(id, "evidence/arm.log");  // the recipe's own 20-step run (one run is one recipe)
    s.replace(y, "  versions: {path: evidence/env.txt",
              "  convergence_arm: {path: evidence/arm.log, format: megatron}\n  versions: {path: evidence/env.txt");
  }
}

// What the runs give. 25 steps: iterations 6..20 of mbs2-steps25-profile.log print 3350.2, 3256.3, 3277.9, 3112.9,
// 3329.1, 3201.3, 3300.0, 3441.5, 3596.2, 3411.0, 3069.4, 2939.0, 2883.1, 3082.4, 2926.0 ms: 48.1764 s for
// 15 × 32 × 2048 = 983,040 tokens on 1 GPU = 20,405.05 tokens/s/GPU; launch 1796133279.308 to 1796133458.789 =
// 0.049856 GPU-h. 14 steps: iterations 5..14 print 3467.1, 3152.8, 3581.3, 3317.2, 3122.2, 3542.4, 3671.7, 3142.9,
// 3194.6, 3167.3 ms: 33.3595 s for 655,360 tokens = 19,645.38 tokens/s/GPU; 0.022192 GPU-h. The convergence record
// is mbs2's arm against ref's (the bundled mbs2 recipe's claims).
const char* kConvergence =
    "  convergence: {verdict: pass, correlation: 1.0000, final_loss_rel_diff: 0.0000194, pointwise_failures: 0}\n";
std::string claims25(const char* configuration = "eligible", const char* convergence = kConvergence) {
  return std::string("  tokens_per_s_per_gpu: 20405.05\n  cv: 0.062183\n  gpu_hours: 0.049856\n  configuration: ") +
         configuration + "\n" + convergence;
}
std::string claims14() {
  return std::string(
             "  tokens_per_s_per_gpu: 19645.38\n  cv: 0.059805\n  gpu_hours: 0.022192\n  configuration: eligible\n") +
         kConvergence;
}

TEST(RunLength, hand_calculation_of_the_real_runs_scores) {
  const double t25[] = {3350.2, 3256.3, 3277.9, 3112.9, 3329.1, 3201.3, 3300.0, 3441.5,
                        3596.2, 3411.0, 3069.4, 2939.0, 2883.1, 3082.4, 2926.0};
  const double t14[] = {3467.1, 3152.8, 3581.3, 3317.2, 3122.2, 3542.4, 3671.7, 3142.9, 3194.6, 3167.3};
  double s25 = 0, s14 = 0;
  for (double t : t25) s25 += t / 1000;
  for (double t : t14) s14 += t / 1000;
  EXPECT_NEAR(15 * 32 * 2048 / s25, 20405.05, 0.01);
  EXPECT_NEAR(10 * 32 * 2048 / s14, 19645.38, 0.01);
  // The claimed CVs (population std / mean of the same times) and GPU-hours (times.txt: 1 GPU × (end − start)).
  auto cv = [](const double* t, int n) {
    double mean = 0, ss = 0;
    for (int i = 0; i < n; ++i) mean += t[i] / n;
    for (int i = 0; i < n; ++i) ss += (t[i] - mean) * (t[i] - mean) / n;
    return std::sqrt(ss) / mean;
  };
  EXPECT_NEAR(cv(t25, 15), 0.062183, 5e-7);
  EXPECT_NEAR(cv(t14, 10), 0.059805, 5e-7);
  EXPECT_NEAR((1796133458.788958266 - 1796133279.308312018) / 3600, 0.049856, 5e-7);
  EXPECT_NEAR((1796133538.683598534 - 1796133458.793349114) / 3600, 0.022192, 5e-7);
  Scratch s;
  add_run_length_recipe(s, "profile25", "mbs2-steps25-profile", 25, claims25(),
                        s.recipe("mbs2") / "evidence/train.log");
  add_run_length_recipe(s, "steps14", "mbs2-steps14", 14, claims14(), s.recipe("mbs2") / "evidence/train.log");
  auto b = build(s.root);
  ASSERT_TRUE(b.get("profile25").throughput && b.get("steps14").throughput);
  EXPECT_NEAR(b.get("profile25").throughput->tokens_per_s_per_gpu, 15 * 32 * 2048 / s25, 1e-6);
  EXPECT_NEAR(b.get("steps14").throughput->tokens_per_s_per_gpu, 10 * 32 * 2048 / s14, 1e-6);
  EXPECT_NEAR(b.get("profile25").throughput->cv, cv(t25, 15), 1e-12);
  EXPECT_NEAR(b.get("steps14").throughput->cv, cv(t14, 10), 1e-12);
  ASSERT_TRUE(b.get("profile25").gpu_hours && b.get("steps14").gpu_hours);
  EXPECT_NEAR(*b.get("profile25").gpu_hours, (1796133458.788958266 - 1796133279.308312018) / 3600, 1e-9);
}

TEST(RunLength, profiler_recipe_with_its_own_20_step_arm_is_verified_with_train_iters_as_bookkeeping) {
  Scratch s;
  add_run_length_recipe(s, "profile25", "mbs2-steps25-profile", 25, claims25(),
                        s.recipe("mbs2") / "evidence/train.log");
  auto b = build(s.root);
  const auto& r = b.get("profile25");
  EXPECT_TRUE(r.verified) << reasons_of(r);
  ASSERT_TRUE(r.configuration);
  bool train_iters = false;
  for (const auto& c : r.configuration->changes) {
    if (c.name != "train_iters") continue;
    train_iters = true;
    EXPECT_EQ(c.reference_value, "20");
    EXPECT_EQ(c.recipe_value, "25");
    EXPECT_TRUE(c.accepted);
    EXPECT_EQ(c.classification.cls, checks::ArgClass::bookkeeping);
    EXPECT_EQ(c.note,
              "bookkeeping (ignored): run length: the recipe's convergence arm evidence/arm.log is a separate "
              "20-step run whose arguments equal the reference's in every math argument");
  }
  EXPECT_TRUE(train_iters);
  ASSERT_TRUE(r.convergence);
  EXPECT_TRUE(r.convergence->passed);
}

TEST(RunLength, fourteen_step_recipe_with_its_own_20_step_arm_is_verified) {
  Scratch s;
  add_run_length_recipe(s, "steps14", "mbs2-steps14", 14, claims14(), s.recipe("mbs2") / "evidence/train.log");
  auto b = build(s.root);
  EXPECT_TRUE(b.get("steps14").verified) << reasons_of(b.get("steps14"));
}

TEST(RunLength, profiler_recipe_without_an_arm_is_not_verified_and_says_why) {
  Scratch s;
  add_run_length_recipe(s, "profile25", "mbs2-steps25-profile", 25,
                        claims25("ineligible", "  convergence: {verdict: fail}\n"));
  auto b = build(s.root);
  const auto& r = b.get("profile25");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, "configuration check: ineligible: train_iters changed from 20 to 25 — math"));
  EXPECT_TRUE(gives_reason(r,
                           "convergence check: cannot run: the recipe's arm: the measured run ran 25 steps, so it is "
                           "not a convergence arm"));
}

TEST(RunLength, fourteen_step_recipe_without_an_arm_is_not_verified_and_says_why) {
  Scratch s;
  add_run_length_recipe(s, "steps14", "mbs2-steps14", 14, claims14());
  auto b = build(s.root);
  const auto& r = b.get("steps14");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, "configuration check: ineligible: train_iters changed from 20 to 14 — math"));
  EXPECT_TRUE(gives_reason(r, "the measured run ran 14 steps, so it is not a convergence arm"));
}

TEST(RunLength, arm_with_other_math_than_the_reference_keeps_run_length_math) {
  Scratch s;  // the arm is lr10's real 20-step run: lr 1e-4, so the arm does not show the reference's math
  add_run_length_recipe(s, "profile25", "mbs2-steps25-profile", 25, claims25(),
                        s.recipe("lr10") / "evidence/train.log");
  auto b = build(s.root);
  const auto& r = b.get("profile25");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, "train_iters changed from 20 to 25 — math"));
  EXPECT_TRUE(has_reason(r, "convergence check: the arm's arguments differ from the measured run's: "));
  EXPECT_TRUE(gives_reason(r, "; lr is 0.0001 in the arm but 1e-05 in the measured run;"));
}

TEST(RunLength, the_reference_log_with_a_byte_added_is_not_the_recipes_arm) {
  // ref's own run (micro-batch 1, selective recompute) with a newline appended: not byte-identical to ref's arm, and
  // equal to the reference in every math argument, but not the recipe's layout, so it is not the recipe's arm.
  Scratch s;
  s.write(s.dir.path() / "ref_plus_newline.log", s.read(s.recipe("ref") / "evidence/train.log") + "\n");
  add_run_length_recipe(s, "profile25", "mbs2-steps25-profile", 25, claims25(), s.dir.path() / "ref_plus_newline.log");
  auto b = build(s.root);
  const auto& r = b.get("profile25");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(
      has_reason(r,
                 "convergence check: the arm's arguments differ from the measured run's: eval_micro_batch_size is 1 "
                 "in the arm but 2 in the measured run; micro_batch_size is 1 in the arm but 2 in the "
                 "measured run; recompute_granularity is selective in the arm but None in the measured run"))
      << reasons_of(r);
}

TEST(RunLength, a_separate_arm_is_read_with_its_own_logging_interval) {
  // mbs2's real 20-step arm rewritten as if logged every 10 iterations (its dump says --log-interval 10, only the
  // lines of iterations 10 and 20 kept): read with its own interval, each record averages 10 steps, which no
  // convergence check can use; read with the measured run's interval 1 it would look like a run missing 18 steps.
  Scratch s;
  s.write(s.dir.path() / "interval10.log",
          testing::relogged_every(s.read(s.recipe("mbs2") / "evidence/train.log"), 10));
  add_run_length_recipe(s, "profile25", "mbs2-steps25-profile", 25, claims25(), s.dir.path() / "interval10.log");
  auto b = build(s.root);
  const auto& r = b.get("profile25");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(has_reason(r, "convergence check: cannot run: the recipe's arm: evidence/arm.log:"));
  EXPECT_TRUE(gives_reason(r,
                           "this record averages the loss over 10 steps; the convergence check needs the loss of "
                           "every step (fix: re-run the arm with --log-interval 1)"));
}

}  // namespace
}  // namespace openrecipes::registry
