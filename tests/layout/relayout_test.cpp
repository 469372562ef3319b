// Tests for src/layout/relayout: hand-worked relayouts of dense and MoE recipes, valid and invalid, with the nearest
// GPU counts that fit, a new row length, and the rewritten command. The arithmetic is written out in each test.
#include "layout/relayout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "testing/support.h"

namespace openrecipes::layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The bundled reference recipe's shape: Megatron-LM on 1 GPU, TP 1, global batch 32, micro-batch 1.
const std::string kMegatron =
    "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py \\\n"
    "  --num-layers 28 --micro-batch-size 1 --global-batch-size 32 --seq-length 2048 \\\n"
    "  --lr 1e-5\n";

// A slime MoE recipe in the shape of slime's Qwen3.5-35B-A3B SFT script: TP 2, EP 8, one node of 8.
const std::string kSlime =
    "python3 <slime entry module> ${MODEL_ARGS[@]} --actor-num-nodes 1 --actor-num-gpus-per-node 8 \\\n"
    "  --tensor-model-parallel-size 2 --expert-model-parallel-size 8 --expert-tensor-parallel-size 1 \\\n"
    "  --use-dynamic-batch-size --max-tokens-per-gpu 9216 --rollout-batch-size 128 --global-batch-size 128\n";

RelayoutRequest dense(std::int64_t gpus, std::int64_t micro_batch = 1) {
  RelayoutRequest q;
  q.layout.micro_batch = micro_batch;
  q.global_batch = 32;
  q.row_length = 2048;
  q.launch = Launch::megatron;
  q.gpus = gpus;
  return q;
}

RelayoutRequest moe(std::int64_t gpus) {
  RelayoutRequest q;
  q.layout.tp = 2, q.layout.ep = 8, q.layout.etp = 1, q.layout.dp = 4;
  q.layout.max_tokens_per_gpu = 9216;
  q.global_batch = 128;
  q.row_length = 8192;
  q.launch = Launch::slime;
  q.gpus = gpus;
  return q;
}

std::vector<std::string> whats(const RelayoutResult& r) {
  std::vector<std::string> out;
  for (const auto& v : r.violations) out.push_back(v.what);
  return out;
}

TEST(Relayout, a_dense_recipe_moves_from_1_to_8_gpus_by_dp_alone) {
  // 8 GPUs / (TP 1 x PP 1 x CP 1) = DP 8; 32 rows / 8 = 4 per replica; one node of 8.
  auto r = relayout(dense(8), kMegatron, "recipe.yaml: command");
  EXPECT_THAT(r.violations, IsEmpty());
  EXPECT_EQ(r.layout.dp, 8);
  EXPECT_EQ(r.nodes, 1);
  // The nearest other counts: 7, 6, 5 leave 32 % DP != 0; 4 works. Above: 9..15 do not divide 32; 16 = 2 nodes.
  EXPECT_EQ(r.nearest_below, 4);
  EXPECT_EQ(r.nearest_above, 16);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].flag, "--nproc-per-node");
  EXPECT_EQ(r.changes[0].from, "1");
  EXPECT_EQ(r.changes[0].to, "8");
  EXPECT_EQ(r.command,
            "torchrun --nproc-per-node 8 $MEGATRON_LM/pretrain_gpt.py \\\n"
            "  --num-layers 28 --micro-batch-size 1 --global-batch-size 32 --seq-length 2048 \\\n"
            "  --lr 1e-5\n");
  EXPECT_FALSE(r.convergence_rerun);
  EXPECT_THAT(r.why, HasSubstr("need not be re-run"));
}

TEST(Relayout, sixteen_gpus_are_two_nodes_and_torchrun_gets_nnodes) {
  auto r = relayout(dense(16), kMegatron, "c");
  EXPECT_THAT(r.violations, IsEmpty());
  EXPECT_EQ(r.layout.dp, 16);
  EXPECT_EQ(r.nodes, 2);
  EXPECT_THAT(r.command, HasSubstr("torchrun --nproc-per-node 8 --nnodes 2 $MEGATRON_LM/pretrain_gpt.py"));
}

