// Tests for src/checks/command_check: the published command against the run's launch and argument dump (SPEC §5),
// on the real H200 runs' dumps and the bundled recipes' commands, with Megatron-LM d98e8a64's argument table.
#include "checks/command_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/yaml.h"
#include "evidence/megatron_args.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

std::map<std::string, std::string> dump(const std::string& recipe) {
  auto path = testing::source_dir() / "registry/recipes/qwen3-0.6b/H200" / recipe / "evidence/train.log";
  return evidence::parse_megatron_args(read_file(path), path.string()).values;
}

std::string command_of(const std::string& recipe) {
  return load_yaml_file(testing::source_dir() / "registry/recipes/qwen3-0.6b/H200" / recipe / "recipe.yaml")
      .require("command")
      .as_string(1 << 16);
}

std::vector<std::string> differences(const std::string& command, const std::map<std::string, std::string>& dump,
                                     const evidence::Launch* launch = nullptr,
                                     const OptionTable* table = OptionTable::bundled("megatron-lm")) {
  const auto words = layout::split_command(command, "t");
  const auto policy = CommandPolicy::bundled().check(words, "megatron-lm", "");
  EXPECT_TRUE(policy.shape) << command;
  std::vector<std::string> out;
  for (const auto& r : check_command_evidence(words, *policy.shape, dump, launch, table, "the published command"))
    out.push_back(r.message);
  return out;
}

TEST(CommandCheck, every_bundled_recipes_command_is_its_argument_dumps) {
  for (const char* r : {"ref", "mbs2", "lr10", "tulu3-ref", "tulu3-mbs16"})
    EXPECT_THAT(differences(command_of(r), dump(r)), ::testing::IsEmpty()) << r;
}

// SPEC §5 (the command against its run): mbs2's command edited to --micro-batch-size 8 and --lr 1e-3 (its evidence ran
// 2 and 1e-5).
TEST(CommandCheck, a_published_value_the_run_did_not_use_is_named_with_both_values) {
  std::string c = command_of("mbs2");
  c.replace(c.find("--micro-batch-size 2"), 20, "--micro-batch-size 8");
  c.replace(c.find("--lr 1e-5"), 9, "--lr 1e-3");
  EXPECT_THAT(differences(c, dump("mbs2")),
              ::testing::ElementsAre("the published command gives --lr 1e-3, but the argument dump has lr = 1e-05",
                                     "the published command gives --micro-batch-size 8, but the argument dump has "
                                     "micro_batch_size = 2"));
  // Numbers compare as numbers: 1e-5, 0.00001 and 1.0e-05 are the dump's 1e-05.
  std::string same = command_of("mbs2");
  same.replace(same.find("--lr 1e-5"), 9, "--lr 0.00001");
  EXPECT_THAT(differences(same, dump("mbs2")), ::testing::IsEmpty());
}

TEST(CommandCheck, flags_the_run_did_not_set_and_arguments_argparse_refuses_are_differences) {
  const std::string base = "torchrun $MEGATRON_LM/pretrain_gpt.py ";
  auto d = dump("ref");
  EXPECT_THAT(differences(base + "--recompute-granularity selective --transformer-impl local", d),
              ::testing::IsEmpty());
  EXPECT_THAT(differences(base + "--swiglu --use-distributed-optimizer", d),
              ::testing::ElementsAre("the published command gives --use-distributed-optimizer, which sets "
                                     "use_distributed_optimizer = True, but the argument dump has "
                                     "use_distributed_optimizer = False"));
  EXPECT_THAT(differences(base + "--position-embedding-type sinusoidal", d),
              ::testing::ElementsAre("the published command gives --position-embedding-type sinusoidal, which is not "
                                     "one of its choices"));
  EXPECT_THAT(differences(base + "--micro-batch 1", d),
              ::testing::ElementsAre("the published command sets --micro-batch (micro_batch), but the argument dump "
                                     "has no micro_batch"));
  EXPECT_THAT(differences(base + "--train-iters", d),
              ::testing::ElementsAre("--train-iters: --train-iters expects one argument (in the published command)"));
  // A data path given as a variable matches whatever path the run had.
  EXPECT_THAT(differences(base + "--data-path $SFT_DATA --split 100,0,0", dump("tulu3-ref")), ::testing::IsEmpty());
  EXPECT_THAT(differences(base + "--data-path $SFT_DATA/other", dump("tulu3-ref")),
              ::testing::ElementsAre(::testing::StartsWith("the published command gives --data-path $SFT_DATA/other, "
                                                           "but the argument dump has data_path = ")));
}

