// Megatron-LM training_log parser on every fixture log it applies to; expected values read from the logs by hand.
#include "evidence/megatron_log.h"

#include <cmath>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {
using testing::fixtures_dir;

std::string error_of(std::string_view text, std::optional<std::int64_t> interval = std::nullopt) {
  return testing::message_of([&] { parse_megatron_log(text, "t.log", interval); });
}

const char* kLine20 =
    " [2026-11-29 17:25:56.700199] iteration       20/      20 | consumed samples:          640 | elapsed time per "
    "iteration (ms): 5799.5 | throughput per GPU (TFLOP/s/GPU): 48.4 | learning rate: 1.000000E-06 | global batch "
    "size:    32 | lm loss: 1.132132E+01 | loss scale: 1.0 | grad norm: 6.979 | number of skipped iterations:   0 | "
    "number of nan iterations:   0 |";

TEST(MegatronLog, h200_ref_run_has_one_record_per_step_with_hand_read_values) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = fixtures_dir() / "runs/megatron-h200/ref.log";
  auto log = parse_megatron_log(read_file(path), path.string());
  ASSERT_EQ(log.records.size(), 20u);
  EXPECT_EQ(log.train_iters, 20);
  const auto& first = log.records.front();  // line 1191: iteration 1/20, 7179.1 ms, gbs 32, lm loss 1.213248E+01
  EXPECT_EQ(first.first_step, 0);
  EXPECT_EQ(first.steps, 1);
  EXPECT_DOUBLE_EQ(*first.time_s, 7.1791);
  EXPECT_EQ(*first.rows, 32);
  EXPECT_DOUBLE_EQ(*first.loss, 12.13248);
  EXPECT_EQ(first.line, 1191u);
  const auto& s9 = log.records[9];  // iteration 10: 5648.8 ms, lm loss 1.157654E+01
  EXPECT_EQ(s9.first_step, 9);
  EXPECT_DOUBLE_EQ(*s9.time_s, 5.6488);
  EXPECT_DOUBLE_EQ(*s9.loss, 11.57654);
  const auto& last = log.records.back();  // iteration 20: 5799.5 ms, lm loss 1.132132E+01
  EXPECT_EQ(last.first_step, 19);
  EXPECT_DOUBLE_EQ(*last.time_s, 5.7995);
  EXPECT_DOUBLE_EQ(*last.loss, 11.32132);
  EXPECT_EQ(last.skipped, 0);
  EXPECT_EQ(last.nan, 0);
}

TEST(MegatronLog, grad_norm_is_read_as_printed_nan_and_inf_included) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto log = parse_megatron_log(read_file(fixtures_dir() / "runs/megatron-h200/ref.log"), "ref.log");
  EXPECT_DOUBLE_EQ(*log.records[9].grad_norm, 2.950);  // iteration 10 prints "grad norm: 2.950"
  EXPECT_EQ(log.time_field, "elapsed time per iteration (ms)");
  std::string nan_line = kLine20;
  nan_line.replace(nan_line.find("grad norm: 6.979"), 16, "grad norm: nan");
  auto one = parse_megatron_log(nan_line, "x.log", 20);
  EXPECT_TRUE(std::isnan(*one.records[0].grad_norm));
  EXPECT_EQ(one.records[0].nan, 0);  // Megatron's counters did not see it
}

TEST(MegatronLog, h200_mbs2_and_lr10_runs_hand_read_values) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto mbs2 = parse_megatron_log(read_file(fixtures_dir() / "runs/megatron-h200/mbs2.log"), "mbs2.log");
  ASSERT_EQ(mbs2.records.size(), 20u);
  EXPECT_DOUBLE_EQ(*mbs2.records[9].time_s, 2.8883);  // iteration 10: 2888.3 ms
  EXPECT_DOUBLE_EQ(*mbs2.records[19].loss, 11.3211);  // iteration 20: lm loss 1.132110E+01
  auto lr10 = parse_megatron_log(read_file(fixtures_dir() / "runs/megatron-h200/lr10.log"), "lr10.log");
  ASSERT_EQ(lr10.records.size(), 20u);
  EXPECT_DOUBLE_EQ(*lr10.records[19].time_s, 6.2205);  // iteration 20: 6220.5 ms
  EXPECT_DOUBLE_EQ(*lr10.records[19].loss, 10.0288);   // lm loss 1.002880E+01
  EXPECT_DOUBLE_EQ(*lr10.records[4].time_s, 6.1414);   // iteration 5: 6141.4 ms
}