TEST(Relayout, twelve_gpus_do_not_divide_the_batch_and_the_nearest_counts_are_named) {
  // DP 12: 32 % 12 = 8; 12 > 8 GPUs per node and 12 % 8 = 4: two rules broken.
  auto r = relayout(dense(12), kMegatron, "c");
  EXPECT_THAT(whats(r), ElementsAre("the global batch of 32 rows does not divide by DP 12",
                                    "12 GPUs do not fill whole nodes of 8 GPUs"));
  EXPECT_EQ(r.nearest_below, 8);
  EXPECT_EQ(r.nearest_above, 16);
  EXPECT_EQ(r.command, "");  // nothing to run
}

TEST(Relayout, megatron_needs_the_batch_to_divide_by_dp_times_micro_batch) {
  // Micro-batch 2 on 32 GPUs: DP 32 divides 32 rows, but 32 x 2 = 64 does not. Below: 16 (16 x 2 = 32 divides 32).
  // Above: DP can be at most 32 rows, so no count above 32 fits.
  auto r = relayout(dense(32, 2), kMegatron, "c");
  EXPECT_THAT(whats(r), ElementsAre("the global batch of 32 rows does not divide by DP 32 x micro-batch 2 (Megatron-LM "
                                    "requires it)"));
  EXPECT_EQ(r.nearest_below, 16);
  EXPECT_EQ(r.nearest_above, std::nullopt);
}

TEST(Relayout, a_moe_recipe_keeps_ep_within_a_pipeline_stage) {
  // TP 2, EP 8, ETP 1 on 16 GPUs: DP = 16 / 2 = 8, 128 % 8 = 0, 16 / PP 1 = 16 is a multiple of EP 8 x ETP 1.
  auto r = relayout(moe(16), kSlime, "c");
  EXPECT_THAT(r.violations, IsEmpty());
  EXPECT_EQ(r.layout.dp, 8);
  EXPECT_EQ(r.nodes, 2);
  EXPECT_THAT(r.command, HasSubstr("--actor-num-nodes 2 --actor-num-gpus-per-node 8 \\\n"));
  ASSERT_EQ(r.changes.size(), 1u);  // the GPUs per node stay 8
  EXPECT_EQ(r.changes[0].flag, "--actor-num-nodes");
}

TEST(Relayout, a_moe_recipe_on_12_gpus_breaks_three_rules) {
  // 12 / TP 2 = DP 6: 128 % 6 = 2; 12 / PP 1 = 12 is not a multiple of EP 8; 12 is not whole nodes of 8.
  // Below: 8 (DP 4, 8 % 8 = 0). Above: 16.
  auto r = relayout(moe(12), kSlime, "c");
  EXPECT_THAT(whats(r), ElementsAre("GPUs per pipeline stage (12 / PP 1 = 12) is not a multiple of EP 8 x ETP 1",
                                    "the global batch of 128 rows does not divide by DP 6",
                                    "12 GPUs do not fill whole nodes of 8 GPUs"));
  EXPECT_EQ(r.nearest_below, 8);
  EXPECT_EQ(r.nearest_above, 16);
}

TEST(Relayout, gpus_that_make_no_whole_replica_are_named) {
  // TP 2 x PP 1 x CP 1 = 2 GPUs a replica: 7 GPUs make 3.5.
  auto r = relayout(moe(7), kSlime, "c");
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations[0].what, "7 GPUs do not make whole replicas of TP 2 x PP 1 x CP 1 = 2 GPUs");
  EXPECT_EQ(r.violations[0].fix, "use a multiple of 2 GPUs");
  EXPECT_EQ(r.nearest_below, std::nullopt);  // 6, 4, 2: EP 8 never fits fewer than 8 GPUs per stage
  EXPECT_EQ(r.nearest_above, 8);
}

