// `openrecipes measure` and `openrecipes check` as a user runs them on bad input: every mistake exits 2 with a
// message that names the option or file and the fix, and no number printed is inf or nan.
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/megatron_logs.h"
#include "testing/slime_runs.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;
using testing::run_cli;

std::string fixture(const std::string& name) {
  return (testing::fixtures_dir() / "runs/megatron-h200" / name).string();
}

std::string slurp(const std::string& path) {
  std::string out;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

// mbs2.log with every "iteration k/ 20" line announcing `n` iterations instead.
std::string mbs2_with_run_length(const std::string& n) {
  return std::regex_replace(slurp(fixture("mbs2.log")), std::regex("/      20 \\|"), "/ " + n + " |");
}

// A steps.jsonl of 20 steps with the given time and constant loss.
std::string steps_jsonl(const std::string& time_s, int steps = 20) {
  std::string out;
  for (int s = 0; s < steps; ++s)
    out += "{\"step\": " + std::to_string(s) + ", \"tokens\": 65536, \"time_s\": " + time_s + ", \"loss\": 1.2}\n";
  return out;
}

TEST(MeasureCli, zero_or_out_of_range_numeric_options_are_errors_not_defaults) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const std::vector<std::vector<std::string>> cases{
      {"--gpus", "0", "--gpus: 0 is out of range (fix: give a whole number from 1 to 100000)"},
      {"--gpus", "100001", "--gpus: 100001 is out of range (fix: give a whole number from 1 to 100000)"},
      {"--row-length", "0", "--row-length: 0 is out of range (fix: give a whole number from 1 to 4194304)"},
      {"--row-length", "4194305", "--row-length: 4194305 is out of range (fix: give a whole number from 1 to 4194304)"},
      {"--global-batch", "0", "--global-batch: 0 is out of range (fix: give a whole number from 1 to 16777216)"},
      {"--steps-per-run", "0", "--steps-per-run: 0 is out of range (fix: give a whole number from 1 to 100000)"},
  };
  for (const auto& c : cases) {
    auto r = run_cli({"measure", fixture("mbs2.log"), c[0], c[1]});
    EXPECT_EQ(r.exit_code, 2) << c[0] << " " << c[1];
    EXPECT_NE(r.err.find(c[2]), std::string::npos) << r.err;
  }
}

TEST(MeasureCli, steps_per_run_that_disagrees_with_the_logs_own_length_is_an_error) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto r = run_cli({"measure", fixture("mbs2.log"), "--steps-per-run", "14"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("--steps-per-run: 14 steps, but the log says the run has 20"));
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(run_cli({"measure", fixture("mbs2.log"), "--steps-per-run", "20"}).exit_code, 0);
}

TEST(MeasureCli, a_run_without_a_protocol_window_does_not_blame_an_option_the_user_did_not_pass) {
  OPENRECIPES_REQUIRE_FIXTURES();
  testing::TempDir d;
  auto log = d.write("long.log", mbs2_with_run_length("1000")).string();
  auto r = run_cli({"measure", log});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(log + ": a 1000-step run has no protocol window"), std::string::npos) << r.err;
  EXPECT_THAT(r.err, ::testing::HasSubstr("(fix: pass --window FIRST-LAST"));
  EXPECT_EQ(r.err.find("--window:"), std::string::npos) << r.err;
  auto w = run_cli({"measure", log, "--window", "5to19"});
  EXPECT_EQ(w.exit_code, 2);
  EXPECT_THAT(w.err, ::testing::HasSubstr("--window: '5to19' is not FIRST-LAST (fix: "));
  EXPECT_EQ(run_cli({"measure", log, "--window", "5-19"}).exit_code, 0);
}