TEST(MegatronLog, fp16_log_interval_10_with_skipped_iterations_and_no_loss_field) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto log = parse_megatron_log(read_file(fixtures_dir() / "logs/mdk-gpt3-7b-fp16-1node.log"), "mdk.log");
  ASSERT_EQ(log.records.size(), 10u);
  EXPECT_EQ(log.train_iters, 500000);
  const auto& r0 = log.records[0];  // iteration 10: all 10 skipped, no "lm loss" field, 13035.3 ms, gbs 1024
  EXPECT_EQ(r0.first_step, 0);
  EXPECT_EQ(r0.steps, 10);
  EXPECT_EQ(r0.skipped, 10);
  EXPECT_FALSE(r0.loss.has_value());
  EXPECT_DOUBLE_EQ(*r0.time_s, 13.0353);
  EXPECT_EQ(*r0.rows, 1024);
  const auto& r1 = log.records[1];  // iteration 20: 5 skipped, lm loss 1.064275E+01
  EXPECT_EQ(r1.first_step, 10);
  EXPECT_EQ(r1.steps, 10);
  EXPECT_EQ(r1.skipped, 5);
  EXPECT_DOUBLE_EQ(*r1.loss, 10.64275);
  EXPECT_EQ(log.records[4].skipped, 1);  // iteration 50
  EXPECT_EQ(log.records[9].first_step, 90);
  EXPECT_DOUBLE_EQ(*log.records[9].time_s, 12.1043);  // iteration 100: 12104.3 ms
}

TEST(MegatronLog, dense_a100_log_interval_20_among_warnings) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto log = parse_megatron_log(read_file(fixtures_dir() / "logs/seo-dense-0.2b-a100.log"), "seo.log");
  ASSERT_EQ(log.records.size(), 10u);
  EXPECT_EQ(log.records[0].first_step, 0);
  EXPECT_EQ(log.records[0].steps, 20);
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 0.8266);  // iteration 20: 826.6 ms
  EXPECT_DOUBLE_EQ(*log.records[0].loss, 11.45711);
  EXPECT_EQ(*log.records[0].rows, 64);
  EXPECT_EQ(log.records[9].first_step, 180);  // iteration 200 covers iterations 181..200
  EXPECT_DOUBLE_EQ(*log.records[9].time_s, 0.2302);
}

TEST(MegatronLog, moe_a100_log_with_load_balancing_loss_field) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto log = parse_megatron_log(read_file(fixtures_dir() / "logs/seo-moe64-top1-ep4-a100.log"), "moe.log");
  ASSERT_EQ(log.records.size(), 15u);
  EXPECT_DOUBLE_EQ(*log.records[0].loss, 11.56039);  // lm loss, not load_balancing_loss 1.436231
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 1.639);
  EXPECT_EQ(log.records[14].first_step, 280);
}

TEST(MegatronLog, first_interval_comes_from_the_argument_dump_when_given) {
  std::string two = std::string(kLine20);
  auto log = parse_megatron_log(two, "t.log", 4);
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].first_step, 16);
  EXPECT_EQ(log.records[0].steps, 4);
  auto whole = parse_megatron_log(two, "t.log");  // a single line with no interval known covers the whole run
  EXPECT_EQ(whole.records[0].first_step, 0);
  EXPECT_EQ(whole.records[0].steps, 20);
}

TEST(MegatronLog, line_without_timestamp_parses) {
  std::string line =
      "iteration        3/      20 | elapsed time per iteration (ms): 100.5 | global batch size:    "
      "8 | lm loss: 2.5 | number of skipped iterations:   0 | number of nan iterations:   0 |";
  auto log = parse_megatron_log(line, "t.log", 1);
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].first_step, 2);
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 0.1005);
}

TEST(MegatronLog, nan_loss_is_read_as_nan) {
  std::string line =
      " [2026-01-01 00:00:00] iteration        1/      20 | elapsed time per iteration (ms): 10.0 | "
      "global batch size: 8 | lm loss: nan | number of skipped iterations:   0 | number of nan "
      "iterations:   1 |";
  auto log = parse_megatron_log(line, "t.log", 1);
  EXPECT_TRUE(std::isnan(*log.records[0].loss));
  EXPECT_EQ(log.records[0].nan, 1);
}

TEST(MegatronLog, truncated_log_is_an_error_naming_the_line) {
  std::string text = std::string(kLine20);
  text.resize(text.find("5799.5") + 2);  // cut inside the number: "...(ms): 57"
  auto m = error_of("warmup\n" + text);
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:2: training_log line is cut off"));
}