TEST(Relayout, a_new_row_length_raises_max_tokens_sets_autotune_and_asks_for_the_convergence_check) {
  // L' = 16384 with CP 1: max_tokens_per_gpu 9216 cannot hold a row, so it becomes 16384.
  RelayoutRequest q = moe(8);
  q.new_row_length = 16384;
  auto r = relayout(q, kSlime, "c");
  EXPECT_THAT(r.violations, IsEmpty());
  EXPECT_EQ(r.layout.max_tokens_per_gpu, 16384);
  EXPECT_TRUE(r.convergence_rerun);
  EXPECT_THAT(r.why, HasSubstr("re-run the convergence check"));
  EXPECT_THAT(r.command, ::testing::StartsWith("AUTOTUNE_SEQ_LEN=16384 python3 <slime entry module>"));
  EXPECT_THAT(r.command, HasSubstr("--max-tokens-per-gpu 16384 "));
  // With CP 2 the same row needs only 8192 per GPU, and 9216 already holds it.
  q.cp = 2;
  q.gpus = 16;
  auto r2 = relayout(q, kSlime, "c");
  EXPECT_THAT(r2.violations, IsEmpty());
  EXPECT_EQ(r2.layout.max_tokens_per_gpu, 9216);
  EXPECT_THAT(r2.command, HasSubstr(" --context-parallel-size 2"));
}

TEST(Relayout, a_recipe_whose_bins_cannot_hold_a_row_fails_at_every_gpu_count) {
  RelayoutRequest q = moe(8);
  q.layout.max_tokens_per_gpu = 4096;  // 4096 x CP 1 < 8192, whatever G
  auto r = relayout(q, kSlime, "c");
  EXPECT_THAT(whats(r), ElementsAre("max_tokens_per_gpu 4096 x CP 1 = 4096 tokens cannot hold a row of 8192"));
  EXPECT_EQ(r.violations[0].fix, "raise --max-tokens-per-gpu to at least 8192");
  EXPECT_EQ(r.nearest_below, std::nullopt);
  EXPECT_EQ(r.nearest_above, std::nullopt);
}

TEST(Relayout, a_new_tp_is_written_into_the_command_and_a_megatron_row_length_into_seq_length) {
  RelayoutRequest q = dense(8);
  q.tp = 2;  // DP = 8 / 2 = 4
  q.new_row_length = 4096;
  auto r = relayout(q, kMegatron, "c");
  EXPECT_THAT(r.violations, IsEmpty());
  EXPECT_EQ(r.layout.dp, 4);
  EXPECT_THAT(r.command, HasSubstr("--seq-length 4096 \\\n"));
  EXPECT_THAT(r.command, ::testing::EndsWith("--lr 1e-5 --tensor-model-parallel-size 2\n"));
}

TEST(Relayout, a_flag_given_as_a_variable_is_left_with_a_note) {
  auto r = relayout(dense(8), "torchrun --nproc-per-node $NGPU pretrain_gpt.py --lr 1e-5", "c");
  EXPECT_THAT(r.notes, ElementsAre("--nproc-per-node is given as $NGPU: set it to 8"));
  EXPECT_THAT(r.changes, IsEmpty());
}

TEST(Relayout, the_flag_equals_value_spelling_is_rewritten_too) {
  auto r = relayout(moe(16), "python3 train.py --actor-num-nodes=1 --actor-num-gpus-per-node=8 --x 1", "c");
  // The layout's TP 2 and EP 8 are absent from this command, so they are written out, with ETP 1 (Megatron's
  // default ETP would be TP's 2), in that order.
  EXPECT_EQ(r.command,
            "python3 train.py --actor-num-nodes=2 --actor-num-gpus-per-node=8 --x 1 "
            "--tensor-model-parallel-size 2 --expert-model-parallel-size 8 --expert-tensor-parallel-size 1");
}

