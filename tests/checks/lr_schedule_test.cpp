// Megatron-LM's learning-rate schedule from the argument dump, checked against the rates the real H200 logs print
// and against hand calculations.
#include "checks/lr_schedule.h"

#include <cmath>
#include <numbers>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "evidence/megatron_args.h"
#include "evidence/step_log.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

std::filesystem::path run_log(const char* run) {
  return testing::fixtures_dir() / "runs/megatron-h200" / (std::string(run) + ".log");
}

std::map<std::string, std::string> dump(const char* run) {
  return evidence::parse_megatron_args(read_file(run_log(run)), run_log(run).string()).values;
}

StepLog log_of(const char* run) { return evidence::read_step_log(run_log(run), "megatron", 1); }

std::map<std::string, std::string> schedule(const std::string& style) {
  // lr 1e-3 to min_lr 1e-4 over 100 iterations after a 10-iteration warmup from 0.
  return {{"lr", "0.001"},           {"min_lr", "0.0001"},           {"lr_decay_style", style},
          {"train_iters", "1000"},   {"lr_decay_iters", "100"},      {"lr_warmup_iters", "10"},
          {"lr_warmup_init", "0.0"}, {"lr_warmup_fraction", "None"}, {"rampup_batch_size", "None"},
          {"decoupled_lr", "None"}};
}

TEST(LrSchedule, cosine_without_warmup_gives_the_rate_the_ref_log_prints_at_iteration_1) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // ref: lr 1e-05, min_lr 1e-06, cosine over train_iters 20, no warmup. Iteration 1: r = 1/20.
  const double hand = 1e-6 + 9e-6 * 0.5 * (1 + std::cos(std::numbers::pi / 20));  // 9.944596e-06
  auto got = megatron_learning_rate(dump("ref"), 1);
  ASSERT_TRUE(got.has_value());
  EXPECT_NEAR(*got, hand, 1e-18);
  EXPECT_NEAR(*got, 9.944598e-06, 1e-5 * 9.944598e-06);  // what ref.log prints
}

TEST(LrSchedule, every_rate_the_real_logs_print_follows_their_own_dump) {
  OPENRECIPES_REQUIRE_FIXTURES();
  for (const char* run : {"ref", "mbs2", "lr10"}) {
    auto log = log_of(run);
    std::size_t with_rate = 0;
    for (const auto& r : log.records) with_rate += r.learning_rate.has_value();
    EXPECT_EQ(with_rate, 20u) << run;
    EXPECT_TRUE(check_logged_learning_rates(dump(run), log).empty()) << run;
  }
}

TEST(LrSchedule, a_log_whose_dump_was_swapped_for_another_runs_is_caught_naming_line_and_rates) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // lr10 ran with lr 1e-4; pretending its dump says 1e-5 (ref's) must not pass.
  auto problems = check_logged_learning_rates(dump("ref"), log_of("lr10"));
  // Iterations 1-19 differ; at iteration 20 both schedules have decayed to the same min_lr 1e-06.
  ASSERT_EQ(problems.size(), 4u);  // three named, then the count of the other 16
  EXPECT_NE(problems[0].find("lr10.log:"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("at iteration 1, but the argument dump's schedule (lr 1e-05"), std::string::npos)
      << problems[0];
  EXPECT_EQ(problems[3], "and 16 more iterations like these");
}

