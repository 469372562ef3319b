// Predicted peak memory per GPU of a Megatron-LM training run (SPEC §7; docs/memory-model.md gives every term, its
// formula, its source and the runs it was checked on). The peak is taken over the pipeline stages and over three
// moments of a step: the loss (every stored activation plus the logits and the cross-entropy's buffers), the
// backward of core attention (every stored activation plus the score-sized gradients), and the optimizer step (the
// torch optimizer's temporary copy). Values are MiB (2^20 bytes), as Megatron's own "max allocated" prints them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layout/layout.h"
#include "layout/model_shape.h"

namespace openrecipes::layout {

/// Activation recomputation (Megatron --recompute-granularity / --recompute-method / --recompute-num-layers).
enum class Recompute : unsigned char { none, selective, full_uniform, full_block };

struct Recomputation {
  Recompute kind = Recompute::none;
  std::int64_t layers = 1;  ///< full_uniform: layers per checkpointed chunk; full_block: layers recomputed per stage
  bool operator==(const Recomputation&) const = default;
};

/// "none", "selective", "full" (uniform, 1 layer a chunk), "full:N" (uniform, N layers a chunk) or "block:N";
/// nullopt for anything else.
std::optional<Recomputation> parse_recompute(const std::string& text);
/// parse_recompute of an option's value; InputError naming `option` with the spellings for anything else.
Recomputation require_recompute(const std::string& text, const std::string& option);
/// The spelling parse_recompute reads.
std::string recompute_name(const Recomputation& r);

/// The attention and layer implementation: Megatron-LM's local one (--transformer-impl local: the attention scores
/// are materialised, torch's AdamW) or Transformer Engine's (fused attention, no s² scores, fused Adam).
enum class Impl : unsigned char { local, te };

/// Everything beyond the model's shape that the peak depends on.
struct TrainingSetup {
  Layout layout;                    ///< tp, pp, cp, ep, etp, dp, vpp and the micro-batch (rows)
  std::int64_t row_length = 8192;   ///< sequence length S (tokens)
  std::int64_t global_batch = 128;  ///< rows per optimizer step
  Recomputation recompute;
  bool distributed_optimizer = false;
  /// --num-distributed-optimizer-instances: the distributed optimizer keeps this many copies of its state, each sharded
  /// over DP × CP / instances ranks (and the experts' over expert DP / instances): Megatron's intra-partial groups.
  std::int64_t optimizer_instances = 1;
  bool sequence_parallel = false;
  bool fused_cross_entropy = false;  ///< --cross-entropy-loss-fusion
  Impl impl = Impl::local;
  /// --decoder-first/last-pipeline-num-layers, when the layers do not divide evenly over PP.
  std::optional<std::int64_t> first_stage_layers, last_stage_layers;
  /// --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split: the embedding and the loss
  /// each take a layer's place in the split (Megatron-LM's get_num_layers_to_build): the layers plus those counted
  /// split evenly over PP × VPP model chunks, and the first chunk of the first stage (the last chunk of the last stage)
  /// builds one layer fewer. Not with the first/last-stage counts.
  bool embedding_in_split = false, loss_in_split = false;
  /// Gradients in the 16-bit parameter dtype (Megatron's grad_reduce_in_fp32 off): --bf16 with --grad-reduce-in-bf16
  /// (Megatron-Bridge's performance recipes), or --fp16 without --accumulate-allreduce-grads-in-fp32 (arguments.py
  /// turns the FP32 accumulation on only for --bf16). The gradient buffers take 2 bytes a parameter, not FP32's 4,
  /// and are reduced in 16 bits; the optimizer makes the FP32 copy of the gradients it owns at its step
  /// (optimizer.py _copy_model_grads_to_main_grads).
  bool grads_16bit = false;
  /// --microbatch-group-size-per-virtual-pipeline-stage: the interleaved schedule's run of contiguous micro-batches
  /// (unset: PP, Megatron's default).
  std::optional<std::int64_t> microbatch_group;
  /// Transformer Engine with --attention-backend unfused (or local): the attention scores are materialised as in the
  /// local implementation, without its persistent score buffer. Ignored with Impl::local (always materialised).
  bool unfused_attention = false;
  /// --attention-dropout and --hidden-dropout above 0 (Megatron's defaults are 0.1; SFT recipes set 0): materialised
  /// attention then keeps a dropout mask and the dropped probabilities, and every bias-dropout-add keeps its mask.
  bool attention_dropout = false, hidden_dropout = false;
  /// --overlap-moe-expert-parallel-comm: the interleaved schedule runs one more warm-up forward (schedules.py).
  bool overlap_moe_expert_parallel_comm = false;
  bool operator==(const TrainingSetup&) const = default;
};

/// slime's and miles' packing (--use-dynamic-batch-size --max-tokens-per-gpu N): a micro-batch is one bin of N × `cp`
/// tokens (`cp` the run's context-parallel size): micro-batch 1, row length N × cp.
void pack_micro_batches(TrainingSetup& t, std::int64_t max_tokens_per_gpu, std::int64_t cp);

/// One term of a prediction, in MiB.
struct MemoryTerm {
  std::string_view name;  ///< a name of the model's own (static text): "weights", "gradients", ...
  double mib = 0;
};

struct MemoryEstimate {
  double peak_mib = 0;
  std::int64_t stage = 0;         ///< the pipeline stage that peaks (0-based)
  std::string_view moment;        ///< "loss", "attention backward", "recomputed layer" or "optimizer step" (static)
  std::vector<MemoryTerm> terms;  ///< the peaking stage's terms, in order; they sum to peak_mib
  std::int64_t in_flight = 1;     ///< micro-batches whose activations that stage holds at once
};

/// The layers the pipeline split divides: the model's, plus one each for the embedding and the loss counted in it
/// (TrainingSetup::embedding_in_split, loss_in_split; Megatron-LM's get_num_layers_to_build).
std::int64_t split_layers(const ModelShape& m, const TrainingSetup& t);

/// What `t` counts in its pipeline split, for messages: "the embedding", "the loss", "the embedding and the loss", or
/// "" when neither.
const char* counted_in_split(const TrainingSetup& t);
/// Whether `t` splits its layers unevenly over the pipeline: first/last-stage counts, or the embedding or the loss
/// counted as a layer.
bool uneven_split(const TrainingSetup& t);

/// Layers on each pipeline stage: the first/last-stage counts when set, the rest spread evenly; with the embedding or
/// the loss counted in the split, (layers + those counted) / PP each, one fewer on the first stage for the embedding
/// and on the last for the loss. Throws InputError when they do not add up (use model_violations first).
std::vector<std::int64_t> stage_layers(const ModelShape& m, const TrainingSetup& t);

/// MoE layers on each pipeline stage (of `layers`, stage_layers' counts): from the model's per-layer pattern
/// (ModelShape::moe_layer) where it has one, in the layers the stage holds: contiguous, or under VPP v the model
/// chunks stage, stage + PP, ... of layers / v each (Megatron's interleaved assignment; with the embedding or the loss
/// counted in the split, chunk j holds layers [j × c − e, (j + 1) × c − e) within the model, c = (layers + counted) /
/// (PP × v), e = 1 with the embedding counted); without a pattern, the stage's share of moe_layers in proportion.
std::vector<double> stage_moe_layers(const ModelShape& m, const TrainingSetup& t,
                                     const std::vector<std::int64_t>& layers);

/// Each pipeline stage's layers and MoE layers among them (stage_layers, stage_moe_layers) of one setup, computed once
/// where several estimates of that setup share them (the planner's memory and each GPU type's step time).
struct StageSplit {
  std::vector<std::int64_t> layers;
  std::vector<double> moe;
};
StageSplit stage_split(const ModelShape& m, const TrainingSetup& t);

/// Parameters one rank of a pipeline stage holds (elements), `dense` what the data-parallel ranks replicate and
/// `experts` the routed experts (sharded over EP x ETP).
struct StageParameters {
  double dense = 0, experts = 0;
};

/// The parameters of a stage with `Ls` layers of which `moe_in` have experts: attention and norms in every layer, a
/// dense MLP in each dense layer, shared experts, the router and routed experts in each MoE layer (TP-sharded but
/// norms, router and learned positions); the embedding (and learned positions) on the `first` stage, the output layer
/// on the `last` (when PP > 1 or untied).
StageParameters stage_parameters(const ModelShape& m, const Layout& l, double Ls, double moe_in, bool first, bool last);

/// The predicted peak of `t` on `m` (see the file comment): the largest over the pipeline stages, or with `only_stage`
/// (0-based, below PP) that stage's own (the last, PP - 1, is the rank Megatron's tensorboard writer reports). The
/// setup must be valid for the model (model_violations empty); sizes below 1 and a stage out of range throw
/// InputError.
MemoryEstimate estimate_memory(const ModelShape& m, const TrainingSetup& t,
                               std::optional<std::int64_t> only_stage = std::nullopt);
/// The same with `split` = stage_split(m, t) given.
MemoryEstimate estimate_memory(const ModelShape& m, const TrainingSetup& t, const StageSplit& split,
                               std::optional<std::int64_t> only_stage = std::nullopt);

/// The setup a Megatron-LM run used, from its argument dump: parallel sizes, micro_batch_size, seq_length,
/// global_batch_size, recompute_granularity/method/num_layers (selective recomputes core attention),
/// use_distributed_optimizer, sequence_parallel, cross_entropy_loss_fusion, transformer_impl and the first/last
/// stage layer counts. ETP is expert_tensor_parallel_size with experts, 1 without (the dump prints TP there). DP is
/// world_size / (TP × PP × CP). Throws InputError naming `where` for a missing or malformed size.
TrainingSetup setup_from_arguments(const std::map<std::string, std::string>& args, const std::string& where);

}  // namespace openrecipes::layout