ModelShape qwen3_30b_a3b() {
  const auto file = testing::fixtures_dir() / "configs/Qwen3-30B-A3B/config.json";
  return shape_from_config(parse_json_strict(read_file(file), file.string(), ""), "Qwen3-30B-A3B");
}

// Qwen3-30B-A3B run at TP 1, EP 8 on `gpus` GPUs (a batch of 128 rows), asked for TP 2. Its setup has sequence
// parallelism off, as the argument dump of a TP-1 run records it.
RelayoutRequest qwen3_30b_a3b_to_tp2(std::int64_t gpus) {
  RelayoutRequest q = dense(gpus);
  q.global_batch = 128;
  q.layout.ep = 8;
  q.model = qwen3_30b_a3b();
  q.setup.layout = q.layout;
  q.setup.sequence_parallel = false;
  q.tp = 2;
  return q;
}

// Regression: an MoE relayout from TP 1 to TP 2 was refused for missing sequence parallelism when the command passes
// --sequence-parallel (Megatron-LM's dump records it off at TP 1).
TEST(Relayout, an_moe_recipe_that_passes_sequence_parallel_keeps_it_at_a_new_tp) {
  OPENRECIPES_REQUIRE_FIXTURE_FILE(testing::fixtures_dir() / "configs/Qwen3-30B-A3B/config.json");
  const RelayoutRequest q = qwen3_30b_a3b_to_tp2(8);
  const std::string with_sp = kMegatron.substr(0, kMegatron.size() - 1) + " --sequence-parallel\n";
  auto r = relayout(q, with_sp, "c");
  ASSERT_THAT(whats(r), IsEmpty()) << r.command;
  EXPECT_THAT(r.command, HasSubstr("--tensor-model-parallel-size 2 "));
  EXPECT_THAT(r.command, HasSubstr("--lr 1e-5 --sequence-parallel --tensor"));  // kept where the recipe wrote it
  EXPECT_THAT(r.notes, IsEmpty());                                              // nothing added of relayout's own
  ASSERT_TRUE(r.memory);
  // Without the flag (relayout once refused, and refused its own TP-2 suggestion the same way) it is added, after the
  // TP it needs, and said: moe_layer.py raises at TP > 1 without it.
  auto without = relayout(q, kMegatron, "c");
  EXPECT_THAT(whats(without), IsEmpty()) << without.command;
  EXPECT_NE(without.command.find("--tensor-model-parallel-size 2 --sequence-parallel"), std::string::npos)
      << without.command;
  EXPECT_THAT(without.notes,
              ::testing::Contains(HasSubstr("--sequence-parallel added: MoE training at TP 2 needs it")));
  ASSERT_TRUE(without.memory);
  EXPECT_EQ(without.memory->peak_mib, r.memory->peak_mib);  // planned as the run with the flag given
  // A dense model at TP 2 is left as the command says (sequence parallelism is its choice there).
  const auto file = testing::fixtures_dir() / "configs/Qwen3-8B/config.json";
  OPENRECIPES_REQUIRE_FIXTURE_FILE(file);
  RelayoutRequest d = dense(8);
  d.global_batch = 128;
  d.model = shape_from_config(parse_json_strict(read_file(file), file.string(), ""), "Qwen3-8B");
  d.setup.layout = d.layout;
  d.tp = 2;
  const auto dense_r = relayout(d, kMegatron, "c");
  ASSERT_THAT(whats(dense_r), IsEmpty());
  EXPECT_NE(dense_r.command.find("--tensor-model-parallel-size 2"), std::string::npos) << dense_r.command;
  EXPECT_EQ(dense_r.command.find("--sequence-parallel"), std::string::npos) << dense_r.command;
}