TEST(MegatronLog, log_with_no_per_step_lines_is_an_error) {
  auto m = error_of("[after training is done] datetime: 2026-11-29\n(after 20 iterations) memory (MB)\n");
  EXPECT_THAT(m, ::testing::HasSubstr("no per-step training_log lines"));
  EXPECT_THAT(m, ::testing::HasSubstr("--log-interval 1"));
}

TEST(MegatronLog, iterations_that_go_back_are_an_error) {
  std::string a = kLine20;
  auto m = error_of(a + "\n" + a + "\n");
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:2: iteration 20 does not follow iteration 20"));
}

TEST(MegatronLog, malformed_number_is_an_error) {
  std::string line = kLine20;
  line.replace(line.find("5799.5"), 6, "57x9.5");
  EXPECT_NE(error_of(line).find("'elapsed time per iteration (ms)' is not a number"), std::string::npos);
}

TEST(MegatronBridgeLog, step_time_line_gives_the_time_of_the_next_iteration) {
  std::string text =
      "Step Time : 2.94s GPU utilization: 487.3MODEL_TFLOP/s/GPU\n"
      " [2026-01-01 00:00:00] iteration        1/       3 | consumed samples: 8 | elapsed time per iteration (ms): "
      "2941.7 | learning rate: 1.0E-05 | global batch size:     8 | lm loss: 1.189415E+01 | loss scale: 1.0 | "
      "number of skipped iterations:   0 | number of nan iterations:   0 |\n"
      "Step Time : 0.28s GPU utilization: 252.8MODEL_TFLOP/s/GPU\n"
      " [2026-01-01 00:00:01] iteration        2/       3 | consumed samples: 16 | elapsed time per iteration (ms): "
      "284.2 | learning rate: 1.0E-05 | global batch size:     8 | lm loss: 1.189995E+01 | loss scale: 1.0 | "
      "number of skipped iterations:   0 | number of nan iterations:   0 |\n";
  auto log = parse_megatron_bridge_log(text, "b.log", 1);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 2.94);
  EXPECT_DOUBLE_EQ(*log.records[1].time_s, 0.28);
  EXPECT_DOUBLE_EQ(*log.records[1].loss, 11.89995);
  EXPECT_EQ(log.format, "megatron-bridge");
}

TEST(MegatronBridgeLog, iteration_without_step_time_is_an_error) {
  EXPECT_THAT(testing::message_of([&] { parse_megatron_bridge_log(kLine20, "b.log"); }),
              ::testing::HasSubstr("no 'Step Time : x.xxs' line before it"));
}

// A training_log line at iteration k of 20 with the given timestamp and elapsed time.
std::string line_at(int k, const std::string& stamp, const std::string& elapsed_ms, int n = 20) {
  return fmt::format(
      " [{}] iteration {:>8}/{:>8} | consumed samples: {} | elapsed time per iteration (ms): {} | "
      "global batch size:    32 | lm loss: 1.2E+01 | number of skipped iterations:   0 | number of "
      "nan iterations:   0 |\n",
      stamp, k, n, 32 * k, elapsed_ms);
}

TEST(MegatronLog, real_logs_agree_with_their_own_clock_within_the_bound) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // Each parses (the clock cross-check passes); the worst real line is ref.log's iteration 2 (1.207 s off).
  for (const char* f :
       {"runs/megatron-h200/ref.log", "runs/megatron-h200/mbs2.log", "runs/megatron-h200/lr10.log",
        "logs/mdk-gpt3-7b-fp16-1node.log", "logs/seo-dense-0.2b-a100.log", "logs/seo-moe64-top1-ep4-a100.log"}) {
    SCOPED_TRACE(f);
    EXPECT_NO_THROW(parse_megatron_log(read_file(fixtures_dir() / f), f));
  }
}

