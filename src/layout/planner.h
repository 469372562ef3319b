// `openrecipes plan` (SPEC §7): every valid layout of a model on G GPUs with its predicted peak memory per GPU,
// whether it fits the GPU, and an order by a documented speed heuristic (plan_order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "layout/memory.h"
#include "layout/model_shape.h"
#include "layout/step_time.h"

namespace openrecipes::layout {

/// What to plan. A knob that is set is fixed; an unset one is searched.
struct PlanRequest {
  std::int64_t gpus = 1;
  std::int64_t gpus_per_node = 8;
  std::int64_t row_length = 8192;   ///< L (the protocol's)
  std::int64_t global_batch = 128;  ///< rows per step (the protocol's)
  double memory_mib = 0;            ///< one GPU's memory (gpus.yaml memory_mib); 0: no fit verdict
  std::optional<std::int64_t> tp, pp, cp, ep, etp, vpp, micro_batch;
  std::optional<Recomputation> recompute;
  std::optional<bool> distributed_optimizer, sequence_parallel;
  Impl impl = Impl::te;
  /// The shape's vocabulary is the model's own (a config.json's): each layout plans it padded at its TP as Megatron-LM
  /// pads it (with_padded_vocab). False: as given (a run's argument dump, padded already).
  bool pad_vocab = false;
  bool fused_cross_entropy = false;
  bool grads_16bit = false;  ///< gradients in 16 bits (TrainingSetup::grads_16bit), a run's own setting
  /// A pipeline split to plan as given (a recipe's own: TrainingSetup's first/last-stage counts and the embedding and
  /// loss counted, and its VPP: `vpp`, none when unset); unset, the planner's: even where PP divides the layers, else
  /// the embedding and loss counted where PP divides the layers + 2, else one of them (each way) where it divides the
  /// layers + 1, else first/last-stage counts.
  struct Split {
    std::optional<std::int64_t> first, last;
    bool embedding = false, loss = false;
  };
  std::optional<Split> split;
  /// The GPU type's rates (its gpus_per_node is the request's): every layout gets a predicted step time, and the
  /// order is by it. Unset: no prediction, the order is relative_time's.
  std::optional<GpuSpeed> speed;
  Precision precision = Precision::bf16;
};

struct PlannedLayout {
  TrainingSetup setup;
  MemoryEstimate memory;
  bool fits = true;
  double relative_time = 1;  ///< plan_order's estimate of step time relative to an ideal layout (lower is faster)
  std::optional<StepTimePrediction> step_time;  ///< with PlanRequest::speed (layout/step_time.h)
  std::vector<std::string> warnings;
};

/// Whether `a` comes before `b` in a plan: layouts that fit first, then by predicted step time (when both have one;
/// else relative_time), then by peak memory.
bool plan_before(const PlannedLayout& a, const PlannedLayout& b);

/// The memory a layout may use on a GPU of `memory_mib`: all of it but 1 GiB for the CUDA context and NCCL, and 10%
/// for the caching allocator's fragmentation (it reserved up to 1.30 × max allocated on the ground truth, but frees
/// its cache and retries before it fails).
double usable_memory_mib(double memory_mib);

/// Whether a predicted peak of `peak_mib` fits a GPU of `memory_mib`: within its usable memory, or always when
/// `memory_mib` ≤ 0 (no GPU memory given: no verdict). The one fit rule of plan, relayout, tune and the build.
bool fits_memory(double peak_mib, double memory_mib);

/// plan_order's speed heuristic (not a measurement; `tune` measures): step time relative to an ideal layout =
/// recompute (none 1, selective 1.05, full 4/3: one more forward) × (1 + the 1F1B bubble (PP - 1) / (micro-batches ×
/// VPP)) × (1 + 0.04 (TP - 1), + 0.5 when TP leaves the node) × (1 + 0.03 (CP - 1)) × (1 + 0.02 (EP - 1)) × (1 +
/// 512 / tokens per micro-batch: small GEMMs are slow); with experts also × (1 + 256 / the rows each local expert's
/// GEMM gets, tokens × top-k × EP / experts) and × 1.2 when EP × ETP leaves the node.
double relative_time(const ModelShape& m, const TrainingSetup& t, std::int64_t gpus_per_node);

/// Every valid layout (model_violations empty) for `q` on `m`: TP over the divisors of G that divide heads and
/// groups, PP over divisors (when PP does not divide the layers: the embedding and the loss counted in the split where
/// PP divides the layers + 2, one of them, each way, where it divides the layers + 1, else uneven splits through the
/// first/last-stage counts), CP (Transformer Engine only), EP
/// over divisors of the experts, ETP 1 or TP (1 without experts), VPP none or a divisor of a stage's layers (up to 4),
/// the micro-batch over divisors of global batch / DP, recompute none / selective / full, the distributed optimizer off
/// and on (on only where DP > 1 or expert DP > 1 shards something). Sorted: layouts that fit first, then by predicted
/// step time (with `q.speed`) or relative_time, then by peak memory (plan_before). Throws InputError for sizes below 1.
std::vector<PlannedLayout> plan_layouts(const ModelShape& m, const PlanRequest& q);

/// Why plan_layouts(m, q) is empty when the knobs `q` fixes are why (a knob that breaks a rule of the model is bad
/// input, not "nothing fits"): throws InputError named by plan's flag as given ("--tp 3") with every value it may take,
/// each checked by planning with it: the first knob (in plan's order of flags: --tp, --pp, --cp, --ep, --etp, --vpp,
/// --micro-batch, --recompute, the distributed optimizer) whose release, the others kept, gives valid layouts; else a
/// knob that has none even with the others released ("even on its own"); else the knobs together. Returns when no
/// layout is valid whatever the knobs (no_layout_reason). Runs the search once a knob and value: call it only when
/// plan_layouts found nothing.
void explain_no_layout(const ModelShape& m, const PlanRequest& q);

/// Why `q`'s GPUs leave no valid layout whatever the knobs, one sentence naming the GPUs, the global batch and the fix
/// (plan's text and JSON).
std::string no_layout_reason(const PlanRequest& q);

/// A GPU type to plan for: one GPU's memory (MiB) and its rates.
struct GpuChoice {
  double memory_mib = 0;
  GpuSpeed speed;
};

/// What best_layouts keeps of one GPU type's plan.
struct BestLayouts {
  std::vector<PlannedLayout> best;             ///< plan_layouts' first k that fit, in its order (fewer when fewer fit)
  std::optional<PlannedLayout> smallest_peak;  ///< the valid layout of the smallest predicted peak (why none fits)
  std::size_t layouts = 0, fitting = 0;        ///< valid layouts, and those that fit
};

/// Calls `visit` with every valid setup plan_layouts plans for `q` on `m` (model_violations empty), in its order
/// before sorting. Throws InputError for sizes below 1.
void for_each_setup(const ModelShape& m, const PlanRequest& q, const std::function<void(TrainingSetup&&)>& visit);

/// plan_layouts for each GPU type of `gpus` at once (q.memory_mib and q.speed are ignored: each GPU's own are used),
/// keeping only the first `k` layouts that fit each and the smallest peak: the memory model runs once a layout and
/// the step-time model once a fitting layout and GPU type, and nothing else is kept, so a model's starting points on
/// several GPU types cost about one plan. The same layouts, predictions and order as plan_layouts' first k.
std::vector<BestLayouts> best_layouts(const ModelShape& m, PlanRequest q, const std::vector<GpuChoice>& gpus,
                                      std::size_t k);

/// One setup planned as plan_layouts plans each of its layouts: the predicted peak, whether it fits in `memory_mib`
/// (fits_memory), the relative time on nodes of `gpus_per_node`, the predicted step time with `speed` (in
/// `precision`) and the warnings. `t` must keep the model's rules (model_violations empty); sizes below 1 throw
/// InputError.
PlannedLayout plan_setup(const ModelShape& m, TrainingSetup t, double memory_mib, std::int64_t gpus_per_node,
                         const std::optional<GpuSpeed>& speed = std::nullopt, Precision precision = Precision::bf16);

}  // namespace openrecipes::layout