TEST(MeasureCli, a_subnormal_step_time_is_an_error_and_nothing_infinite_is_printed) {
  testing::TempDir d;
  auto path = d.write("steps.jsonl", steps_jsonl("1e-320")).string();
  auto r = run_cli({"measure", path, "--format", "steps-jsonl", "--gpus", "1", "--row-length", "2048", "--global-batch",
                    "32", "--steps-per-run", "20"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":1: 'time_s' 1e-320 s is below 1 ms"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
}

TEST(CheckCli, a_convergence_arm_that_is_not_20_steps_is_an_error_naming_it) {
  OPENRECIPES_REQUIRE_FIXTURES();
  testing::TempDir d;
  auto arm = d.write("arm25.log", mbs2_with_run_length("25")).string();
  auto r = run_cli({"check", "convergence", arm, fixture("ref.log")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(arm + ": this arm ran 25 steps; the convergence check compares 20-step arms"), std::string::npos)
      << r.err;
  auto jsonl = d.write("arm25.jsonl", steps_jsonl("4.5", 25)).string();
  auto j = run_cli({"check", "convergence", jsonl, jsonl, "--format", "steps-jsonl"});
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_NE(j.err.find(jsonl + ":21: this arm has step 20, so it ran more than 20 steps"), std::string::npos) << j.err;
}

TEST(CheckCli, a_log_with_log_interval_10_is_read_with_its_interval_and_refused_as_build_refuses_it) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // A real public log (A100, --log-interval 10, 500,000 iterations): read as interval 1 its skipped-iteration
  // counts (10 in a line) looked edited. Read with its own interval it is simply not a 20-step arm.
  auto log = (testing::fixtures_dir() / "logs/mdk-gpt3-7b-fp16-1node.log").string();
  auto r = run_cli({"check", "convergence", log, fixture("ref.log")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(log + ": this arm ran 500000 steps; the convergence check compares 20-step arms"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("edited or damaged"), std::string::npos) << r.err;
  // A 20-step run logged every 10 iterations (mbs2.log's dump saying --log-interval 10, its lines for iterations 10
  // and 20 kept): the interval comes from the dump, and a record averaging 10 steps has no per-step loss.
  testing::TempDir d;
  auto arm = d.write("interval10.log", testing::relogged_every(slurp(fixture("mbs2.log")), 10)).string();
  auto m = run_cli({"measure", arm});  // measure reads the same interval: its window 5–19 cuts steps 0–9
  EXPECT_THAT(m.err, ::testing::HasSubstr("this record averages steps 0–9 (a logging interval of 10)"));
  auto c = run_cli({"check", "convergence", arm, fixture("ref.log")});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_THAT(c.err, ::testing::HasSubstr(
                         "this record averages the loss over 10 steps; the convergence check needs the loss of every "
                         "step (fix: re-run the arm with --log-interval 1)"));
}

TEST(CheckCli, a_golden_values_file_with_python_nan_fails_the_check_with_exit_1_not_2) {
  OPENRECIPES_REQUIRE_FIXTURES();
  testing::TempDir d;
  auto real = (testing::fixtures_dir() / "golden_values/mbridge-deepseek-fsdp-1node-gb200.golden.json").string();
  auto py = testing::run_process({testing::oracle_python(), "-c",
                                  "import json,sys\nd=json.load(open(sys.argv[1]))\nd['7']['lm loss']=float('nan')\n"
                                  "json.dump(d, open(sys.argv[2], 'w'))\n",
                                  real, (d.path() / "nan.json").string()});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  auto r = run_cli({"check", "convergence", (d.path() / "nan.json").string(), real, "--format", "golden-values"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("convergence check: fail"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("problem: step 7 loss is nan in the recipe's arm"));
}

TEST(MeasureCli, the_step_time_definition_of_each_log_format_is_printed) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto r = run_cli({"measure", fixture("ref.log")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr(
                         "  step time is  'elapsed time per iteration (ms)': Megatron-LM's timer of each training "
                         "iteration"));
  testing::TempDir d;
  std::string slime;
  for (int s = 0; s < 20; ++s)
    slime += "step " + std::to_string(s) + ": {'train/loss': 1.5, 'train/global_batch_size': 128}\nperf " +
             std::to_string(s) + ": {'perf/total_train_time': 4.5}\n";
  auto log = d.write("slime.log", slime).string();
  auto j = run_cli({"measure", log, "--format", "slime", "--gpus", "8", "--steps-per-run", "20", "--json"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  EXPECT_THAT(j.out,
              ::testing::HasSubstr("\"step_time_definition\": \"'perf/total_train_time' (perf/step_time's name before "
                                   "2025-10-30) = train_wait + train"));
}

TEST(MeasureCli, slime_and_miles_logs_give_the_gpu_count_and_run_length_from_their_argument_dump) {
  // A slime SFT run on 2 nodes x 4 GPUs, 3 rollouts of 128 prompts x 2 samples at 128 rows a step: slime sets
  // world_size = 2 x 4 = 8 and its actor trains 3 x 128 x 2 / 128 = 6 steps (model.py); rows stay the protocol's 8,192
  // tokens though the dump's seq_length is slime's 4096 placeholder.
  const std::string command =
      "python3 <slime entry module> --actor-num-nodes 2 --actor-num-gpus-per-node 4 --num-rollout 3 "
      "--rollout-batch-size 128 --n-samples-per-prompt 2 --global-batch-size 128 --loss-type sft_loss "
      "--debug-train-only --tensor-model-parallel-size 2";
  testing::TempDir d;
  for (const char* fw : {"slime", "miles"}) {
    const auto dump = testing::slime_dump_values(command, fw);
    ASSERT_EQ(dump.at("seq_length"), "4096");
    const auto log = d.write(std::string(fw) + ".log", testing::slime_run_log(dump, fw, 6, {1.5}, 4.0)).string();
    auto r = run_cli({"measure", log, "--format", fw, "--window", "1-4", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("gpus"), 8) << fw;
    EXPECT_EQ(j.at("steps_per_run"), 6) << fw;
    EXPECT_EQ(j.at("row_length"), 8192) << fw;
    // 128 rows x 8,192 tokens per 4.0 s step on 8 GPUs = 32,768 tokens/s/GPU.
    EXPECT_DOUBLE_EQ(j.at("tokens_per_s_per_gpu").get<double>(), 32768.0) << r.out;
    auto wrong = run_cli({"measure", log, "--format", fw, "--window", "1-4", "--steps-per-run", "20"});
    EXPECT_EQ(wrong.exit_code, 2);
    EXPECT_THAT(wrong.err, ::testing::HasSubstr("20 steps, but the log's argument dump gives a 6-step run"));
  }
  // A dump that claims more GPUs than a recipe may record is refused, not measured.
  auto dump = testing::slime_dump_values(command, "slime");
  dump["actor_num_nodes"] = "1000000", dump["actor_num_gpus_per_node"] = "8", dump["world_size"] = "8000000";
  const auto huge = d.write("huge.log", testing::slime_run_log(dump, "slime", 6, {1.5}, 4.0)).string();
  auto r = run_cli({"measure", huge, "--format", "slime", "--window", "1-4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("the argument dump gives 8000000 GPUs, beyond 100000"));
  // No run length in the dump (slime given --num-epoch, say): the message names what it read, and the fix.
  dump = testing::slime_dump_values(command, "slime");
  dump["num_rollout"] = "None";
  const auto epochs = d.write("epochs.log", testing::slime_run_log(dump, "slime", 6, {1.5}, 4.0)).string();
  auto e = run_cli({"measure", epochs, "--format", "slime", "--window", "1-4"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_THAT(e.err, ::testing::HasSubstr("num_rollout, start_rollout_id, rollout_batch_size, n_samples_per_prompt and "
                                          "global_batch_size give no run length"));
  EXPECT_THAT(e.err, ::testing::HasSubstr("pass --steps-per-run"));
}

TEST(CheckCli, constant_loss_curves_print_an_undefined_correlation_on_every_path) {
  OPENRECIPES_REQUIRE_FIXTURES();
  testing::TempDir d;
  auto flat_log = d.write("flat.log", std::regex_replace(slurp(fixture("mbs2.log")), std::regex("lm loss: [0-9.E+-]+"),
                                                         "lm loss: 1.200000E+00"))
                      .string();
  auto flat_jsonl = d.write("flat.jsonl", steps_jsonl("4.5")).string();
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"check", "convergence", flat_log, flat_log},
           {"check", "convergence", flat_jsonl, flat_jsonl, "--format", "steps-jsonl"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;  // upstream: nan >= 0.95 is false, so the correlation test fails
    EXPECT_THAT(r.out, ::testing::HasSubstr("correlation undefined (a constant curve)"));
    EXPECT_THAT(r.out, ::testing::HasSubstr("failed: correlation"));
    EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  }
}

TEST(CheckCli, an_unknown_model_family_is_an_error_listing_the_known_ones) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto r = run_cli({"check", "config", fixture("mbs2.log"), fixture("ref.log"), "--family", "evil"});
  EXPECT_EQ(r.exit_code, 2);
  // The families of the bundled model files and of the objective conventions, sorted.
  EXPECT_THAT(r.err, ::testing::HasSubstr("--family: unknown model family 'evil' (fix: use one of: deepseek-v3, "
                                          "deepseek-v3.2, glm4.5, glm5, gpt-oss, kimi-k2, llama3.1, qwen3, qwen3-next, "
                                          "qwen3.5, qwen3.6 ("));
  EXPECT_EQ(run_cli({"check", "config", fixture("mbs2.log"), fixture("ref.log"), "--family", "qwen3"}).exit_code, 0);
}

TEST(CheckCli, a_rules_path_that_is_not_a_rules_file_says_so) {
  OPENRECIPES_REQUIRE_FIXTURES();
  testing::TempDir d;
  auto passwd = d.write("passwd", "root:x:0:0:root:/root:/bin/bash\n").string();
  auto r = run_cli({"check", "config", fixture("mbs2.log"), fixture("ref.log"), "--rules", passwd});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(passwd + ": not an argument-rules file"), std::string::npos) << r.err;
  EXPECT_THAT(r.err, ::testing::HasSubstr("registry/rules/arguments.yaml"));
  EXPECT_EQ(r.err.find("recipe-format"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace openrecipes