TEST(MegatronLog, a_first_steps_gpu_drain_counted_in_the_next_interval_is_not_an_edit) {
  // The bundled tulu3-ref run (Megatron-LM d98e8a64, one H200): iteration 1 stamped 01:24:59.518488 with 5458.3 ms,
  // iteration 2 stamped 01:25:01.233752 (1.715 s later) with 3586.8 ms: 1.872 s more than the clock, over the old
  // per-line bound of 10% x 3.587 + 1.5 + 1e-6 = 1.859 s; within it plus iteration 1's own 5.458 s.
  const auto f = testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/tulu3-ref/evidence/train.log";
  EXPECT_NO_THROW(parse_megatron_log(read_file(f), "train.log"));
  // By hand: 2 s of step time in 0.1 s of clock after a 5 s step: 1.9 s over, bound 10% x 2 + 1.5 (+1e-6) = 1.7 s,
  // plus the drain allowance of 5 s: passes. 2.5 s after a 0.3 s step: 2.4 s over, bound 0.25 + 1.5 + 0.3 = 2.05 s.
  EXPECT_NO_THROW(parse_megatron_log(
      line_at(1, "2026-01-01 00:00:00.000000", "5000.0") + line_at(2, "2026-01-01 00:00:00.100000", "2000.0"),
      "t.log"));
  auto m =
      error_of(line_at(1, "2026-01-01 00:00:00.000000", "300.0") + line_at(2, "2026-01-01 00:00:00.100000", "2500.0"));
  EXPECT_THAT(m, ::testing::HasSubstr(
                     "t.log:2: the timestamps say 0.100 s passed since line 1 (iteration 1), but the step times say "
                     "2.500 s"));
  // The clock running ahead of the step times (a shortened step) gets no allowance: 3 s of clock for 1 s of steps.
  m = error_of(line_at(1, "2026-01-01 00:00:00.000000", "5000.0") + line_at(2, "2026-01-01 00:00:03.000000", "1000.0"));
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:2: the timestamps say 3.000 s passed since line 1"));
}

TEST(MegatronLog, elapsed_time_that_contradicts_the_timestamps_is_an_error_naming_line_and_both_numbers) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // mbs2.log with iteration 2's elapsed time set to 1 ms (the tester's absurd-MFU case). Its stamps
  // 17:26:32.012116 (line 1185, iteration 1) and 17:26:34.594476 (line 1197) are 2.582360 s apart.
  std::string text = read_file(fixtures_dir() / "runs/megatron-h200/mbs2.log");
  auto at = text.find("(ms): 3538.7");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 13, "(ms): 1.0");
  auto m = error_of(text);
  EXPECT_THAT(m, ::testing::HasSubstr(
                     "t.log:1197: the timestamps say 2.582 s passed since line 1185 (iteration 1), but the step "
                     "times say 0.001 s (1 iteration x 1 ms)"));
  EXPECT_THAT(m, ::testing::HasSubstr("(fix: "));
}

TEST(MegatronLog, one_second_stamps_are_checked_over_the_span_not_per_line) {
  // 1 s stamps: line pairs 15 s and 5 s apart against 10 s each (off by 5 s, more than a per-line bound of
  // 10% x 15 + 1 + 1.5 = 4 s) are not checked one by one; the span, 20 s against 20 s, agrees.
  // (N = 40, so that iterations 10..30 lie inside the run.)
  std::string ok = line_at(10, "2024-01-01 00:00:00", "1000.0", 40) + line_at(20, "2024-01-01 00:00:15", "1000.0", 40) +
                   line_at(30, "2024-01-01 00:00:20", "1000.0", 40);
  EXPECT_NO_THROW(parse_megatron_log(ok, "t.log"));
  // Half the elapsed time: 20 iterations x 0.5 s = 10 s against a 20 s span; bound 10% x 20 + 1 + 1.5 = 4.5 s.
  std::string half = line_at(10, "2024-01-01 00:00:00", "500.0", 40) + line_at(20, "2024-01-01 00:00:10", "500.0", 40) +
                     line_at(30, "2024-01-01 00:00:20", "500.0", 40);
  auto m = error_of(half);
  EXPECT_THAT(m, ::testing::HasSubstr(
                     "t.log:3: the timestamps say 20.000 s passed from line 1 (iteration 10) to line 3 (iteration "
                     "30), but the step times in between sum to 10.000 s"));
}

