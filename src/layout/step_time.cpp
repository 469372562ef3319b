// The step-time model (issue 42; docs/step-time-model.md). FLOPs and bytes are counted per GPU at the layout's shapes
// from Megatron-LM d98e8a64's layers; the constants that turn them into seconds are fitted (step_time_fit.h).
#include "layout/step_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "layout/step_time_fit.h"

namespace openrecipes::layout {
namespace {

constexpr double kBf16 = 2;  // bytes an activation element takes
// Elements of elementwise traffic per token and hidden channel in one layer's forward, on the tokens a rank holds (S/TP
// with sequence parallelism): two norms (read + write: 4), two residual adds (read 2, write 1: 6), the bias-dropout-
// adds (6) and the layout copies around attention (4).
constexpr double kElementwisePerHidden = 20;
// Adam's step per parameter, fp32 master weights: read the gradient, weight, m and v (16 B), write weight, m and v
// (12 B) and the BF16 copy (2 B).
constexpr double kOptimizerBytesPerParam = 30;
// The loss on a logit: the BF16 logit read, the FP32 upcast, softmax and its gradient (Megatron's vocab-parallel
// cross-entropy): four passes of 4 bytes.
constexpr double kLossBytesPerLogit = 16;
// Flash attention's backward recomputes the scores: 2.5 forwards (Dao, FlashAttention-2, section 3.1).
constexpr double kAttentionBackward = 2.5;
// A GEMM's smallest dimension at which the small-GEMM term equals its time at peak.
constexpr double kSmallGemmDim = 1024;

// Bytes each GPU moves in a ring all-reduce (2 (n - 1) / n), a reduce-scatter or all-gather ((n - 1) / n) and an
// all-to-all ((n - 1) / n) of `bytes` over `n` ranks.
double ring_share(double n) { return n > 1 ? (n - 1) / n : 0.0; }

// The work of one micro-batch (forward and backward) on one stage, at unit constants, and the bytes moved.
struct StageWork {
  std::array<double, kStepTimeTerms> seconds{};
};

struct Rates {
  double bf16_flops, fp8_flops, hbm, nvlink, network;  // per second (FLOP/s, B/s)
  std::int64_t gpn;
};

Rates rates_of(const GpuSpeed& g) {
  if (!(g.bf16_tflops > 0) || !(g.hbm_gb_per_s > 0) || !(g.nvlink_gb_per_s > 0) || !(g.node_network_gbit_per_s > 0) ||
      g.gpus_per_node < 1 || g.instance_gpus < 1)
    throw InputError(
        "step time", "the GPU type lacks its peaks, HBM, NVLink or network figures",
        "give them in gpus.yaml (dense_fp8_tflops, hbm_gb_per_s, nvlink_gb_per_s, node_network_gbit_per_s)");
  const double fp8 = g.fp8_tflops > 0 ? g.fp8_tflops : g.bf16_tflops;
  return {g.bf16_tflops * 1e12,
          fp8 * 1e12,
          g.hbm_gb_per_s * 1e9,
          g.nvlink_gb_per_s / 2 * 1e9,
          g.node_network_gbit_per_s / 8 * 1e9 / double(g.instance_gpus),
          g.gpus_per_node};
}

// A collective over ranks spanning `span` consecutive GPUs: inside a node on NVLink, else on the network (a ring runs
// at its slowest link).
void add_ring(StageWork& w, const Rates& r, double bytes, std::int64_t span) {
  if (span > r.gpn)
    w.seconds[kNetwork] += bytes / r.network;
  else
    w.seconds[kNvlink] += bytes / r.nvlink;
}

struct Gemm {
  double flops;    // forward, per GPU
  double min_dim;  // its smallest dimension
};

// One micro-batch's work on a stage of `Ls` layers, `moe_in` of them with experts, the output layer when `last`.
StageWork stage_work(const ModelShape& m, const TrainingSetup& t, const Rates& r, Precision p, double Ls, double moe_in,
                     bool last) {
  const Layout& l = t.layout;
  const double tp = double(l.tp), cp = double(l.cp), ep = double(l.ep), etp = double(l.etp);
  const double S = double(t.row_length), T = double(l.micro_batch) * S / cp;  // tokens a CP rank holds
  const double Tsp = t.sequence_parallel ? T / tp : T;                        // tokens of a rank's elementwise work
  const double h = double(m.hidden), dense_in = Ls - moe_in;
  const double linear_peak = p == Precision::fp8 ? r.fp8_flops : r.bf16_flops;
  const std::size_t linear_term = p == Precision::fp8 ? kGemmFp8 : kGemmBf16;
  const bool full = t.recompute.kind == Recompute::full_uniform || t.recompute.kind == Recompute::full_block;
  // Block recompute redoes --recompute-num-layers of each virtual pipeline chunk (Megatron applies it per chunk).
  const double block = double(t.recompute.layers) * double(l.vpp.value_or(1));
  const double recomputed = !full                                       ? 0
                            : t.recompute.kind == Recompute::full_block ? std::min(Ls, block) / std::max(Ls, 1.0)
                                                                        : 1.0;
  const double passes = 3 + recomputed;  // forward, backward (2 forwards), recomputed forward

  StageWork w;
  auto gemm = [&](const Gemm& g, double layers, std::size_t term, double peak, double times) {
    const double s = g.flops * layers * times / peak;
    w.seconds[term] += s;
    w.seconds[kGemmSmall] += s * kSmallGemmDim / std::max(g.min_dim, 1.0);
  };
  const double heads_tp = double(m.heads) / tp;
  gemm({2 * T * per_count(m.attention_params, m.layers) / tp, std::min({T, h, heads_tp * double(m.v_head_dim)})}, Ls,
       linear_term, linear_peak, passes);
  if (dense_in > 0)
    gemm({2 * T * per_count(m.dense_mlp_params, m.dense_layers()) / tp, std::min({T, h, double(m.ffn_hidden) / tp})},
         dense_in, linear_term, linear_peak, passes);
  if (moe_in > 0) {
    if (m.shared_expert_params > 0)
      gemm({2 * T * per_count(m.shared_expert_params, m.moe_layers) / tp,
            std::min({T, h, double(m.shared_ffn_hidden) / tp})},
           moe_in, linear_term, linear_peak, passes);
    const double per_expert = per_count(m.expert_params, m.moe_layers * m.experts), k = double(m.top_k);
    const double expert_rows = T * k * ep * etp / (double(m.experts) * tp);  // tokens of one local expert's GEMM
    gemm({2 * T * k * per_expert / tp, std::min({expert_rows, h, double(m.expert_ffn_hidden) / etp})}, moe_in,
         linear_term, linear_peak, passes);
  }
  if (last)  // the output layer, in BF16, never recomputed
    gemm({2 * T * h * double(m.vocab) / tp, std::min({T, h, double(m.vocab) / tp})}, 1, kGemmBf16, r.bf16_flops, 3);

  // Core attention, causal: Q·Kᵀ and the weighted sum of V over half the S × S/CP scores.
  const double attention_fwd = double(l.micro_batch) * (S / cp) * S * heads_tp * double(m.head_dim + m.v_head_dim);
  const double attention_passes = 1 + kAttentionBackward +
                                  (full                                       ? recomputed
                                   : t.recompute.kind == Recompute::selective ? 1
                                                                              : 0);
  w.seconds[kAttention] += attention_fwd * Ls * attention_passes / r.bf16_flops;

  // Memory-bound work, forward bytes of a layer; the backward moves twice as much.
  // Key/value heads a rank holds: its share of the query groups, at least one (TP above the groups replicates them).
  const double kv_heads = std::max(double(m.query_groups) / tp, 1.0);
  const double qkv_width = heads_tp * double(m.head_dim) + kv_heads * double(m.head_dim + m.v_head_dim);
  double layer_bytes = kBf16 * (kElementwisePerHidden * Tsp * h + 2 * T * qkv_width);
  if (t.impl == Impl::local || t.unfused_attention)  // scores written, soft-maxed, read: four passes
    layer_bytes += kBf16 * 4 * double(l.micro_batch) * heads_tp * (S / cp) * S;
  double bytes = layer_bytes * Ls;
  const double act = m.gated ? 3 : 2;  // SwiGLU reads two halves, writes one
  bytes += kBf16 * act * T * double(m.ffn_hidden) / tp * dense_in;
  if (moe_in > 0) {
    const double k = double(m.top_k);
    bytes += kBf16 * moe_in *
             (act * T * k * double(m.expert_ffn_hidden) / tp + 4 * T * k * h / tp +
              act * T * double(m.shared_ffn_hidden) / tp);
  }
  w.seconds[kMemoryBound] += bytes * passes / r.hbm;
  if (last) w.seconds[kMemoryBound] += kLossBytesPerLogit * T * double(m.vocab) / tp / r.hbm;

  // Communication of the micro-batch, forward and backward. TP: two all-reduces (or reduce-scatter + all-gather pairs)
  // a layer each way, with sequence parallelism the backward's all-gather of each GEMM input for its weight gradient,
  // and the recomputed forward's again.
  const double tp_units = 8 + (t.sequence_parallel ? 2 : 0) + 4 * recomputed;
  if (l.tp > 1) add_ring(w, r, tp_units * ring_share(tp) * T * h * kBf16 * Ls, l.tp);
  if (l.cp > 1)  // the KV ring: CP - 1 blocks of T tokens' keys and values; the backward sends them and their gradient
    add_ring(w, r, 3 * (cp - 1) * T * kv_heads * double(m.head_dim + m.v_head_dim) * kBf16 * Ls, l.tp * l.cp);
  // EP: dispatch and combine each way (and again in a recomputed forward), in the term of their own: Megatron overlaps
  // them with other micro-batches' work where it can (--overlap-moe-expert-parallel-comm, DeepEP).
  const double ep_units = 4 + 2 * recomputed;
  if (moe_in > 0 && l.ep > 1) {
    const double bytes = ep_units * ring_share(ep) * (T / tp) * double(m.top_k) * h * kBf16 * moe_in;
    const double inside = std::min(1.0, double(r.gpn) / double(l.ep * l.etp));
    w.seconds[kExpertParallel] += bytes * inside / r.nvlink + bytes * (1 - inside) / r.network;
  }
  // PP: each chunk sends its activations forward and receives their gradient; the pipeline's slowest hop sets the
  // pace, and some hop leaves the node once the stages' GPUs outnumber a node's.
  if (l.pp > 1) add_ring(w, r, 2 * Tsp * h * kBf16 * double(l.vpp.value_or(1)), l.tp * l.cp * l.dp * l.pp);
  // Collective calls, each paying a launch and a handshake whatever its size: TP's a layer, CP's ring steps, EP's
  // dispatch and combine with their token-count exchange (three each way), PP's send and receive a chunk.
  double calls = 0;
  if (l.tp > 1) calls += tp_units * Ls;
  if (l.cp > 1) calls += 3 * (cp - 1) * Ls;
  if (l.ep > 1) calls += 1.5 * ep_units * moe_in;
  if (l.pp > 1) calls += 2 * double(l.vpp.value_or(1));
  w.seconds[kCollectives] += calls * 1e-4;
  w.seconds[kLayerOverhead] += Ls * 1e-3;
  if (t.impl == Impl::local) w.seconds[kLocalOverhead] += Ls * 1e-3;
  w.seconds[kMoeOverhead] += moe_in * 1e-3;
  return w;
}

// What runs once a step on a stage: the optimizer step and the data-parallel exchange of gradients and parameters.
void add_step_work(StageWork& w, const TrainingSetup& t, const Rates& r, const StageParameters& params) {
  const Layout& l = t.layout;
  const double dense_group = double(l.dp * l.cp), expert_group = expert_data_parallel(l);
  const double instances = double(t.optimizer_instances);  // each instance shards its own copy of the state
  const double dense_shard = t.distributed_optimizer ? dense_group / instances : 1,
               expert_shard = t.distributed_optimizer ? std::max(1.0, expert_group / instances) : 1;
  w.seconds[kMemoryBound] +=
      kOptimizerBytesPerParam * (params.dense / dense_shard + params.experts / expert_shard) / r.hbm;
  // Distributed optimizer: gradients reduce-scattered (FP32: 4 B; 16-bit, TrainingSetup::grads_16bit: 2 B) and
  // 16-bit parameters all-gathered (2 B); otherwise an all-reduce of the gradients (2 × 4 B, or 2 × 2 B).
  const double grad_bytes = t.grads_16bit ? 2 : 4;
  const double per_param = t.distributed_optimizer ? grad_bytes + 2 : 2 * grad_bytes;
  const std::int64_t span = l.tp * l.cp * l.dp;
  const double bytes = per_param * (params.dense * ring_share(dense_group) + params.experts * ring_share(expert_group));
  w.seconds[kDataParallel] += bytes / (span > r.gpn ? r.network : r.nvlink);
  w.seconds[kStepOverhead] += 1;
}

}  // namespace

const char* step_time_term_name(std::size_t term) {
  static constexpr std::array<const char*, kStepTimeTerms> names = {
      "gemm_bf16",      "gemm_fp8",       "gemm_small",      "attention",     "memory_bound",
      "nvlink",         "network",        "expert_parallel", "data_parallel", "collectives",
      "layer_overhead", "local_overhead", "moe_overhead",    "step_overhead"};
  return term < names.size() ? names[term] : "unknown";
}

StepTimeLane step_time_lane(std::size_t term) {
  switch (term) {
    case kCollectives:
    case kLayerOverhead:
    case kLocalOverhead:
    case kMoeOverhead:
      return StepTimeLane::host;
    case kDataParallel:
    case kStepOverhead:
      return StepTimeLane::once;
    default:
      return StepTimeLane::device;
  }
}

namespace {

// Every size of `t` at least 1 (the step's divisions need them).
void require_sizes(const TrainingSetup& t) {
  const Layout& l = t.layout;
  for (std::int64_t v : {l.tp, l.pp, l.cp, l.ep, l.etp, l.dp, l.micro_batch, t.row_length, t.global_batch})
    if (v < 1) throw InputError("step time", fmt::format("{} is not a size (at least 1)", v), "give positive sizes");
}

// Micro-batches + (PP - 1) / VPP: a stage's work this many times a step (the schedule with its bubble).
double micro_batch_runs(const TrainingSetup& t) {
  const Layout& l = t.layout;
  return double(t.global_batch) / double(l.dp * l.micro_batch) + double(l.pp - 1) / double(l.vpp.value_or(1));
}

}  // namespace

StepTimeBasis step_time_basis(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu, Precision precision) {
  require_sizes(t);  // before stage_split, whose own message would name the stages
  return step_time_basis(m, t, gpu, precision, stage_split(m, t));
}

namespace {

// Calls visit(stage, terms) for each pipeline stage, stage 0 first, with its terms at unit constants for the whole step
// (step_time_stage_bases); a middle stage like the one before it is not recounted.
template <class Visit>
void for_each_stage_basis(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu, Precision precision,
                          const StageSplit& split, Visit&& visit) {
  const Layout& l = t.layout;
  require_sizes(t);
  if (precision == Precision::fp8 && !(gpu.fp8_tflops > 0))
    throw InputError("step time", "FP8 GEMMs on a GPU type without FP8 tensor cores (dense_fp8_tflops 0)",
                     "predict it in BF16, or on a GPU type with FP8 (Hopper or later)");
  const Rates r = rates_of(gpu);
  const std::vector<std::int64_t>& layers = split.layers;
  const std::vector<double>& moe = split.moe;
  const double runs = micro_batch_runs(t);
  StageWork w;
  for (std::size_t s = 0; s < layers.size(); ++s) {
    const bool first = s == 0, last = s + 1 == layers.size();
    // A middle stage like the one before it (the even split's) has the same work: not recounted.
    if (!(s > 1 && !last && layers[s] == layers[s - 1] && moe[s] == moe[s - 1])) {
      w = stage_work(m, t, r, precision, double(layers[s]), moe[s], last);
      for (double& x : w.seconds) x *= runs;
      add_step_work(w, t, r, stage_parameters(m, l, double(layers[s]), moe[s], first, last));
    }
    visit(s, w.seconds);
  }
}

}  // namespace

std::vector<std::array<double, kStepTimeTerms>> step_time_stage_bases(const ModelShape& m, const TrainingSetup& t,
                                                                      const GpuSpeed& gpu, Precision precision,
                                                                      const StageSplit& split) {
  std::vector<std::array<double, kStepTimeTerms>> out;
  out.reserve(split.layers.size());
  for_each_stage_basis(m, t, gpu, precision, split,
                       [&](std::size_t, const std::array<double, kStepTimeTerms>& terms) { out.push_back(terms); });
  return out;
}

StepTimeBasis step_time_basis(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu, Precision precision,
                              const StageSplit& split) {
  // Every stage runs its micro-batches at the pace of the slowest, in each lane: the GPU's work is the stage's whose
  // device terms take longest at the fitted constants (the last, with the output layer and the loss, where the
  // stages' layers are even), the host's the stage's whose launches take longest (the most layers, MoE ones weighing
  // more), and what runs once a step the stage's with the most of it; each lane's terms from its own stage.
  StepTimeBasis out;
  out.micro_batch_runs = micro_batch_runs(t);
  std::array<double, 3> longest{-1, -1, -1};  // device, host, once
  for_each_stage_basis(m, t, gpu, precision, split,
                       [&](std::size_t s, const std::array<double, kStepTimeTerms>& terms) {
                         std::array<double, 3> lane{0, 0, 0};
                         for (std::size_t k = 0; k < kStepTimeTerms; ++k)
                           lane[std::size_t(step_time_lane(k))] += fit::kStepTimeConstants[k] * terms[k];
                         for (std::size_t i = 0; i < 3; ++i) {
                           if (!(lane[i] > longest[i])) continue;
                           longest[i] = lane[i];
                           for (std::size_t k = 0; k < kStepTimeTerms; ++k)
                             if (std::size_t(step_time_lane(k)) == i) out.seconds[k] = terms[k];
                           if (i == std::size_t(StepTimeLane::device)) out.stage = std::int64_t(s);
                           if (i == std::size_t(StepTimeLane::host)) out.host_stage = std::int64_t(s);
                         }
                       });
  return out;
}

double step_time_error90() { return fit::kStepTimeError90; }

double round_step_time(double step_s) { return std::round(step_s * 1e4) / 1e4; }

double tokens_per_s_per_gpu(std::int64_t global_batch, std::int64_t row_length, double step_s, std::int64_t gpus) {
  return double(global_batch) * double(row_length) / (step_s * double(gpus));
}

StepTimePrediction predict_step_time(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu,
                                     Precision precision) {
  require_sizes(t);
  return predict_step_time(m, t, gpu, precision, stage_split(m, t));
}

StepTimePrediction predict_step_time(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu,
                                     Precision precision, const StageSplit& split) {
  StepTimePrediction out;
  out.basis = step_time_basis(m, t, gpu, precision, split);
  double once = 0;
  for (std::size_t k = 0; k < kStepTimeTerms; ++k) {
    out.terms[k] = fit::kStepTimeConstants[k] * out.basis.seconds[k];
    const StepTimeLane lane = step_time_lane(k);
    (lane == StepTimeLane::device ? out.device_s : lane == StepTimeLane::host ? out.host_s : once) += out.terms[k];
  }
  out.step_time_s = std::max(out.device_s, out.host_s) + once;
  out.low_s = out.step_time_s / (1 + fit::kStepTimeError90);
  out.high_s = out.step_time_s * (1 + fit::kStepTimeError90);
  return out;
}

}  // namespace openrecipes::layout
