// Tests for src/layout/setup_flags: a training setup written as Megatron-LM flags, each expected command written out
// by hand from megatron/training/arguments.py's flag names (d98e8a64).
#include "layout/setup_flags.h"

#include <gtest/gtest.h>

namespace openrecipes::layout {
namespace {

std::string write(const std::string& command, const TrainingSetup& t, const SetupFlagParts& parts,
                  std::vector<FlagChange>* changes = nullptr) {
  CommandEditor ed(command, "test command", changes);
  write_setup_flags(ed, t, parts);
  return ed.result();
}

TrainingSetup setup(std::int64_t tp, std::int64_t pp, std::int64_t ep = 1, std::int64_t etp = 0) {
  TrainingSetup t;
  t.layout.tp = tp;
  t.layout.pp = pp;
  t.layout.ep = ep;
  t.layout.etp = etp == 0 ? tp : etp;
  t.layout.dp = 2;
  return t;
}

TEST(SetupFlags, sizes_of_one_are_written_only_where_the_command_has_the_flag) {
  EXPECT_EQ(write("python pretrain_gpt.py --lr 1e-5", setup(1, 1), {}), "python pretrain_gpt.py --lr 1e-5");
  EXPECT_EQ(write("python pretrain_gpt.py --tensor-model-parallel-size 4", setup(1, 2), {}),
            "python pretrain_gpt.py --tensor-model-parallel-size 1 --pipeline-model-parallel-size 2");
}

TEST(SetupFlags, etp_is_written_only_where_it_differs_from_tp_and_experts_are_in_play) {
  // Dense at TP 2 with ETP 1: no experts, so Megatron's default (ETP = TP) is left alone.
  EXPECT_EQ(write("python x.py", setup(2, 1, 1, 1), {}), "python x.py --tensor-model-parallel-size 2");
  EXPECT_EQ(write("python x.py", setup(2, 1, 4, 1), {}),
            "python x.py --tensor-model-parallel-size 2 --expert-model-parallel-size 4 "
            "--expert-tensor-parallel-size 1");
  EXPECT_EQ(write("python x.py", setup(2, 1, 4, 2), {}),
            "python x.py --tensor-model-parallel-size 2 --expert-model-parallel-size 4");
}

TEST(SetupFlags, sequence_parallel_goes_after_tp_and_is_removed_when_off) {
  TrainingSetup t = setup(2, 1);
  t.sequence_parallel = true;
  SetupFlagParts sp;
  sp.sequence_parallel = true;
  EXPECT_EQ(write("python x.py --tensor-model-parallel-size 1 --lr 1", t, sp),
            "python x.py --tensor-model-parallel-size 2 --sequence-parallel --lr 1");
  t.sequence_parallel = false;
  EXPECT_EQ(write("python x.py --tensor-model-parallel-size 2 --sequence-parallel --lr 1", t, sp),
            "python x.py --tensor-model-parallel-size 2 --lr 1");
}

TEST(SetupFlags, recompute_is_written_removed_and_selective_drops_the_method) {
  SetupFlagParts rc;
  rc.recompute = true;
  TrainingSetup t = setup(1, 1);
  t.recompute = {Recompute::full_block, 3};
  EXPECT_EQ(write("python x.py", t, rc),
            "python x.py --recompute-granularity full --recompute-method block --recompute-num-layers 3");
  // validate_args refuses --recompute-method with selective granularity.
  const std::string full =
      "python x.py --recompute-granularity full --recompute-method uniform "
      "--recompute-num-layers 1 --lr 1";
  t.recompute = {Recompute::selective, 1};
  std::vector<FlagChange> changes;
  EXPECT_EQ(write(full, t, rc, &changes), "python x.py --recompute-granularity selective --lr 1");
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].str(), "--recompute-granularity full -> selective");
  t.recompute = {Recompute::none, 1};
  EXPECT_EQ(write(full, t, rc), "python x.py --lr 1");
}

TEST(SetupFlags, vpp_and_an_uneven_split_replace_the_other_forms) {
  SetupFlagParts split;
  split.pipeline_split = true;
  TrainingSetup t = setup(1, 4);
  t.layout.vpp = 2;
  t.first_stage_layers = 6;
  EXPECT_EQ(
      write("python x.py --pipeline-model-parallel-size 4 --num-layers-per-virtual-pipeline-stage 2 --lr 1", t, split),
      "python x.py --pipeline-model-parallel-size 4 --num-virtual-stages-per-pipeline-rank 2 --lr 1 "
      "--decoder-first-pipeline-num-layers 6");
  t.layout.vpp.reset();
  t.first_stage_layers.reset();
  EXPECT_EQ(write("python x.py --pipeline-model-parallel-size 4 --num-virtual-stages-per-pipeline-rank 2 "
                  "--decoder-first-pipeline-num-layers 6",
                  t, split),
            "python x.py --pipeline-model-parallel-size 4");
  // The embedding and the loss counted in the split are switches: written when on, dropped when off.
  t.embedding_in_split = t.loss_in_split = true;
  EXPECT_EQ(write("python x.py --pipeline-model-parallel-size 4", t, split),
            "python x.py --pipeline-model-parallel-size 4 --account-for-embedding-in-pipeline-split "
            "--account-for-loss-in-pipeline-split");
  t.loss_in_split = false;
  EXPECT_EQ(write("python x.py --pipeline-model-parallel-size 4 --account-for-embedding-in-pipeline-split "
                  "--account-for-loss-in-pipeline-split",
                  t, split),
            "python x.py --pipeline-model-parallel-size 4 --account-for-embedding-in-pipeline-split");
}

TEST(SetupFlags, the_distributed_optimizer_overlaps_only_at_dp_above_one) {
  SetupFlagParts opt;
  opt.distributed_optimizer = true;
  TrainingSetup t = setup(1, 1);
  t.distributed_optimizer = true;
  EXPECT_EQ(write("python x.py", t, opt),
            "python x.py --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather");
  t.layout.dp = 1;
  EXPECT_EQ(write("python x.py --overlap-grad-reduce", t, opt), "python x.py --use-distributed-optimizer");
  t.distributed_optimizer = false;
  EXPECT_EQ(write("python x.py --use-distributed-optimizer --overlap-param-gather", t, opt), "python x.py");
}

}  // namespace
}  // namespace openrecipes::layout
