// Tests for src/layout: the SPEC §6 rules a layout must meet on G GPUs, and the comparison of a recipe's layout
// with the Megatron argument dump of its run. Expected values are worked out by hand in each test.
#include "layout/layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace openrecipes::layout {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Layout make(std::int64_t tp, std::int64_t pp, std::int64_t cp, std::int64_t ep, std::int64_t etp, std::int64_t dp) {
  Layout l;
  l.tp = tp, l.pp = pp, l.cp = cp, l.ep = ep, l.etp = etp, l.dp = dp;
  return l;
}

TEST(LayoutRules, a_layout_whose_replicas_fill_the_gpus_and_divide_the_batch_fits) {
  EXPECT_THAT(violations(make(2, 2, 1, 1, 1, 2), 8, 128), IsEmpty());  // 2 x 2 x 1 x 2 = 8; 128 / 2 = 64
  EXPECT_THAT(violations(make(1, 1, 1, 8, 1, 8), 8, 128), IsEmpty());  // EP8: 8 / PP 1 = 8 = EP 8 x ETP 1
  EXPECT_THAT(violations(make(1, 1, 1, 1, 1, 1), 1, 128), IsEmpty());
}

TEST(LayoutRules, tp_pp_cp_dp_must_multiply_to_the_gpu_count) {
  auto v = violations(make(2, 1, 1, 1, 1, 2), 8, 128);  // 2 x 1 x 1 x 2 = 4 GPUs, not 8
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].what, "TP 2 x PP 1 x CP 1 x DP 2 = 4 GPUs, but the recipe ran on 8");
  EXPECT_EQ(v[0].fix, "a replica takes TP x PP x CP GPUs and DP replicas make the GPU count");
}

TEST(LayoutRules, gpus_per_pipeline_stage_must_be_a_multiple_of_ep_times_etp) {
  auto v = violations(make(1, 2, 1, 4, 2, 4), 8, 128);  // 8 / PP 2 = 4 GPUs a stage; EP 4 x ETP 2 = 8
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].what, "GPUs per pipeline stage (8 / PP 2 = 4) is not a multiple of EP 4 x ETP 2");
}

TEST(LayoutRules, the_global_batch_must_divide_by_dp_and_every_broken_rule_is_listed) {
  auto v = violations(make(1, 1, 1, 1, 1, 3), 3, 128);  // 128 = 3 x 42 + 2
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].what, "the global batch of 128 rows does not divide by DP 3");
  EXPECT_EQ(violations(make(1, 1, 1, 1, 1, 3), 4, 128).size(), 2u);  // 3 GPUs of 4, and 128 % 3 != 0
}

Placement placement(Layout l, std::int64_t gpus, bool megatron) { return {l, gpus, 128, 8192, megatron}; }

TEST(LayoutDump, a_dump_that_shows_the_recorded_layout_has_no_mismatch) {
  std::map<std::string, std::string> args{{"tensor_model_parallel_size", "2"},
                                          {"pipeline_model_parallel_size", "1"},
                                          {"data_parallel_size", "4"},
                                          {"world_size", "8"},
                                          {"global_batch_size", "128"},
                                          {"seq_length", "8192"},
                                          {"expert_tensor_parallel_size", "None"},
                                          {"virtual_pipeline_model_parallel_size", "None"}};
  EXPECT_THAT(argument_dump_mismatches(placement(make(2, 1, 1, 1, 1, 4), 8, true), args), IsEmpty());
}

TEST(LayoutDump, each_differing_argument_is_named_with_both_values) {
  std::map<std::string, std::string> args{{"tensor_model_parallel_size", "1"},
                                          {"world_size", "8"},
                                          {"micro_batch_size", "2"},
                                          {"virtual_pipeline_model_parallel_size", "2"}};
  Layout l = make(2, 1, 1, 1, 1, 4);
  l.micro_batch = 4;
  EXPECT_THAT(argument_dump_mismatches(placement(l, 8, true), args),
              ElementsAre("the recipe records TP = 2, but its argument dump has tensor_model_parallel_size = 1",
                          "the recipe records the micro-batch size = 4, but its argument dump has "
                          "micro_batch_size = 2",
                          "the recipe records VPP (none) = 0, but its argument dump has "
                          "virtual_pipeline_model_parallel_size = 2"));
}

TEST(LayoutDump, slimes_placeholder_seq_length_is_not_the_row_length_but_its_token_budget_is_checked) {
  // slime's _set_default_megatron_args prints seq_length 4096 when the command gives none; the rows are 8192 tokens.
  std::map<std::string, std::string> args{{"seq_length", "4096"}, {"max_tokens_per_gpu", "16384"}};
  Layout l = make(1, 1, 1, 1, 1, 8);
  l.max_tokens_per_gpu = 16384;
  EXPECT_THAT(argument_dump_mismatches(placement(l, 8, false), args), IsEmpty());
  l.max_tokens_per_gpu = 9216;
  EXPECT_THAT(argument_dump_mismatches(placement(l, 8, false), args),
              ElementsAre("the recipe records max_tokens_per_gpu = 9216, but its argument dump has "
                          "max_tokens_per_gpu = 16384"));
}

TEST(LayoutDump, slime_micro_batches_are_not_megatron_arguments_and_a_non_number_is_named) {
  std::map<std::string, std::string> args{{"micro_batch_size", "1"}, {"data_parallel_size", "four"}};
  Layout l = make(1, 1, 1, 1, 1, 4);
  l.micro_batch = 8;
  EXPECT_THAT(argument_dump_mismatches(placement(l, 4, false), args),
              ElementsAre("argument data_parallel_size = four is not a number"));
}

}  // namespace
}  // namespace openrecipes::layout