TEST(LrSchedule, an_fp16_log_with_skipped_iterations_follows_the_schedule_shifted_by_the_skips) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // The public fp16 7B log (log interval 10) skips 10, 5, 0, 0, 1 iterations in its first five intervals while
  // the loss scale settles; Megatron steps the scheduler only on successful updates. Its printed rates are a
  // linear warmup of lr 3e-4 over 2150 iterations: iteration 20 after 15 skips prints 3e-4 x 5 / 2150 =
  // 6.976744E-07 and iteration 100 after 16 skips 3e-4 x 84 / 2150 = 1.172093E-05. Unshifted, iteration 20
  // would be 3e-4 x 20 / 2150 = 2.790698E-06.
  const std::map<std::string, std::string> args{
      {"lr", "0.0003"},          {"min_lr", "3e-05"},           {"lr_decay_style", "cosine"},
      {"train_iters", "500000"}, {"lr_decay_iters", "None"},    {"lr_warmup_iters", "2150"},
      {"lr_warmup_init", "0.0"}, {"lr_warmup_fraction", "None"}};
  auto log = evidence::read_step_log(testing::fixtures_dir() / "logs/mdk-gpt3-7b-fp16-1node.log", "megatron", 10);
  ASSERT_EQ(log.records.size(), 10u);
  EXPECT_TRUE(check_logged_learning_rates(args, log).empty());
  auto wrong = args;
  wrong["lr_warmup_iters"] = "1000";
  auto problems = check_logged_learning_rates(wrong, log);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("at iteration 20 (15 skipped before it)"), std::string::npos) << problems[0];
}

TEST(LrSchedule, rates_printed_with_four_significant_digits_by_older_megatron_pass) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // Older Megatron prints '{:.3E}': 9.944598E-06 becomes 9.945E-06, 4e-5 relative, inside the 6e-4 tolerance.
  auto log = log_of("ref");
  for (auto& r : log.records)
    if (r.learning_rate) r.learning_rate = std::stod(fmt::format("{:.3E}", *r.learning_rate));
  EXPECT_TRUE(check_logged_learning_rates(dump("ref"), log).empty());
}

TEST(LrSchedule, linear_warmup_then_linear_decay_by_hand) {
  auto a = schedule("linear");
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(a, 5), 0.0005);    // warmup: 0 + 1e-3 × 5/10
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(a, 10), 0.001);    // end of warmup
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(a, 55), 0.00055);  // r = 45/90 = 0.5: 1e-4 + 0.5 × 9e-4
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(a, 100), 0.0001);  // r = 1
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(a, 101), 0.0001);  // past the decay: min_lr
}

TEST(LrSchedule, cosine_and_constant_and_warmup_fraction_by_hand) {
  auto c = schedule("cosine");
  EXPECT_NEAR(*megatron_learning_rate(c, 55), 0.00055, 1e-15);  // cos(π/2) = 0
  EXPECT_NEAR(*megatron_learning_rate(c, 32), 1e-4 + 9e-4 * 0.5 * (1 + std::cos(std::numbers::pi * 22.0 / 90.0)),
              1e-15);
  auto k = schedule("constant");
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(k, 3), 0.0003);  // warmup still applies
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(k, 500), 0.001);
  auto f = schedule("linear");
  f["lr_warmup_iters"] = "0";
  f["lr_warmup_fraction"] = "0.2";  // 0.2 × 100 = 20 warmup iterations
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(f, 10), 0.0005);
  EXPECT_DOUBLE_EQ(*megatron_learning_rate(f, 60), 0.00055);  // r = 40/80
}

TEST(LrSchedule, schedules_it_does_not_model_claim_nothing) {
  auto wsd = schedule("WSD");
  EXPECT_FALSE(megatron_learning_rate(wsd, 5).has_value());
  auto ramp = schedule("cosine");
  ramp["rampup_batch_size"] = "['16', '16', '1000']";
  EXPECT_FALSE(megatron_learning_rate(ramp, 5).has_value());
  auto samples = schedule("cosine");
  samples["train_iters"] = "None";
  EXPECT_FALSE(megatron_learning_rate(samples, 5).has_value());
  StepLog log;
  log.file = "x.log";
  StepRecord r;
  r.learning_rate = 123.0;
  log.records.push_back(r);
  EXPECT_TRUE(check_logged_learning_rates(wsd, log).empty());
}

}  // namespace
}  // namespace openrecipes::checks
