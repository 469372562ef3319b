// Predicted time of one optimizer step of a Megatron-LM training run (issue 42; docs/step-time-model.md gives every
// term, its formula and the rows its constant was fitted on). The step is the slowest pipeline stage's work for one
// micro-batch, run (micro-batches + (PP - 1) / VPP) times (the 1F1B or interleaved schedule with its bubble), plus what
// runs once a step: the optimizer and the data-parallel gradient and parameter exchange. Each kind of work is a term
// in seconds at the hardware's nominal rate (its "basis"), times a constant (src/layout/step_time_fit.h, pinned at 1
// or fitted by tools/fit_step_time.py on public measurements). The host launches kernels and collectives ahead of
// the GPU, so the step takes the longer of the GPU's terms and the host's, plus the terms that run once a step.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "layout/memory.h"
#include "layout/model_shape.h"

namespace openrecipes::layout {

/// One GPU type's rates (registry/gpus.yaml) and the node it sits in.
struct GpuSpeed {
  double bf16_tflops = 0, fp8_tflops = 0;  ///< dense peaks, TFLOP/s (no sparsity); FP8 0: none (A100)
  double hbm_gb_per_s = 0;                 ///< GB/s (10^9 bytes)
  double nvlink_gb_per_s = 0;              ///< one GPU's NVLink, both directions together (NVIDIA's figure)
  double node_network_gbit_per_s = 0;      ///< the instance's inter-node network, all its NICs
  std::int64_t instance_gpus = 8;          ///< the GPUs of the instance that network serves (each gets 1 / this)
  std::int64_t gpus_per_node = 8;          ///< the GPUs of a node the job uses: groups wider than this leave the node
};

/// The precision of the linear layers' GEMMs: BF16, or FP8 (Transformer Engine's --fp8-format, any recipe: tensor-
/// wise, block-wise or MXFP8). Attention and the output layer run in BF16 either way.
enum class Precision : unsigned char { bf16, fp8 };

/// The terms of the model, in the order of StepTimeBasis::seconds and of the fitted constants.
enum StepTimeTerm : std::size_t {
  kGemmBf16,        ///< linear-layer FLOPs in BF16 / the BF16 peak
  kGemmFp8,         ///< linear-layer FLOPs in FP8 / the FP8 peak
  kGemmSmall,       ///< Σ a GEMM's time at peak × 1024 / its smallest dimension (small GEMMs run below peak)
  kAttention,       ///< causal core-attention FLOPs / the BF16 peak (flash backward: 2.5 forwards)
  kMemoryBound,     ///< bytes of norms, activations, residuals, rope, permutes, unfused scores, loss, optimizer / HBM
  kNvlink,          ///< TP, CP and PP bytes inside a node / one direction of NVLink
  kNetwork,         ///< TP, CP and PP bytes between nodes / one GPU's share of the instance's network
  kExpertParallel,  ///< EP dispatch and combine bytes over NVLink and the network (overlapped in part)
  kDataParallel,    ///< DP gradient reduce(-scatter) and parameter all-gather bytes / their link (overlapped in part)
  kCollectives,     ///< TP, CP, EP and PP collective calls a stage makes × micro-batch runs × 0.1 ms (latency)
  kLayerOverhead,   ///< layers a stage runs × micro-batch runs × 1 ms (kernel launches and host work of a layer)
  kLocalOverhead,   ///< the same under --transformer-impl local (unfused kernels launched one by one)
  kMoeOverhead,     ///< MoE layers a stage runs × micro-batch runs × 1 ms (router, permutes, dropless token counts'
                    ///< host sync)
  kStepOverhead,    ///< 1 s a step
  kStepTimeTerms
};

/// The term's name as docs and JSON print it ("gemm_bf16", ...).
const char* step_time_term_name(std::size_t term);

/// Where a term's time goes: the GPU's work (compute, memory-bound work, TP/CP/PP/EP traffic), the host's (kernel
/// launches and collective calls, which run ahead of the GPU: the step takes the longer of the two), or once a step
/// after both (the DP exchange's exposed part and the step overhead).
enum class StepTimeLane : unsigned char { device, host, once };
StepTimeLane step_time_lane(std::size_t term);

/// The terms of one layout at unit constants: a term's seconds if its constant were 1.
struct StepTimeBasis {
  std::array<double, kStepTimeTerms> seconds{};
  std::int64_t stage = 0;       ///< the pipeline stage whose GPU work sets the pace (0-based): the device lane's
  std::int64_t host_stage = 0;  ///< the stage whose host work (launches) sets the pace: the host lane's
  double micro_batch_runs = 1;  ///< micro-batches + (PP - 1) / VPP: the stage's work this many times a step
};

/// Each pipeline stage's terms at unit constants for the whole step (its micro-batch work × micro_batch_runs, and what
/// it runs once a step: the optimizer and DP exchange of its parameters), stage 0 first: what tools/fit_step_time.py
/// fits on (the step is max(the longest stage device lane, the longest stage host lane) + the longest once lane).
/// Throws as step_time_basis.
std::vector<std::array<double, kStepTimeTerms>> step_time_stage_bases(const ModelShape& m, const TrainingSetup& t,
                                                                      const GpuSpeed& gpu, Precision precision,
                                                                      const StageSplit& split);

/// The basis of `t` on `m` with `gpu` in `precision`. The setup must keep the model's rules (model_violations empty);
/// sizes below 1 throw InputError, and so does FP8 on a GPU without FP8 peak (fp8_tflops 0). Each lane's terms come
/// from the stage where that lane takes longest at the fitted constants (step_time_stage_bases).
StepTimeBasis step_time_basis(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu, Precision precision);
/// The same with `split` = stage_split(m, t) given.
StepTimeBasis step_time_basis(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu, Precision precision,
                              const StageSplit& split);

/// A prediction: max(Σ device terms, Σ host terms) + Σ once terms, each term constant × basis, and the interval the
/// model's leave-one-model-out error gives: step / (1 + e) to step × (1 + e), which held 90% of the measured rows of
/// models left out of the fit.
struct StepTimePrediction {
  double step_time_s = 0;
  double low_s = 0, high_s = 0;
  double device_s = 0, host_s = 0;             ///< the sums of the device and the host lanes' terms
  std::array<double, kStepTimeTerms> terms{};  ///< seconds, each constant × basis
  StepTimeBasis basis;
  bool host_bound() const { return host_s > device_s; }
  /// The stage whose lane sets the step: the host lane's when host-bound, else the GPU's.
  std::int64_t pace_stage() const { return host_bound() ? basis.host_stage : basis.stage; }
};

/// e of the interval (step_time_fit.h): the 90th percentile, over the rows of models left out of the fit, of the larger
/// of predicted / measured and measured / predicted, less 1.
double step_time_error90();

/// A predicted step time as plan, relayout and tune write it: to the 0.1 ms (seconds in, seconds out).
double round_step_time(double step_s);

/// Tokens a GPU trains a second at a step of `step_s` seconds: `global_batch` rows of `row_length` tokens a step over
/// `gpus` GPUs (SPEC §2's T_i = rows × L, as a measured score counts them). `step_s` and `gpus` must be above 0.
double tokens_per_s_per_gpu(std::int64_t global_batch, std::int64_t row_length, double step_s, std::int64_t gpus);

/// The prediction of `t` on `m` with the fitted constants (step_time_fit.h).
StepTimePrediction predict_step_time(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu,
                                     Precision precision);
/// The same with `split` = stage_split(m, t) given.
StepTimePrediction predict_step_time(const ModelShape& m, const TrainingSetup& t, const GpuSpeed& gpu,
                                     Precision precision, const StageSplit& split);

}  // namespace openrecipes::layout