TEST(MegatronLog, an_evaluation_or_checkpoint_save_between_lines_lets_the_clock_run_ahead_but_never_behind) {
  // Megatron stops its interval timer while it evaluates or saves a checkpoint: 60 s of wall clock for one
  // 1 s step is a pause, not an edit, when the log says it evaluated in between.
  const std::string eval = " validation loss at iteration 2 | lm loss value: 1.1E+01 | lm loss PPL: 6.0E+04 |\n";
  std::string paused = line_at(1, "2026-01-01 00:00:00.000000", "1000.0") +
                       line_at(2, "2026-01-01 00:00:01.000000", "1000.0") + eval +
                       line_at(3, "2026-01-01 00:01:01.000000", "1000.0");
  EXPECT_NO_THROW(parse_megatron_log(paused, "t.log"));
  const std::string save = " saving checkpoint at iteration       2 to /ckpt in torch_dist format\n";
  EXPECT_NO_THROW(parse_megatron_log(line_at(1, "2026-01-01 00:00:00.000000", "1000.0") +
                                         line_at(2, "2026-01-01 00:00:01.000000", "1000.0") + save +
                                         line_at(3, "2026-01-01 00:01:01.000000", "1000.0"),
                                     "t.log"));
  // Without the evaluation line the same log is refused: 60 s against 1 s, bound 10% x 60 + 1.5 s.
  EXPECT_NE(
      error_of(line_at(1, "2026-01-01 00:00:00.000000", "1000.0") + line_at(2, "2026-01-01 00:00:01.000000", "1000.0") +
               line_at(3, "2026-01-01 00:01:01.000000", "1000.0"))
          .find("t.log:3: the timestamps say 60.000 s passed since line 2"),
      std::string::npos);
  // Step times longer than the wall clock stay impossible across a pause: 30 s of steps in 1 s.
  auto m = error_of(line_at(1, "2026-01-01 00:00:00.000000", "1000.0") + eval +
                    line_at(2, "2026-01-01 00:00:01.000000", "30000.0"));
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:3: the timestamps say 1.000 s passed since line 1"));
}

TEST(MegatronLog, timestamp_that_is_not_a_date_is_an_error) {
  auto m = error_of(line_at(1, "2026-02-30 10:00:00", "100.0"));
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:1: timestamp '2026-02-30 10:00:00' is not a date or time of day"));
}

TEST(MegatronLog, iteration_beyond_the_run_length_is_an_error_naming_the_line) {
  std::string text =
      line_at(20, "2026-01-01 00:00:00.000000", "100.0") + line_at(21, "2026-01-01 00:00:00.100000", "100.0");
  auto m = error_of(text);
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:2: iteration 21 is beyond the run's length ('21/ 20')"));
  std::string huge = line_at(20, "2026-01-01 00:00:00", "100.0");
  huge += " [2026-01-01 00:00:01] iteration 9223372036854775808/      20 | elapsed time per iteration (ms): 100.0 |\n";
  m = error_of(huge);
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:2: iteration '9223372036854775808/ 20' is beyond any run length"));
}

TEST(MegatronLog, iteration_zero_error_says_how_to_fix_it) {
  auto m = error_of(line_at(0, "2026-01-01 00:00:00", "100.0"));
  EXPECT_THAT(
      m, ::testing::HasSubstr("t.log:1: iteration number must be at least 1 (this line says 0) (fix: Megatron counts "
                              "iterations from 1"));
}

TEST(MegatronLog, step_time_below_one_millisecond_is_an_error) {
  auto m = error_of(line_at(1, "2026-01-01 00:00:00", "0.5"));
  EXPECT_THAT(m, ::testing::HasSubstr("t.log:1: step time 0.5 ms is below 1 ms"));
}

TEST(MegatronLog, integer_field_error_says_how_to_fix_it) {
  std::string line = kLine20;
  line.replace(line.find("size:    32"), 11, "size:    1000000000000000000000000000000");
  auto m = error_of(line);
  EXPECT_THAT(m, ::testing::HasSubstr("'global batch size' is not an integer (or is beyond 2^63)"));
  EXPECT_THAT(m, ::testing::HasSubstr("(fix: "));
}

TEST(MegatronBridgeLog, step_time_that_contradicts_the_elapsed_time_of_its_line_is_an_error) {
  // Step Time 0.01 s against elapsed 2800 ms: they differ by far more than 0.005 s + 5% of 2.8 s.
  std::string text = "Step Time : 0.01s GPU utilization: 487.3MODEL_TFLOP/s/GPU\n" +
                     line_at(1, "2026-01-01 00:00:00.000000", "2800.0");
  EXPECT_THAT(testing::message_of([&] { parse_megatron_bridge_log(text, "b.log", 1); }),
              ::testing::HasSubstr("b.log:2: 'Step Time : 0.01s' (line 1) contradicts this line's 'elapsed "
                                   "time per iteration (ms): 2800'"));
  // 2.94 s against 2941.7 ms (a real pair) agrees.
  std::string real = "Step Time : 2.94s GPU utilization: 487.3MODEL_TFLOP/s/GPU\n" +
                     line_at(1, "2026-01-01 00:00:00.000000", "2941.7");
  EXPECT_NO_THROW(parse_megatron_bridge_log(real, "b.log", 1));
}

}  // namespace
}  // namespace openrecipes::evidence