TEST(CommandCheck, types_as_argparse_converts_them) {
  const std::string base = "torchrun $MEGATRON_LM/pretrain_gpt.py ";
  std::map<std::string, std::string> d{{"onnx_safe", "True"},
                                       {"attention_backend", "AttnBackend.flash"},
                                       {"moe_layer_freq", "[0, 1, 1]"},
                                       {"rampup_batch_size", "['16', '16', '1000']"},
                                       {"micro_batch_size", "2"}};
  EXPECT_THAT(differences(base + "--onnx-safe False", d), ::testing::IsEmpty());  // Python's bool('False') is True
  EXPECT_THAT(differences(base + "--attention-backend flash", d), ::testing::IsEmpty());
  EXPECT_THAT(differences(base + "--attention-backend fused", d),
              ::testing::ElementsAre("the published command gives --attention-backend fused, but the argument dump "
                                     "has attention_backend = AttnBackend.flash"));
  // A value only the framework's own function converts is checked for presence only.
  EXPECT_THAT(differences(base + "--moe-layer-freq '([0]+[1]*2)'", d), ::testing::IsEmpty());
  EXPECT_THAT(differences(base + "--micro-batch-size 2.0", d),
              ::testing::ElementsAre("the published command gives --micro-batch-size 2.0, but the argument dump has "
                                     "micro_batch_size = 2"));
}

TEST(CommandCheck, with_a_launch_the_command_must_be_its_argv_and_the_argv_is_checked) {
  const std::string command =
      "NCCL_DEBUG=$LEVEL torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py "
      "${MODEL_ARGS[@]} --lr 1e-5";
  evidence::Launch launch{
      "evidence/launch.json",
      {{"NCCL_DEBUG", "WARN"}},
      {"torchrun", "--nproc-per-node", "1", "/m/pretrain_gpt.py", "--num-layers", "28", "--lr", "1e-5"}};
  std::map<std::string, std::string> d{{"num_layers", "28"}, {"lr", "1e-05"}};
  EXPECT_THAT(differences(command, d, &launch), ::testing::IsEmpty());
  d["num_layers"] = "24";  // MODEL_ARGS' words are checked as the run expanded them
  EXPECT_THAT(differences(command, d, &launch),
              ::testing::ElementsAre("the run's argv (evidence/launch.json) gives --num-layers 28, but the argument "
                                     "dump has num_layers = 24"));
  auto other = launch;
  other.argv[3] = "/m/pretrain_mamba.py";
  EXPECT_THAT(differences(command, d, &other),
              ::testing::ElementsAre("the published command is not the command the run started (evidence/launch.json): "
                                     "the command's $MEGATRON_LM/pretrain_gpt.py is /m/pretrain_mamba.py in the run"));
  other = launch;
  other.env[0].first = "NCCL_ALGO";
  EXPECT_THAT(
      differences(command, d, &other),
      ::testing::ElementsAre(::testing::HasSubstr("the command's NCCL_DEBUG=$LEVEL is NCCL_ALGO=WARN in the run")));
  other = launch;
  other.argv.back() = "1e-3";
  EXPECT_THAT(differences(command, d, &other),
              ::testing::ElementsAre(::testing::HasSubstr("the command's 1e-5 is 1e-3 in the run")));
  // Without a launch, MODEL_ARGS' words are nowhere to be seen.
  EXPECT_THAT(differences(command, d),
              ::testing::ElementsAre("the published command uses ${MODEL_ARGS[@]}, and the evidence has no captured "
                                     "launch to show its words"));
}

TEST(CommandCheck, a_slime_command_reads_megatrons_flags_with_its_table_and_slimes_by_name) {
  const std::string command =
      "python3 <slime entry module> --actor-num-nodes 1 --colocate ${MODEL_ARGS[@]} "
      "--disable-bias-linear --prompt-data $SFT_DATA";
  const auto words = layout::split_command(command, "t");
  const auto policy = CommandPolicy::bundled().check(words, "slime", "");
  ASSERT_TRUE(policy.shape);
  evidence::Launch launch{"evidence/launch.json",
                          {},
                          {"python3", "/root/slime/train.py", "--actor-num-nodes", "1", "--colocate", "--num-layers",
                           "28", "--norm-epsilon", "1e-6", "--disable-bias-linear", "--prompt-data", "/data/rows"}};
  std::map<std::string, std::string> d{{"actor_num_nodes", "1"},     {"colocate", "True"},
                                       {"num_layers", "28"},         {"layernorm_epsilon", "1e-06"},
                                       {"add_bias_linear", "False"}, {"prompt_data", "/data/rows"}};
  auto reasons = check_command_evidence(words, *policy.shape, d, &launch, OptionTable::bundled("megatron-lm"), "c");
  EXPECT_TRUE(reasons.empty()) << reasons.front().message;
  d["actor_num_nodes"] = "2";
  reasons = check_command_evidence(words, *policy.shape, d, &launch, OptionTable::bundled("megatron-lm"), "c");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(reasons[0].message,
            "the run's argv (evidence/launch.json) gives --actor-num-nodes 1, but the argument "
            "dump has actor_num_nodes = 2");
}

