// Megatron argument dump parser on the H200 fixture runs (values read from the logs by hand).
#include "evidence/megatron_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {
using testing::fixtures_dir;

TEST(MegatronArgs, h200_ref_dump_has_every_argument_with_its_value) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = fixtures_dir() / "runs/megatron-h200/ref.log";
  auto dump = parse_megatron_args(read_file(path), path.string());
  EXPECT_EQ(dump.values.size(), 846u);  // 848 lines between and including the two rules
  EXPECT_EQ(dump.values.at("lr"), "1e-05");
  EXPECT_EQ(dump.values.at("micro_batch_size"), "1");
  EXPECT_EQ(dump.values.at("recompute_granularity"), "selective");
  EXPECT_EQ(dump.values.at("global_batch_size"), "32");
  EXPECT_EQ(dump.values.at("seq_length"), "2048");
  EXPECT_EQ(dump.values.at("world_size"), "1");
  EXPECT_EQ(dump.values.at("config_logger_dir"), "");  // printed with an empty value
  // names of 48+ characters are printed with no dots
  EXPECT_EQ(dump.values.at("inference_dynamic_batching_cuda_graph_mixed_prefill_count"), "16");
  EXPECT_EQ(dump.values.at("ddp_param_name_patterns_for_fp32_local_accumulation"), "[]");
}

TEST(MegatronArgs, mbs2_and_lr10_differ_from_ref_where_source_says) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto mbs2 = parse_megatron_args(read_file(fixtures_dir() / "runs/megatron-h200/mbs2.log"), "mbs2.log");
  EXPECT_EQ(mbs2.values.at("micro_batch_size"), "2");
  EXPECT_EQ(mbs2.values.at("recompute_granularity"), "None");
  auto lr10 = parse_megatron_args(read_file(fixtures_dir() / "runs/megatron-h200/lr10.log"), "lr10.log");
  EXPECT_EQ(lr10.values.at("lr"), "0.0001");
}

TEST(MegatronArgs, unclosed_dump_is_a_truncated_log) {
  std::string text = "------------------------ arguments ------------------------\n  lr ............ 1e-05\n";
  EXPECT_THAT(testing::message_of([&] { parse_megatron_args(text, "x.log"); }),
              ::testing::HasSubstr("x.log:1: the argument dump is not closed"));
}

TEST(MegatronArgs, missing_dump_and_damaged_line_are_errors) {
  EXPECT_THROW(parse_megatron_args("no dump here\n", "x.log"), InputError);
  std::string text =
      "------------------------ arguments ------------------------\n  lr ............ 1e-05\n"
      "WARNING something else\n-------------------- end of arguments ---------------------\n";
  EXPECT_THAT(testing::message_of([&] { parse_megatron_args(text, "x.log"); }),
              ::testing::HasSubstr("x.log:3: not an argument line"));
}

TEST(MegatronArgs, duplicate_argument_is_an_error) {
  std::string text =
      "------------------------ arguments ------------------------\n  lr ............ 1e-05\n"
      "  lr ............ 1e-04\n-------------------- end of arguments ---------------------\n";
  EXPECT_THROW(parse_megatron_args(text, "x.log"), InputError);
}

ArgumentDump dump_of(std::map<std::string, std::string> values) { return {"d.log", 1, std::move(values)}; }

TEST(MegatronArgs, a_slime_runs_length_is_its_rollouts_steps_as_the_trainer_takes_them) {
  // 20 rollouts of 128 prompts x 1 sample at 128 rows a step: 20 steps. slime's dump prints train_iters None.
  std::map<std::string, std::string> v{{"num_rollout", "20"},         {"rollout_batch_size", "128"},
                                       {"n_samples_per_prompt", "1"}, {"global_batch_size", "128"},
                                       {"train_iters", "None"},       {"start_rollout_id", "None"}};
  EXPECT_EQ(run_steps_of(dump_of(v)), 20);
  // 192 prompts a rollout at 128 a step: one step a rollout, the 64 left over dropped (slime rollout.py), not 30.
  v["rollout_batch_size"] = "192";
  EXPECT_EQ(run_steps_of(dump_of(v)), 20);
  // 2 samples a prompt: 256 rows a rollout, two steps.
  v["rollout_batch_size"] = "128", v["n_samples_per_prompt"] = "2";
  EXPECT_EQ(run_steps_of(dump_of(v)), 40);
  // Resumed at rollout 5 of 25: 20 rollouts run (train.py's range(start_rollout_id, num_rollout)).
  v["n_samples_per_prompt"] = "1", v["num_rollout"] = "25", v["start_rollout_id"] = "5";
  EXPECT_EQ(run_steps_of(dump_of(v)), 20);
  // A train_iters left from the parse is not slime's run length.
  v["start_rollout_id"] = "None", v["train_iters"] = "7";
  EXPECT_EQ(run_steps_of(dump_of(v)), 25);
  // Megatron-LM: train_iters.
  EXPECT_EQ(run_steps_of(dump_of({{"train_iters", "20"}})), 20);
  EXPECT_EQ(run_steps_of(dump_of({{"train_iters", "None"}})), std::nullopt);
  EXPECT_EQ(run_steps_of(dump_of({{"num_rollout", "20"}, {"global_batch_size", "0"}})), std::nullopt);
}

TEST(MegatronArgs, a_slime_runs_gpu_count_is_its_actors_and_a_world_size_that_disagrees_is_refused) {
  EXPECT_EQ(gpu_count_of(dump_of({{"actor_num_nodes", "2"}, {"actor_num_gpus_per_node", "4"}})), 8);
  EXPECT_EQ(gpu_count_of(dump_of({{"world_size", "8"}, {"actor_num_nodes", "2"}, {"actor_num_gpus_per_node", "4"}})),
            8);
  EXPECT_EQ(gpu_count_of(dump_of({{"world_size", "16"}})), 16);
  EXPECT_THAT(
      testing::message_of([&] {
        gpu_count_of(dump_of({{"world_size", "4"}, {"actor_num_nodes", "1"}, {"actor_num_gpus_per_node", "8"}}));
      }),
      ::testing::HasSubstr("d.log: the argument dump has world_size = 4, but actor_num_nodes x "
                           "actor_num_gpus_per_node = 1 x 8 = 8"));
}

}  // namespace
}  // namespace openrecipes::evidence
