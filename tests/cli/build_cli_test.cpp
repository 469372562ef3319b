// The `openrecipes` executable as a user runs it: exit codes (0 ok, 1 a check failed, 2 bad input) and output.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/atomic_output.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;
using testing::run_cli;

std::string registry() { return (testing::source_dir() / "registry").string(); }

TEST(BuildCli, main_job_prints_the_ranked_pair_and_the_rejected_recipe) {
  auto r = run_cli({"build", registry()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              ::testing::HasSubstr("Qwen3-0.6B · H200 · workload megatron-mock-seq2048-gbs32 [non-standard workload]"));
  auto first = r.out.find("     1  mbs2");
  auto second = r.out.find("     2  ref");
  ASSERT_NE(first, std::string::npos) << r.out;
  ASSERT_NE(second, std::string::npos) << r.out;
  EXPECT_LT(first, second);
  EXPECT_NE(r.out.find("23,232.7"), std::string::npos);  // mbs2 tokens/s/GPU
  EXPECT_NE(r.out.find("12,395.4"), std::string::npos);  // ref
  EXPECT_THAT(r.out, ::testing::HasSubstr("not ranked:\n    lr10\n"));
  EXPECT_NE(r.out.find("lr changed from 1e-05 to 0.0001"), std::string::npos);
}

// Runs `args` with the working directory set to an empty temporary folder (no ./registry there).
testing::ProcessResult run_cli_elsewhere(const std::vector<std::string>& args) {
  testing::TempDir d;
  const auto here = fs::current_path();
  fs::current_path(d.path());
  auto r = run_cli(args);
  fs::current_path(here);
  return r;
}

TEST(BuildCli, without_a_registry_argument_it_ranks_the_bundled_registry_from_any_directory) {
  auto r = run_cli_elsewhere({"build"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("     1  mbs2"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("GPU-h/run"));
}

TEST(BuildCli, check_config_finds_the_bundled_argument_rules_from_any_directory) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const auto runs = testing::fixtures_dir() / "runs" / "megatron-h200";
  auto r = run_cli_elsewhere({"check", "config", (runs / "lr10.log").string(), (runs / "ref.log").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // lr is math: ineligible
  EXPECT_THAT(r.out, ::testing::HasSubstr("lr changed from 1e-05 to 0.0001"));
}

TEST(BuildCli, json_output_is_deterministic_and_complete) {
  auto a = run_cli({"build", registry(), "--json"});
  auto b = run_cli({"build", registry(), "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  auto j = nlohmann::json::parse(a.out);
  ASSERT_EQ(j["pairs"].size(), 2u);  // the mock-data pair first (by workload key), then the fixture rows
  const auto& p = j["pairs"][0];
  EXPECT_TRUE(p["non_standard_workload"].get<bool>());
  ASSERT_EQ(p["ranked"].size(), 2u);
  EXPECT_EQ(p["ranked"][0]["id"], "qwen3-0.6b/H200/mbs2");
  EXPECT_EQ(p["ranked"][0]["rank"], 1);
  EXPECT_EQ(p["ranked"][0]["checks"]["convergence"]["verdict"], "pass");
  EXPECT_EQ(p["unranked"][0]["checks"]["configuration"]["changes"][0]["argument"], "lr");
  EXPECT_DOUBLE_EQ(j["gpus"]["H200"]["dollars_per_gpu_hour"].get<double>(), 7.912);
}

TEST(BuildCli, output_folder_gets_the_site_of_the_json_and_strict_exits_1_on_a_rejected_recipe) {
  testing::TempDir d;
  auto r = run_cli({"build", registry(), "--strict", "-o", (d / "site").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(fs::exists(d / "site/index.html"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("wrote the site to"));
  // The site's board is build --json's, without the recipes that are not verified (SPEC §5).
  auto all = nlohmann::json::parse(run_cli({"build", registry(), "--json"}).out);
  auto site = nlohmann::json::parse(read_file(d / "site/data/leaderboard.json"));
  EXPECT_EQ(site["pairs"][0]["ranked"], all["pairs"][0]["ranked"]);
  EXPECT_EQ(all["pairs"][0]["unranked"].size(), 1u);
  EXPECT_EQ(site["pairs"][0]["unranked"].size(), 0u);
  // Its models are build --json's with each one's predicted starting points added: 4 GPU types x 6 GPU counts.
  auto models = site["models"];
  for (auto& [id, m] : models.items()) {
    EXPECT_EQ(m["starting_points"].size(), 24u) << id;
    m.erase("starting_points");
  }
  EXPECT_EQ(models, all["models"]);
}

TEST(BuildCli, an_empty_site_folder_name_is_a_usage_error) {
  auto r = run_cli({"build", registry(), "-o", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("an empty folder name"));
}

TEST(BuildCli, bad_registry_exits_2_with_a_message_and_no_stack_trace) {
  testing::TempDir d;
  auto r = run_cli({"build", (d / "nowhere").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("openrecipes: error:"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("not a registry folder"));
}

// Regression: a recipe whose command runs another program (as a plan.json edited to `bash -c` once made submit write)
// is never printed by relayout as the command to run.
TEST(BuildCli, relayout_refuses_a_command_that_breaks_the_program_policy) {
  testing::TempDir d;
  const fs::path dir = d / "recipes/qwen3-0.6b/H200/mbs2";
  fs::create_directories(dir.parent_path());
  fs::copy(testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/mbs2", dir, fs::copy_options::recursive);
  std::string y = read_file(dir / "recipe.yaml");
  const std::string from = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py";
  y.replace(y.find(from), from.size(), "bash -c 'id > /tmp/pwned' $MEGATRON_LM/pretrain_gpt.py");
  std::ofstream(dir / "recipe.yaml") << y;
  auto r = run_cli({"relayout", dir.string(), "--gpus", "8"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err,
              ::testing::HasSubstr(
                  "recipe.yaml: command: line 1, column 1: the command runs 'bash', not the framework's launcher"));
}

TEST(BuildCli, usage_error_exits_2) {
  EXPECT_EQ(run_cli({"build", "--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(run_cli({}).exit_code, 2);
}

TEST(MeasureCli, measures_a_megatron_log_with_its_own_argument_dump) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto r = run_cli({"measure", (testing::fixtures_dir() / "runs/megatron-h200/mbs2.log").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"], 1);           // world_size from the dump
  EXPECT_EQ(j["row_length"], 2048);  // seq_length
  EXPECT_EQ(j["global_batch"], 32);
  EXPECT_EQ(j["window"], nlohmann::json::array({5, 19}));
  // iterations 6..20 of mbs2.log (ms), by hand
  double sum = (2786.8 + 2472.7 + 2522.2 + 2648.6 + 2888.3 + 3248.5 + 2855.5 + 3131.6 + 3457.1 + 2705.8 + 2553.4 +
                2730.8 + 2754.0 + 2685.1 + 2872.4) /
               1000;
  EXPECT_NEAR(j["tokens_per_s_per_gpu"].get<double>(), 15 * 32 * 2048 / sum, 1e-9);
}

TEST(MeasureCli, window_that_cuts_a_logging_interval_exits_2_naming_it) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // The fp16 7B log (a 500,000-iteration run) has log interval 10: the window 5-19 cuts the interval of steps 0-9.
  // The log prints no argument dump, so it does not say its row length: measure needs one given (any length: the
  // window's error comes first).
  auto r = run_cli({"measure", (testing::fixtures_dir() / "logs/mdk-gpt3-7b-fp16-1node.log").string(), "--gpus", "8",
                    "--row-length", "2048", "--window", "5-19"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr(
                         "averages steps 0–9 (a logging interval of 10), which the measured window 5–19 cuts"));
  EXPECT_NE(r.err.find("--log-interval 1"), std::string::npos);
}

// Regression: measure assumed L 8,192 for a log without seq_length (a seq-2048 log scored 4x too high), and took --gpus
// and --row-length that contradict the argument dump without a word.
TEST(MeasureCli, it_refuses_to_guess_the_row_length_and_flags_that_contradict_the_dump) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const auto log = (testing::fixtures_dir() / "logs/mdk-gpt3-7b-fp16-1node.log").string();
  auto guess = run_cli({"measure", log, "--gpus", "8", "--window", "10-99"});
  EXPECT_EQ(guess.exit_code, 2);
  EXPECT_THAT(guess.err,
              ::testing::HasSubstr("the log does not say how long its rows are (no seq_length in an argument dump)"));
  EXPECT_NE(guess.err.find("fix: pass --row-length L"), std::string::npos);
  const auto ref = (testing::fixtures_dir() / "runs/megatron-h200/ref.log").string();  // seq_length 2048, 1 GPU
  auto gpus = run_cli({"measure", ref, "--gpus", "8"});
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_THAT(gpus.err, ::testing::HasSubstr("--gpus 8, but the log's argument dump records world_size 1"));
  auto row = run_cli({"measure", ref, "--row-length", "8192"});
  EXPECT_EQ(row.exit_code, 2);
  EXPECT_THAT(row.err, ::testing::HasSubstr("--row-length 8192, but the log's argument dump records seq_length 2048"));
  auto gbs = run_cli({"measure", ref, "--global-batch", "128"});
  EXPECT_EQ(gbs.exit_code, 2);
  EXPECT_THAT(gbs.err,
              ::testing::HasSubstr("--global-batch 128, but the log's argument dump records global_batch_size 32"));
  // The same values as the dump's are no contradiction.
  EXPECT_EQ(run_cli({"measure", ref, "--gpus", "1", "--row-length", "2048", "--global-batch", "32"}).exit_code, 0);
}

// Regression: `plan --model config.json` nested 100,000 levels deep crashed the process.
TEST(PlanCli, a_config_json_nested_100000_deep_is_refused_with_exit_2) {
  testing::TempDir d;
  const auto file = d / "config.json";
  write_file_atomic(file, std::string(100000, '[') + std::string(100000, ']'));
  auto r = run_cli({"plan", "--model", file.string(), "--gpu", "H200", "--gpus", "8"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(file.string() + ": JSON nested deeper than 64 levels (at byte 64)"), std::string::npos) << r.err;
  write_file_atomic(file, "{\"hidden_size\": 1, \"hidden_size\": 2}");
  r = run_cli({"plan", "--model", file.string(), "--gpu", "H200", "--gpus", "8"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("the key \"hidden_size\" appears twice"));
}

// Regression: `tune --budget nan` was accepted and cut every trial, --budget 99999999999 overflowed the deadline, and
// --dry-run accepted 0, -5, nan and inf that the real run refused.
TEST(TuneCli, the_budget_is_a_finite_number_of_minutes_up_to_a_week_in_the_dry_run_too) {
  const auto recipe = (testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/tulu3-ref").string();
  for (const char* budget : {"nan", "inf", "-inf", "0", "-5", "99999999999", "10081"})
    for (bool dry : {true, false}) {
      std::vector<std::string> args{"tune", recipe, "--gpus", "1", "--budget", budget};
      if (dry)
        args.push_back("--dry-run");
      else
        args.insert(args.end(), {"--launcher", "local", "-o", "/nonexistent/tune"});
      auto r = run_cli(args);
      EXPECT_EQ(r.exit_code, 2) << budget << (dry ? " dry: " : ": ") << r.out << r.err;
      EXPECT_NE(r.err.find("the budget is wall-clock minutes, above 0 and at most 10080 (a week)"), std::string::npos)
          << budget << ": " << r.err;
    }
  EXPECT_EQ(run_cli({"tune", recipe, "--gpus", "1", "--budget", "10080", "--dry-run"}).exit_code, 0);
}

// Regression: on 3 GPUs mbs2's own layout (micro-batch 2, 32 rows a step) gives DP 3, which does not divide 32;
// tune said "the planner and relayout disagree" and asked for a bug report. Its start is the recipe's own layout, so
// it says which rule breaks and the nearest counts that fit (32 / (2 x DP): DP 2 below, DP 4 above).
TEST(TuneCli, a_gpu_count_the_recipes_own_layout_does_not_fit_names_the_rule_and_the_nearest_counts) {
  const auto recipe = (testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/mbs2").string();
  auto r = run_cli({"tune", recipe, "--gpus", "3", "--dry-run"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err,
              ::testing::HasSubstr(
                  "qwen3-0.6b/H200/mbs2 on 3 GPUs: the layout does not fit: the global batch of 32 rows does not "
                  "divide by DP 3 (tune's start is the recipe's own layout on these GPUs)"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("nearest that fit: 2 below, 4 above"));
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
}

TEST(CheckCli, config_exits_1_when_ineligible_and_0_when_eligible) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto runs = testing::fixtures_dir() / "runs/megatron-h200";
  auto rules = (testing::source_dir() / "registry/rules/arguments.yaml").string();
  auto bad = run_cli({"check", "config", (runs / "lr10.log").string(), (runs / "ref.log").string(), "--rules", rules});
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_THAT(bad.out, ::testing::HasSubstr("lr changed from 1e-05 to 0.0001"));
  auto good = run_cli({"check", "config", (runs / "mbs2.log").string(), (runs / "ref.log").string(), "--rules", rules});
  EXPECT_EQ(good.exit_code, 0) << good.out;
}

TEST(CheckCli, convergence_exit_codes_and_golden_values_input) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto runs = testing::fixtures_dir() / "runs/megatron-h200";
  EXPECT_EQ(run_cli({"check", "convergence", (runs / "mbs2.log").string(), (runs / "ref.log").string()}).exit_code, 0);
  auto lr = run_cli({"check", "convergence", (runs / "lr10.log").string(), (runs / "ref.log").string(), "--json"});
  EXPECT_EQ(lr.exit_code, 1);
  auto j = nlohmann::json::parse(lr.out);
  EXPECT_EQ(j["pointwise_failures"], 3);
  auto golden = (testing::fixtures_dir() / "golden_values/mbridge-deepseek-fsdp-1node-gb200.golden.json").string();
  EXPECT_EQ(run_cli({"check", "convergence", golden, golden, "--format", "golden-values"}).exit_code, 0);
  EXPECT_EQ(run_cli({"check", "convergence", golden, (runs / "nope.log").string()}).exit_code, 2);
}

}  // namespace
}  // namespace openrecipes
