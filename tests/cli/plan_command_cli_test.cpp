// `openrecipes plan --command FILE` as a user runs it: the one layout a training command runs, planned stage by stage
// (the JSON's "stages"), and what the memory model does not cover refused by name.
#include <algorithm>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/support.h"

namespace openrecipes {
namespace {
using ::testing::HasSubstr;
using testing::run_cli;

// 8 layers on TP 2 x PP 2 x DP 2 (torchrun: 8 processes), the distributed optimizer on.
const char* const kCommand =
    "torchrun --nproc-per-node 8 pretrain_gpt.py --num-layers 8 --hidden-size 1024 --num-attention-heads 16 "
    "--seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 32 "
    "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --vocab-size 32000 --use-distributed-optimizer "
    "--transformer-impl transformer_engine --bf16\n";

TEST(PlanCommandCli, a_torchrun_command_is_planned_stage_by_stage) {
  testing::TempDir d;
  const auto file = d.write("train.sh", kCommand).string();
  const auto r = run_cli({"plan", "--command", file, "--gpu", "H100", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("gpus"), 8);
  ASSERT_EQ(j.at("layouts").size(), 1u);
  const auto& l = j.at("layouts")[0];
  EXPECT_EQ(l.at("tp"), 2);
  EXPECT_EQ(l.at("pp"), 2);
  EXPECT_EQ(l.at("dp"), 2);  // 8 / (TP 2 x PP 2)
  EXPECT_EQ(l.at("distributed_optimizer"), true);
  EXPECT_EQ(l.at("sequence_parallel"), false);  // not asked for
  const auto& stages = l.at("stages");
  ASSERT_EQ(stages.size(), 2u);
  double largest = 0;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    EXPECT_EQ(stages[s].at("pp_rank"), s);
    double sum = 0;
    for (const auto& [name, mib] : stages[s].at("terms").items()) sum += mib.get<double>();
    EXPECT_NEAR(sum, stages[s].at("peak_memory_mib").get<double>(), 0.5) << "a stage's terms sum to its peak";
    largest = std::max(largest, stages[s].at("peak_memory_mib").get<double>());
  }
  EXPECT_EQ(stages[1].at("moment"), "loss");  // the last stage holds the logits
  // The last stage's weights by hand (docs/memory-model.md: BF16, 2 bytes a parameter the rank holds): 4 of the 8
  // layers, each attention 1024 x (1024 + 2 x 1024) + 1024 x 1024 = 4,194,304 and MLP 2 x 1024 x 4096 = 8,388,608,
  // split by TP 2: 25,165,824; the norms' share unsplit, (2 x 1024 x 8 + 1024) / 2 = 8,704; the output layer (untied
  // on the last stage of PP > 1) 32,000 x 1024 / TP 2 = 16,384,000. 2 x 41,558,528 bytes = 79.27 MiB.
  EXPECT_NEAR(stages[1].at("terms").at("weights").get<double>(), 79.3, 0.05);
  EXPECT_NEAR(largest, l.at("peak_memory_mib").get<double>(), 0.1) << "the layout's peak is its largest stage's";

  const auto text = run_cli({"plan", "--command", file, "--gpu", "H100"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("(8 GPUs from torchrun)"));
  EXPECT_THAT(text.out, HasSubstr("  stage   1 "));
}

// A hostile review: torchrun --nproc-per-node 4 --nnodes 2 at TP 8 was planned on nodes of 8 (TP inside one node),
// and MFU counted the vocabulary as Megatron pads it. The launcher's 4 a node put TP 8 across two nodes unless
// --gpus-per-node says otherwise; N is the model's own: 8 layers x 12,582,912 + the output layer 32,000 x 1,024 =
// 133,431,296, not the padded 32,768 rows' 134,217,728 (a multiple of 128 x TP 8 = 1,024).
TEST(PlanCommandCli, the_launchers_gpus_a_node_and_the_models_own_vocabulary_are_used) {
  testing::TempDir d;
  std::string tp8 = kCommand;
  auto swap = [&](const std::string& from, const std::string& to) { tp8.replace(tp8.find(from), from.size(), to); };
  swap("--nproc-per-node 8", "--nproc-per-node 4 --nnodes 2");
  swap("--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2",
       "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 1 --sequence-parallel");
  const auto file = d.write("tp8.sh", tp8).string();
  const auto across = run_cli({"plan", "--command", file, "--gpu", "H100"});
  ASSERT_EQ(across.exit_code, 0) << across.err;
  EXPECT_THAT(across.out, HasSubstr("TP 8 spans 2 nodes of 4 GPUs"));
  const auto inside = run_cli({"plan", "--command", file, "--gpu", "H100", "--gpus-per-node", "8"});
  ASSERT_EQ(inside.exit_code, 0) << inside.err;
  EXPECT_THAT(inside.out, ::testing::Not(HasSubstr("spans")));
  const auto r = run_cli({"plan", "--command", file, "--gpu", "H100", "--json", "--gpus-per-node", "8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& l = j.at("layouts")[0];
  // SPEC §3: MFU = 6 N x tokens/s/GPU / the BF16 peak (989 TFLOP/s on H100).
  const double n = 8.0 * 12582912 + 32000.0 * 1024;
  EXPECT_NEAR(l.at("mfu").get<double>(), 6 * n * l.at("tokens_per_s_per_gpu").get<double>() / 989e12, 1e-4);
}

TEST(PlanCommandCli, what_is_not_modelled_and_mixed_options_are_refused_naming_them) {
  testing::TempDir d;
  std::string fp8 = kCommand;
  fp8.insert(fp8.size() - 1, " --fp8-format hybrid");
  const auto file = d.write("fp8.sh", fp8).string();
  const auto r = run_cli({"plan", "--command", file, "--gpu", "H100"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(file + ": --fp8-format is not modelled"));
  const auto both = run_cli({"plan", "--command", file, "--model", "qwen3-0.6b", "--gpu", "H100"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("--command: reads the command's own model and layout"));
  const auto empty = run_cli({"plan", "--command", "", "--gpu", "H100"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_THAT(empty.err, HasSubstr("--command: is empty"));
  const auto vocab = run_cli({"plan", "--model", "qwen3-0.6b", "--gpu", "H100", "--gpus", "8", "--vocab-size", "9"});
  EXPECT_EQ(vocab.exit_code, 2);
  EXPECT_THAT(vocab.err, HasSubstr("--vocab-size: is for --command"));
}

TEST(PlanCommandCli, a_file_name_that_is_not_utf8_is_shown_not_an_internal_error) {
  testing::TempDir d;
  const auto file = d.write("train\xff.sh", kCommand).string();
  const auto r = run_cli({"plan", "--command", file, "--gpu", "H100", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(nlohmann::json::parse(r.out).at("model").get<std::string>(), HasSubstr("train\xef\xbf\xbd.sh"));
}

// A hostile review: a knob no valid layout has was answered "no valid layout" (exit 1), then with the values the
// planner's own search proposes, which missed valid ones (TP 16 to 64 above Llama's 8 query groups). Every value
// named must plan (exit 0 or 1: layouts, fitting or not), the knob as given must not, and the exit is 2.
TEST(PlanCli, a_knob_no_valid_layout_has_is_named_with_every_value_that_has_one) {
  for (const std::vector<std::string>& knob : std::vector<std::vector<std::string>>{
           {"--tp", "3"}, {"--tp", "32"}, {"--vpp", "3", "--pp", "4"}, {"--micro-batch", "3"}}) {
    std::vector<std::string> args = {"plan", "--model", "qwen3-0.6b", "--gpu", "H100", "--gpus", "16", "--top", "1"};
    args.insert(args.end(), knob.begin(), knob.end());
    const auto r = run_cli(args);
    SCOPED_TRACE(knob.front() + " " + knob[1]);
    ASSERT_EQ(r.exit_code, 2) << r.out;
    // The knob named ("error: --pp 4: ..."), which may be another of those given.
    const auto named_at = r.err.find("error: ") + 7;
    const std::string flag = r.err.substr(named_at, r.err.find(' ', named_at) - named_at);
    const auto slot = std::find(args.begin(), args.end(), flag);
    ASSERT_NE(slot, args.end()) << r.err;
    const auto at = r.err.find("give one of ");
    ASSERT_NE(at, std::string::npos) << r.err;
    const std::string list = r.err.substr(at + 12, r.err.find(", or leave it", at) - at - 12);
    std::vector<std::string> values;
    for (std::size_t from = 0; from <= list.size();) {
      const auto comma = std::min(list.find(", ", from), list.size());
      values.push_back(list.substr(from, comma - from));
      from = comma + 2;
    }
    ASSERT_FALSE(values.empty());
    for (const auto& v : values) {
      auto with = args;
      with[std::size_t(slot - args.begin()) + 1] = v;
      const auto p = run_cli(with);
      EXPECT_TRUE(p.exit_code == 0 || p.exit_code == 1) << v << ": " << p.err;
      EXPECT_THAT(p.out, HasSubstr("valid layout")) << v;
    }
  }
  // TP 16 of Qwen3-0.6B's 16 heads and 8 query groups: above the groups each rank keeps one key/value head.
  const auto tp = run_cli({"plan", "--model", "qwen3-0.6b", "--gpu", "H100", "--gpus", "16", "--tp", "3"});
  EXPECT_THAT(tp.err, HasSubstr("give one of 1, 2, 4, 8, 16, or leave it to the planner"));
  // Two knobs, each without a layout on its own: the first is named on its own.
  const auto two =
      run_cli({"plan", "--model", "qwen3-0.6b", "--gpu", "H100", "--gpus", "16", "--tp", "3", "--pp", "3"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_THAT(two.err, HasSubstr("--tp 3: no valid layout of the model on 16 GPUs has it even on its own"));
}

}  // namespace
}  // namespace openrecipes
