// The step-time model's terms (layout/step_time.h) against hand calculations on a toy dense model, and the planner's
// order by the prediction.
#include "layout/step_time.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

#include "layout/planner.h"
#include "layout/step_time_fit.h"

namespace openrecipes::layout {
namespace {

// 4 layers of hidden 1,024, 8 heads of 128 channels (no GQA), a SwiGLU MLP of 4,096, an untied vocabulary of 32,768.
ModelShape toy() {
  ModelShape m;
  m.name = "toy";
  m.layers = 4, m.hidden = 1024, m.vocab = 32768, m.heads = 8, m.query_groups = 8, m.head_dim = 128;
  m.v_head_dim = 128, m.tied = false, m.gated = true, m.ffn_hidden = 4096;
  m.attention_params = 4 * (4 * 1024 * 1024);  // Q, K, V and the output projection, h × h each
  m.dense_mlp_params = 4 * (3 * 1024 * 4096);  // gate, up, down
  m.norm_params = 2 * 1024 * 4 + 1024;
  m.embedding_params = 32768 * 1024;
  return m;
}

// Round figures: 1,000 TFLOP/s BF16, 2,000 FP8, 4,000 GB/s HBM, 900 GB/s NVLink, 3,200 Gbit/s an instance of 8 GPUs
// (50 GB/s a GPU), nodes of 8.
GpuSpeed gpu() { return {1000, 2000, 4000, 900, 3200, 8, 8}; }

// Transformer Engine, rows of 2,048 tokens, `gbs` rows a step, micro-batch 1, on one GPU unless changed.
TrainingSetup setup(std::int64_t gbs) {
  TrainingSetup t;
  t.impl = Impl::te;
  t.row_length = 2048;
  t.global_batch = gbs;
  return t;
}

TEST(StepTime, one_gpu_terms_are_the_layers_flops_over_the_peak_run_once_a_micro_batch) {
  const auto b = step_time_basis(toy(), setup(4), gpu(), Precision::bf16);
  EXPECT_EQ(b.stage, 0);
  EXPECT_DOUBLE_EQ(b.micro_batch_runs, 4);  // 4 rows a step, 1 a micro-batch, no pipeline
  const double T = 2048;
  // Forward FLOPs of a micro-batch: 2 × tokens × weights of every linear layer and the output layer; forward and
  // backward are 3 forwards; 4 micro-batches.
  const double linear = 2 * T * (4.0 * 4 * 1024 * 1024 + 4.0 * 3 * 1024 * 4096 + 1024.0 * 32768);
  EXPECT_NEAR(b.seconds[kGemmBf16], linear * 3 * 4 / 1e15, 1e-12);
  EXPECT_EQ(b.seconds[kGemmFp8], 0);
  // Causal attention: S × S × heads × (128 + 128) a layer forward, flash backward 2.5 more.
  EXPECT_NEAR(b.seconds[kAttention], 2048.0 * 2048 * 8 * 256 * 4 * 3.5 * 4 / 1e15, 1e-12);
  EXPECT_EQ(b.seconds[kNvlink], 0);
  EXPECT_EQ(b.seconds[kNetwork], 0);
  EXPECT_EQ(b.seconds[kDataParallel], 0);  // one replica: nothing to reduce
  EXPECT_EQ(b.seconds[kCollectives], 0);
  EXPECT_NEAR(b.seconds[kLayerOverhead], 4 * 1e-3 * 4, 1e-15);
  EXPECT_EQ(b.seconds[kLocalOverhead], 0);
  EXPECT_EQ(b.seconds[kMoeOverhead], 0);
  EXPECT_EQ(b.seconds[kStepOverhead], 1);
  // Small GEMMs: each GEMM's time × 1,024 / its smallest side; every side here is at least 1,024 but the attention's
  // 8 heads × 128 = 1,024: the term equals the GEMM term.
  EXPECT_NEAR(b.seconds[kGemmSmall], b.seconds[kGemmBf16], 1e-12);
}

TEST(StepTime, tensor_parallel_all_reduces_ride_nvlink_inside_a_node_and_the_network_across_nodes) {
  auto t = setup(4);
  t.layout.tp = 2;
  t.sequence_parallel = true;
  const auto inside = step_time_basis(toy(), t, gpu(), Precision::bf16);
  // Four all-reduces (or reduce-scatter + all-gather pairs) a layer each way and, with sequence parallelism, the
  // backward's all-gather of each GEMM input again: 10 × (n - 1) / n × T × h × 2 bytes, over one direction of NVLink
  // (450 GB/s), 4 layers, 4 micro-batches.
  const double bytes = 10 * 0.5 * 2048.0 * 1024 * 2 * 4;
  EXPECT_NEAR(inside.seconds[kNvlink], bytes * 4 / 450e9, 1e-12);
  EXPECT_EQ(inside.seconds[kNetwork], 0);
  EXPECT_NEAR(inside.seconds[kCollectives], 10 * 4 * 1e-4 * 4, 1e-12);  // 10 calls a layer, 0.1 ms each
  // On nodes of one GPU the same bytes cross the network: 3,200 Gbit/s / 8 bits / the instance's 8 GPUs = 50 GB/s,
  // however few GPUs of a node the job uses.
  GpuSpeed small = gpu();
  small.gpus_per_node = 1;
  const auto across = step_time_basis(toy(), t, small, Precision::bf16);
  EXPECT_EQ(across.seconds[kNvlink], 0);
  EXPECT_NEAR(across.seconds[kNetwork], bytes * 4 / 50e9, 1e-12);
  // TP halves each GPU's GEMM FLOPs.
  const auto one = step_time_basis(toy(), setup(4), gpu(), Precision::bf16);
  EXPECT_NEAR(inside.seconds[kGemmBf16], one.seconds[kGemmBf16] / 2, 1e-12);
}

TEST(StepTime, the_pipeline_runs_its_stage_micro_batches_plus_the_bubble_over_vpp) {
  auto t = setup(8);
  t.layout.pp = 2;
  t.layout.vpp = 2;
  const auto b = step_time_basis(toy(), t, gpu(), Precision::bf16);
  EXPECT_DOUBLE_EQ(b.micro_batch_runs, 8 + 1.0 / 2);  // 8 micro-batches, (PP - 1) / VPP
  EXPECT_EQ(b.stage, 1);                              // the last stage adds the output layer
  // The last stage: 2 layers and the output layer.
  const double linear = 2 * 2048.0 * (2.0 * 4 * 1024 * 1024 + 2.0 * 3 * 1024 * 4096 + 1024.0 * 32768);
  EXPECT_NEAR(b.seconds[kGemmBf16], linear * 3 * 8.5 / 1e15, 1e-12);
  // Stages exchange activations on NVLink (both stages in one node): 2 × T × h × 2 bytes × VPP a micro-batch.
  EXPECT_NEAR(b.seconds[kNvlink], 2 * 2048.0 * 1024 * 2 * 2 * 8.5 / 450e9, 1e-12);
}

// Each lane at its own slowest stage: 4 layers + the loss over PP 5 (a review's case, the loss counted in the split)
// give stages of 1, 1, 1, 1 and 0 layers: the GPU lane is the last stage's (the output layer outweighs a layer of this
// toy), the host lane a 1-layer stage's, 1 ms a layer a micro-batch run at unit constants. Before, both lanes came from
// the last stage, whose host work (no layer) is none.
TEST(StepTime, each_lane_runs_at_its_own_slowest_stage) {
  auto t = setup(8);
  t.layout.pp = 5;
  t.loss_in_split = true;
  const auto b = step_time_basis(toy(), t, gpu(), Precision::bf16);
  EXPECT_EQ(b.stage, 4);
  EXPECT_LT(b.host_stage, 4);
  EXPECT_DOUBLE_EQ(b.micro_batch_runs, 8 + 4.0);
  EXPECT_DOUBLE_EQ(b.seconds[kLayerOverhead], 1e-3 * 12);
  const auto p = predict_step_time(toy(), t, gpu(), Precision::bf16);
  EXPECT_EQ(p.pace_stage(), p.host_bound() ? b.host_stage : b.stage);
  // Each lane is its longest stage's at the fitted constants (a review's case: a stage of many dense layers against
  // one of fewer heavier ones), computed here from every stage's terms: 3 layers on stage 0, 1 and the output layer
  // on stage 1.
  t.loss_in_split = false;
  t.layout.pp = 2;
  t.first_stage_layers = 3;
  const auto stages = step_time_stage_bases(toy(), t, gpu(), Precision::bf16, stage_split(toy(), t));
  ASSERT_EQ(stages.size(), 2u);
  std::array<double, 3> longest{0, 0, 0};  // device, host, once
  for (const auto& st : stages) {
    std::array<double, 3> lane{0, 0, 0};
    for (std::size_t k = 0; k < kStepTimeTerms; ++k)
      lane[std::size_t(step_time_lane(k))] += fit::kStepTimeConstants[k] * st[k];
    for (std::size_t i = 0; i < 3; ++i) longest[i] = std::max(longest[i], lane[i]);
  }
  const auto uneven = predict_step_time(toy(), t, gpu(), Precision::bf16);
  EXPECT_DOUBLE_EQ(uneven.device_s, longest[0]);
  EXPECT_DOUBLE_EQ(uneven.host_s, longest[1]);
  EXPECT_DOUBLE_EQ(uneven.step_time_s, std::max(longest[0], longest[1]) + longest[2]);
  EXPECT_EQ(uneven.basis.host_stage, 0);  // 3 layers' launches
  // By hand: 8 micro-batches + 1 of bubble, each 3 layers at 1 ms and PP's send and receive at 0.1 ms a call.
  const auto& c = fit::kStepTimeConstants;
  EXPECT_DOUBLE_EQ(uneven.host_s, 9 * (c[kLayerOverhead] * 3e-3 + c[kCollectives] * 2e-4));
}

// DP 2 inside a node: once a step, the parameters' gradients reduced and, with the distributed optimizer, the
// parameters gathered, (DP - 1) / DP of them over one direction of NVLink (450 GB/s): 6 bytes a parameter (FP32
// gradients reduce-scattered, BF16 parameters all-gathered), 8 without the distributed optimizer (an FP32
// all-reduce), 4 and 4 with --grad-reduce-in-bf16.
TEST(StepTime, data_parallel_moves_each_parameters_gradient_and_weight_once_a_step) {
  auto t = setup(4);
  t.layout.dp = 2;
  const double params = 4 * (4.0 * 1024 * 1024 + 3.0 * 1024 * 4096) + (2 * 1024 * 4 + 1024) + 2 * 32768.0 * 1024;
  const auto bytes = [&](bool distributed, bool bf16) {
    t.distributed_optimizer = distributed;
    t.grads_16bit = bf16;
    return step_time_basis(toy(), t, gpu(), Precision::bf16).seconds[kDataParallel] * 450e9 / (0.5 * params);
  };
  EXPECT_NEAR(bytes(true, false), 6, 1e-9);
  EXPECT_NEAR(bytes(false, false), 8, 1e-9);
  EXPECT_NEAR(bytes(true, true), 4, 1e-9);
  EXPECT_NEAR(bytes(false, true), 4, 1e-9);
}

TEST(StepTime, a_pipeline_whose_stages_outnumber_a_node_sends_over_the_network) {
  auto t = setup(8);
  t.layout.pp = 2;
  GpuSpeed one = gpu();
  one.gpus_per_node = 1;  // stage 0 on one node, stage 1 on the next
  const auto b = step_time_basis(toy(), t, one, Precision::bf16);
  EXPECT_EQ(b.seconds[kNvlink], 0);
  EXPECT_NEAR(b.seconds[kNetwork], 2 * 2048.0 * 1024 * 2 * (8 + 1) / 50e9, 1e-12);
}

TEST(StepTime, block_recompute_counts_per_virtual_chunk_and_recompute_repeats_the_tensor_parallel_traffic) {
  auto t = setup(8);
  t.layout.pp = 2;
  t.layout.vpp = 2;  // 2 layers a stage, 1 a chunk
  t.recompute = {Recompute::full_block, 1};
  auto full = t;
  full.recompute = {Recompute::full_uniform, 1};
  const auto block = step_time_basis(toy(), t, gpu(), Precision::bf16);
  const auto every = step_time_basis(toy(), full, gpu(), Precision::bf16);
  EXPECT_DOUBLE_EQ(block.seconds[kGemmBf16], every.seconds[kGemmBf16]);  // 1 layer of each of 2 chunks: all of them
  auto tp = setup(4);
  tp.layout.tp = 2;
  auto tp_full = tp;
  tp_full.recompute = {Recompute::full_uniform, 1};
  // Without sequence parallelism: 8 units a layer, 12 with the recomputed forward's four.
  EXPECT_NEAR(step_time_basis(toy(), tp_full, gpu(), Precision::bf16).seconds[kNvlink],
              step_time_basis(toy(), tp, gpu(), Precision::bf16).seconds[kNvlink] * 12 / 8, 1e-12);
}

TEST(StepTime, key_value_heads_replicated_above_their_groups_count_once_a_rank) {
  ModelShape m = toy();
  m.query_groups = 2;  // GQA: 2 key/value heads
  auto t = setup(4);
  t.layout.tp = 4;  // each rank keeps one key/value head, not half of one
  t.layout.cp = 2;
  t.global_batch = 4;
  const auto b = step_time_basis(m, t, gpu(), Precision::bf16);
  // CP's KV ring: 3 × (CP - 1) blocks of T = 1,024 tokens × 1 head × (128 + 128) channels × 2 bytes, 4 layers, over
  // NVLink (TP × CP = 8 GPUs, one node); TP's own traffic beside it: 8 × 3/4 × T × h × 2 bytes a layer.
  const double T = 1024, cp_bytes = 3 * 1 * T * 1 * 256 * 2 * 4, tp_bytes = 8 * 0.75 * T * 1024 * 2 * 4;
  EXPECT_NEAR(b.seconds[kNvlink], (cp_bytes + tp_bytes) * 4 / 450e9, 1e-12);
}

TEST(StepTime, fp8_moves_the_linear_layers_to_the_fp8_peak_and_keeps_the_output_layer_in_bf16) {
  const auto bf16 = step_time_basis(toy(), setup(4), gpu(), Precision::bf16);
  const auto fp8 = step_time_basis(toy(), setup(4), gpu(), Precision::fp8);
  const double output = 2 * 2048.0 * 1024 * 32768 * 3 * 4 / 1e15;
  EXPECT_NEAR(fp8.seconds[kGemmBf16], output, 1e-12);
  EXPECT_NEAR(fp8.seconds[kGemmFp8], (bf16.seconds[kGemmBf16] - output) / 2, 1e-12);  // twice the peak
  EXPECT_EQ(fp8.seconds[kAttention], bf16.seconds[kAttention]);
}

TEST(StepTime, recompute_adds_a_forward_and_the_local_implementation_its_overhead_and_scores) {
  auto full = setup(4);
  full.recompute = {Recompute::full_uniform, 1};
  const auto none = step_time_basis(toy(), setup(4), gpu(), Precision::bf16);
  const auto b = step_time_basis(toy(), full, gpu(), Precision::bf16);
  // 4 forwards of the layers instead of 3; the output layer is not recomputed.
  const double output = 2 * 2048.0 * 1024 * 32768 * 3 * 4 / 1e15;
  EXPECT_NEAR(b.seconds[kGemmBf16] - output, (none.seconds[kGemmBf16] - output) * 4 / 3, 1e-12);
  EXPECT_NEAR(b.seconds[kAttention], none.seconds[kAttention] * 4.5 / 3.5, 1e-12);
  auto local = setup(4);
  local.impl = Impl::local;
  const auto l = step_time_basis(toy(), local, gpu(), Precision::bf16);
  EXPECT_NEAR(l.seconds[kLocalOverhead], 4 * 1e-3 * 4, 1e-15);
  // The materialised scores: 4 passes of b × heads × S × S BF16 elements a layer, 3 forwards' worth with the backward.
  EXPECT_NEAR(l.seconds[kMemoryBound] - none.seconds[kMemoryBound], 2.0 * 4 * 8 * 2048 * 2048 * 4 * 3 * 4 / 4000e9,
              1e-12);
}

// The host's launches and collective calls run ahead of the GPU: the step is the longer lane plus the once terms.
double longer_lane_plus_once(const StepTimePrediction& p) {
  const double host = p.terms[kCollectives] + p.terms[kLayerOverhead] + p.terms[kLocalOverhead] + p.terms[kMoeOverhead];
  const double once = p.terms[kDataParallel] + p.terms[kStepOverhead];
  double device = 0;
  for (std::size_t k : {kGemmBf16, kGemmFp8, kGemmSmall, kAttention, kMemoryBound, kNvlink, kNetwork, kExpertParallel})
    device += p.terms[k];
  EXPECT_NEAR(p.device_s, device, 1e-12);
  EXPECT_NEAR(p.host_s, host, 1e-12);
  return std::max(device, host) + once;
}

TEST(StepTime, the_prediction_is_the_longer_of_the_gpu_and_the_host_lanes_with_the_cross_validated_interval) {
  const auto p = predict_step_time(toy(), setup(4), gpu(), Precision::bf16);
  for (std::size_t k = 0; k < kStepTimeTerms; ++k)
    EXPECT_DOUBLE_EQ(p.terms[k], fit::kStepTimeConstants[k] * p.basis.seconds[k]) << step_time_term_name(k);
  const double step = longer_lane_plus_once(p);
  EXPECT_DOUBLE_EQ(p.step_time_s, step);
  EXPECT_DOUBLE_EQ(p.low_s, step / (1 + step_time_error90()));
  EXPECT_DOUBLE_EQ(p.high_s, step * (1 + step_time_error90()));
  EXPECT_STREQ(step_time_term_name(kStepTimeTerms), "unknown");
}

TEST(StepTime, a_small_layer_waits_on_the_host_and_a_large_one_hides_it) {
  // The toy's layer on rows of 128 tokens is under a millisecond of GPU work against the host's milliseconds of
  // launches a layer; on rows of 32,768 tokens at micro-batch 4 (64 times the tokens of rows of 2,048) the GPU works
  // far longer than the host takes to launch it. Either way the step is the longer lane plus the once terms.
  auto short_rows = setup(4);
  short_rows.row_length = 128;
  const auto tiny = predict_step_time(toy(), short_rows, gpu(), Precision::bf16);
  EXPECT_TRUE(tiny.host_bound());
  EXPECT_GT(tiny.host_s, 2 * tiny.device_s);
  EXPECT_DOUBLE_EQ(tiny.step_time_s, longer_lane_plus_once(tiny));
  auto long_rows = setup(4);
  long_rows.row_length = 32768;
  long_rows.layout.micro_batch = 4;
  const auto big = predict_step_time(toy(), long_rows, gpu(), Precision::bf16);
  EXPECT_FALSE(big.host_bound());
  EXPECT_GT(big.device_s, 10 * big.host_s);
  EXPECT_DOUBLE_EQ(big.step_time_s, longer_lane_plus_once(big));
}

TEST(StepTime, sizes_below_one_and_a_gpu_without_rates_are_refused) {
  auto t = setup(4);
  t.global_batch = 0;
  EXPECT_THROW(step_time_basis(toy(), t, gpu(), Precision::bf16), InputError);
  GpuSpeed none = gpu();
  none.hbm_gb_per_s = 0;
  EXPECT_THROW(step_time_basis(toy(), setup(4), none, Precision::bf16), InputError);
  GpuSpeed no_fp8 = gpu();  // an A100: no FP8 tensor cores, BF16 runs
  no_fp8.fp8_tflops = 0;
  EXPECT_THROW(step_time_basis(toy(), setup(4), no_fp8, Precision::fp8), InputError);
  EXPECT_NO_THROW(step_time_basis(toy(), setup(4), no_fp8, Precision::bf16));
}

TEST(StepTime, plan_orders_the_layouts_that_fit_by_predicted_step_time) {
  PlanRequest q;
  q.gpus = 8;
  q.row_length = 2048;
  q.global_batch = 32;
  q.memory_mib = 80 * 1024;
  q.speed = gpu();
  const auto plans = plan_layouts(toy(), q);
  ASSERT_GT(plans.size(), 10u);
  for (std::size_t i = 1; i < plans.size(); ++i) {
    ASSERT_TRUE(plans[i].step_time);
    if (plans[i].fits == plans[i - 1].fits) {
      EXPECT_LE(plans[i - 1].step_time->step_time_s, plans[i].step_time->step_time_s);
    } else {
      EXPECT_TRUE(plans[i - 1].fits);  // every layout that fits comes first
    }
  }
  q.speed.reset();
  EXPECT_FALSE(plan_layouts(toy(), q).front().step_time);  // no rates: no prediction, the heuristic's order
}

}  // namespace
}  // namespace openrecipes::layout