// Found by the review: torchrun's process count was never compared with the run.
TEST(CommandCheck, the_processes_the_command_starts_are_the_runs_world_size) {
  auto d = dump("mbs2");  // world_size 1
  std::string c = command_of("mbs2");
  EXPECT_THAT(differences(c, d), ::testing::IsEmpty());
  c.replace(c.find("--nproc-per-node 1"), 18, "--nproc-per-node 8");
  EXPECT_THAT(differences(c, d),
              ::testing::ElementsAre("the published command starts 8 trainer process(es) (torchrun's "
                                     "--nproc-per-node x --nnodes), but the argument dump has world_size = 1"));
  std::map<std::string, std::string> sixteen{{"world_size", "16"}};
  EXPECT_THAT(differences("torchrun --nproc-per-node=8 --nnodes 2 $MEGATRON_LM/pretrain_gpt.py", sixteen),
              ::testing::IsEmpty());
}

// Found by the review: the words ${MODEL_ARGS[@]} stood for in a hand-written launch.json carried a micro-batch size
// the published command could not show.
TEST(CommandCheck, model_args_words_may_not_set_what_the_command_sets_nor_the_layout) {
  const std::string command =
      "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --micro-batch-size 8 "
      "${MODEL_ARGS[@]} --lr 1e-5";
  evidence::Launch launch{"evidence/launch.json",
                          {},
                          {"torchrun", "--nproc-per-node", "1", "/m/pretrain_gpt.py", "--micro-batch-size", "8",
                           "--num-layers", "28", "--micro-batch-size", "2", "--sequence-parallel", "--lr", "1e-5"}};
  std::map<std::string, std::string> d{{"num_layers", "28"},
                                       {"micro_batch_size", "2"},
                                       {"lr", "1e-05"},
                                       {"sequence_parallel", "True"},
                                       {"world_size", "1"}};
  const auto words = layout::split_command(command, "t");
  const auto policy = CommandPolicy::bundled().check(words, "megatron-lm", "");
  auto classify = [](const std::string& dest) {
    return dest == "micro_batch_size" || dest == "sequence_parallel" ? ArgClass::structural : ArgClass::math;
  };
  std::vector<std::string> got;
  for (const auto& r :
       check_command_evidence(words, *policy.shape, d, &launch, OptionTable::bundled("megatron-lm"), "c", classify))
    got.push_back(r.message);
  EXPECT_THAT(got, ::testing::ElementsAre(
                       "evidence/launch.json sets micro_batch_size both in the published command's own words and in "
                       "the words its ${MODEL_ARGS[@]} stood for, which no reader of the command sees",
                       "evidence/launch.json sets sequence_parallel (structural: the layout or packing the recipe is "
                       "about) in the words its ${MODEL_ARGS[@]} stood for, which no reader of the command sees"));
}

TEST(CommandCheck, a_variable_stands_for_one_value_everywhere) {
  auto words = layout::split_command("$A/x/$A", "t");
  std::map<std::string, std::string> b;
  EXPECT_TRUE(word_matches(words[0], "p/x/p", b));
  EXPECT_EQ(b.at("A"), "p");
  b.clear();
  EXPECT_FALSE(word_matches(words[0], "p/x/q", b));
  b = {{"A", "q"}};
  EXPECT_FALSE(word_matches(words[0], "p/x/p", b));
  b.clear();
  EXPECT_FALSE(word_matches(words[0], "/x/", b));  // a variable is never empty
}

TEST(CommandCheck, many_differences_are_counted_after_the_first_twenty) {
  std::string command = "torchrun $MEGATRON_LM/pretrain_gpt.py";
  std::map<std::string, std::string> d;
  for (int i = 0; i < 25; ++i) command += " --unknown-flag-" + std::to_string(i) + " 1";
  const auto out = differences(command, d);
  ASSERT_EQ(out.size(), kMaxCommandDifferences + 1);
  EXPECT_EQ(out.back(), "5 more differences between the published command and the argument dump");
}

}  // namespace
}  // namespace openrecipes::checks