// Regression: relayout turned sequence parallelism on for MoE at TP > 1 only where the GPUs made whole replicas, so
// at 9 GPUs (no whole replica of TP 2) it blamed a missing --sequence-parallel, and found no nearest count at all.
TEST(Relayout, an_moe_recipe_at_a_new_tp_on_a_gpu_count_without_whole_replicas_names_the_nearest_counts) {
  OPENRECIPES_REQUIRE_FIXTURE_FILE(testing::fixtures_dir() / "configs/Qwen3-30B-A3B/config.json");
  const RelayoutRequest q = qwen3_30b_a3b_to_tp2(9);
  const auto r = relayout(q, kMegatron, "c");
  // The GPU-count rules alone (9 is odd, not a multiple of EP 8 x ETP 1, and more than one node of 8 without filling
  // two): no rule of the model, so sequence parallelism is on for TP 2.
  EXPECT_THAT(whats(r), ElementsAre("9 GPUs do not make whole replicas of TP 2 x PP 1 x CP 1 = 2 GPUs",
                                    "GPUs per pipeline stage (9 / PP 1 = 9) is not a multiple of EP 8 x ETP 1",
                                    "9 GPUs do not fill whole nodes of 8 GPUs"));
  // TP 2 x EP 8 (ETP 1): 8 GPUs make DP 4 with EP 8 over a pipeline stage's 8 GPUs; 16 the next multiple of 8.
  EXPECT_EQ(r.nearest_below, 8);
  EXPECT_EQ(r.nearest_above, 16);
}

// Regression: a slime recipe that did not fit was given a suggestion with new recompute, and relayout then refused its
// own suggestion, blaming a --recompute nobody gave. Recompute is Megatron-LM's flags in slime's command too: relayout
// writes them; the micro-batch (slime packs rows itself) stays the recipe's.
TEST(Relayout, a_slime_recipes_suggestions_each_relayout_as_given) {
  OPENRECIPES_REQUIRE_FIXTURE_FILE(testing::fixtures_dir() / "configs/Qwen3-30B-A3B/config.json");
  RelayoutRequest q = moe(16);
  q.model = qwen3_30b_a3b();
  q.setup.layout = q.layout;
  q.setup.layout.micro_batch = 1;
  q.setup.recompute = {Recompute::none, 1};
  q.setup.sequence_parallel = true;
  q.setup.distributed_optimizer = true;
  q.setup.impl = Impl::te;
  q.memory_mib = 81559;  // an H100's: too little for the recipe's own layout on 16 GPUs
  auto r = relayout(q, kSlime, "c");
  ASSERT_THAT(whats(r), ElementsAre(HasSubstr("the predicted peak of")));
  ASSERT_FALSE(r.suggestions.empty());
  for (const auto& x : r.suggestions) {
    EXPECT_EQ(x.setup.layout.micro_batch, r.layout.micro_batch) << x.what;
    RelayoutRequest s = q;
    s.tp = x.setup.layout.tp, s.pp = x.setup.layout.pp, s.cp = x.setup.layout.cp, s.ep = x.setup.layout.ep;
    if (x.setup.recompute != q.setup.recompute) s.recompute = x.setup.recompute;
    const auto again = relayout(s, kSlime, "c");
    EXPECT_THAT(whats(again), IsEmpty()) << x.what;
    if (s.recompute) {
      EXPECT_THAT(again.command, HasSubstr("--recompute-granularity full")) << x.what;
    }
  }
  // The micro-batch is still slime's own.
  RelayoutRequest mbs = q;
  mbs.micro_batch = 2;
  EXPECT_THROW(relayout(mbs, kSlime, "c"), InputError);
}

TEST(Relayout, bad_sizes_and_commands_are_input_errors) {
  EXPECT_THROW(relayout(dense(0), kMegatron, "c"), InputError);
  RelayoutRequest q = dense(8);
  q.tp = 0;
  EXPECT_THROW(relayout(q, kMegatron, "c"), InputError);
  EXPECT_THROW(relayout(dense(8), "torchrun x.py; rm -rf /", "c"), InputError);
}

}  // namespace
}  // namespace openrecipes::layout
