// Every model's starting points on the site the bundled registry builds (issue 43): each number follows from the
// predicted step by the formulas a measured recipe's follow, every layout's Megatron-LM flags read back as that layout
// with the project's own command reader, and every `openrecipes tune` command parses with the project's own reader
// and argument parser (the only complaint: the recipe the contributor has yet to write).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checks/framework_options.h"
#include "checks/megatron_arguments.h"
#include "core/files.h"
#include "layout/command.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// The published board of the bundled registry's site, built once for every test here.
const json& site_board() {
  static const json board = [] {
    static testing::TempDir d;
    auto r = testing::run_cli({"build", (testing::source_dir() / "registry").string(), "-o", (d / "site").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(read_file(d / "site/data/leaderboard.json"));
  }();
  return board;
}

// The words of a command as the project's reader splits it, each a plain literal (no variable, no quoting left).
std::vector<std::string> literal_words(const std::string& command) {
  std::vector<std::string> out;
  for (const auto& w : layout::split_command(command, "starting point")) {
    std::string text;
    for (const auto& p : w.parts) {
      EXPECT_EQ(p.kind, layout::WordPart::Kind::literal) << command;
      text += p.text;
    }
    out.push_back(text);
  }
  return out;
}

TEST(StartingPoints, every_model_has_one_per_gpu_type_and_count_and_its_numbers_follow_from_the_predicted_step) {
  const json& board = site_board();
  ASSERT_EQ(board["models"].size(), 23u);
  std::size_t fitting = 0;
  for (const auto& [id, m] : board["models"].items()) {
    SCOPED_TRACE(id);
    const json& points = m["starting_points"];
    ASSERT_EQ(points.size(), 4u * 6u);  // H100, H200, B200, A100 at 8, 16, 32, 64, 128, 256 GPUs
    for (const auto& sp : points) {
      const json& gpu = board["gpus"][sp["gpu"].get<std::string>()];
      const double G = sp["gpus"].get<double>();
      EXPECT_EQ(sp["nodes"], std::ceil(G / 8));
      if (!sp["fits"].get<bool>()) {
        // None fits: even the smallest peak is above what a layout may use of the GPU.
        EXPECT_GT(sp["smallest_peak_mib"].get<double>(), sp["usable_mib"].get<double>());
        EXPECT_EQ(sp["fitting"], 0);
        continue;
      }
      ++fitting;
      EXPECT_LE(sp["peak_memory_mib"].get<double>(), sp["usable_mib"].get<double>());
      // tokens/s/GPU = 128 rows × 8,192 tokens / (step × G); $/1M = rate / (tokens/s/GPU × 3,600) × 10^6;
      // MFU = 6 × N × tokens/s/GPU / (dense BF16 peak × 10^12). Each to the roundings of the JSON: the step to 0.1 ms
      // (a relative 0.05 ms / step), tokens/s/GPU to 0.1, $ and MFU to 10^-4.
      const double step = sp["step_time_s"].get<double>(), tokens = sp["tokens_per_s_per_gpu"].get<double>();
      EXPECT_NEAR(tokens, 128.0 * 8192 / (step * G), tokens * 0.5e-4 / step + 0.05);
      const double from_tokens = 0.05 / tokens + 0.5e-4 / step;  // tokens' own rounding, relative
      const double dollars = gpu["dollars_per_gpu_hour"].get<double>() / (tokens * 3600) * 1e6;
      EXPECT_NEAR(sp["dollars_per_million_tokens"].get<double>(), dollars, dollars * from_tokens + 0.5e-4);
      const double mfu =
          6 * m["active_params"].get<double>() * tokens / (gpu["dense_bf16_tflops"].get<double>() * 1e12);
      EXPECT_NEAR(sp["mfu"].get<double>(), mfu, mfu * from_tokens + 0.5e-4);
      // Each interval holds its value; a slower step is fewer tokens, more dollars and less MFU.
      for (const char* k : {"step_time_interval_s", "tokens_interval", "dollars_interval", "mfu_interval"}) {
        EXPECT_LE(sp[k][0].get<double>(), sp[k][1].get<double>()) << k;
      }
      EXPECT_LE(sp["step_time_interval_s"][0].get<double>(), step);
      EXPECT_GE(sp["step_time_interval_s"][1].get<double>(), step);
      EXPECT_LE(sp["tokens_interval"][0].get<double>(), tokens);
      EXPECT_GE(sp["tokens_interval"][1].get<double>(), tokens);
    }
  }
  EXPECT_GT(fitting, 200u);
}

TEST(StartingPoints, each_layouts_megatron_flags_read_back_as_that_layout) {
  const auto* table = checks::OptionTable::bundled("megatron-lm");
  ASSERT_NE(table, nullptr);
  for (const auto& [id, m] : site_board()["models"].items())
    for (const auto& sp : m["starting_points"]) {
      if (!sp["fits"].get<bool>()) continue;
      const std::string args = sp["megatron_args"].get<std::string>();
      SCOPED_TRACE(id + ": " + args);
      const auto a = checks::resolve_megatron_arguments(layout::split_command(args, "megatron_args"), *table,
                                                        sp["gpus"].get<std::int64_t>(), id);
      const json& l = sp["layout"];
      EXPECT_EQ(a.at("tensor_model_parallel_size"), std::to_string(l["tp"].get<int>()));
      EXPECT_EQ(a.at("pipeline_model_parallel_size"), std::to_string(l["pp"].get<int>()));
      EXPECT_EQ(a.at("context_parallel_size"), std::to_string(l["cp"].get<int>()));
      EXPECT_EQ(a.at("expert_model_parallel_size"), std::to_string(l["ep"].get<int>()));
      // Megatron prints ETP = TP whatever the experts; a dense model's layout has none to split: 1, as a dense run's
      // dump is read (layout::setup_from_arguments).
      const bool experts = m["layer_shape"].contains("num_experts");
      EXPECT_EQ(experts ? a.at("expert_tensor_parallel_size") : "1", std::to_string(l["etp"].get<int>()));
      EXPECT_EQ(a.at("micro_batch_size"), std::to_string(l["micro_batch"].get<int>()));
      EXPECT_EQ(a.at("sequence_parallel"), l["sequence_parallel"].get<bool>() ? "True" : "False");
      EXPECT_EQ(a.at("use_distributed_optimizer"), l["distributed_optimizer"].get<bool>() ? "True" : "False");
      EXPECT_EQ(a.at("virtual_pipeline_model_parallel_size"),
                l["vpp"].is_null() ? "None" : std::to_string(l["vpp"].get<int>()));
      const std::string recompute = l["recompute"].get<std::string>();
      // Full recompute (plan's "full", uniform over 1 layer) and selective are Megatron's granularities.
      EXPECT_EQ(a.at("recompute_granularity"), recompute == "none" ? "None" : recompute) << recompute;
    }
}

// The option names of a command's words (the words that start with "-"), in order.
std::vector<std::string> options_of(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const auto& w : words)
    if (w.rfind("-", 0) == 0) out.push_back(w);
  return out;
}

TEST(StartingPoints, every_tune_command_parses_with_the_projects_reader_and_argument_parser) {
  // Every command splits into plain words with the project's reader. Tune's own parser takes each: run, tune stops
  // only at the recipe folder the contributor has yet to write (registry/recipes/<model>/<GPU>/<name>). The commands
  // of a model differ in values only when their options are the same, so each distinct list of options of a model is
  // run once (one node, or --nodes), with the values of the largest GPU count.
  std::size_t commands = 0, runs = 0;
  for (const auto& [id, m] : site_board()["models"].items()) {
    std::map<std::vector<std::string>, std::vector<std::string>> by_options;
    for (const auto& sp : m["starting_points"]) {
      if (!sp["fits"].get<bool>()) continue;
      const std::string command = sp["tune_command"].get<std::string>();
      SCOPED_TRACE(command);
      auto words = literal_words(command);
      ASSERT_GE(words.size(), 3u);
      ASSERT_EQ(words[0], "openrecipes");
      ASSERT_EQ(words[1], "tune");
      EXPECT_EQ(words[2].rfind("registry/recipes/" + id + "/" + sp["gpu"].get<std::string>() + "/start-", 0), 0u);
      by_options[options_of(words)] = words;
      ++commands;
    }
    for (auto& [options, words] : by_options) {
      words.erase(words.begin());
      const std::string recipe = words[1];
      const auto r = testing::run_cli(words);
      EXPECT_EQ(r.exit_code, 2) << recipe;
      EXPECT_EQ(r.err, "openrecipes: error: " + recipe + "/recipe.yaml: file not found (fix: check the path)\n");
      ++runs;
    }
  }
  EXPECT_GT(commands, 200u);
  EXPECT_GE(runs, 23u);
}

TEST(StartingPoints, a_model_whose_config_the_planner_cannot_read_gets_its_reason_and_the_site_still_builds) {
  testing::TempDir d;
  fs::copy(testing::source_dir() / "registry", d / "registry", fs::copy_options::recursive);
  // qwen3-8b.yaml's config without its heads (the first of the two lines is config's; the second layer_shape's).
  const fs::path model = d / "registry/models/qwen3-8b.yaml";
  std::string text = read_file(model);
  const auto at = text.find("  num_attention_heads: 32\n");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, std::string("  num_attention_heads: 32\n").size());
  std::ofstream(model, std::ios::binary) << text;
  auto r = testing::run_cli({"build", (d / "registry").string(), "-o", (d / "site").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json board = json::parse(read_file(d / "site/data/leaderboard.json"));
  EXPECT_EQ(board["models"]["qwen3-8b"]["starting_points"], json::array());
  EXPECT_NE(board["models"]["qwen3-8b"]["starting_points_error"].get<std::string>().find("num_attention_heads"),
            std::string::npos);
  EXPECT_EQ(board["models"]["qwen3-32b"]["starting_points"].size(), 24u);  // the others are planned
  const std::string page = read_file(d / "site/models/qwen3-8b.html");
  EXPECT_NE(page.find("No starting points: the planner cannot read"), std::string::npos);
  EXPECT_EQ(page.find("class=\"starting-points\""), std::string::npos);
}

}  // namespace
}  // namespace openrecipes
