// The parallel layout of a run and its rules (SPEC §6 "Relayout"): what a replica takes, which GPU counts a layout
// fits, and whether a run's argument dump shows the layout its recipe records. `build` checks recipes with these
// rules; `relayout` and `plan` apply them (layout/relayout.h, layout/planner.h). Knows nothing of recipes' files:
// registry/ and cli/ call it with numbers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace openrecipes::layout {

/// A Megatron-style parallel layout: tensor, pipeline, context, expert, expert-tensor and data parallel sizes,
/// the virtual pipeline size (none when not interleaved), the micro-batch (rows) and slime's
/// max_tokens_per_gpu (tokens, when the recipe sets it).
struct Layout {
  std::int64_t tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, dp = 1;
  std::optional<std::int64_t> vpp;
  std::int64_t micro_batch = 1;
  std::optional<std::int64_t> max_tokens_per_gpu;
  bool operator==(const Layout&) const = default;
};

/// Expert data parallelism: the ranks that hold the same expert shard, TP × CP × DP / (EP × ETP) (Megatron's
/// expert-data-parallel group: a pipeline stage's GPUs over EP × ETP). Whole where violations() finds none; EP and ETP
/// at least 1.
inline double expert_data_parallel(const Layout& l) { return double(l.tp * l.cp * l.dp) / double(l.ep * l.etp); }

/// One rule a layout breaks: the sentence saying how, and the fix (empty where the sentence says it).
struct Violation {
  std::string what;
  std::string fix;
};

/// GPUs on whole nodes: `gpus` above a node's `gpus_per_node` must be a multiple of it (a job of 64 GPUs on nodes of
/// 3 is no job). nullopt when they are.
std::optional<Violation> node_violation(std::int64_t gpus, std::int64_t gpus_per_node);

/// The rules of SPEC §6 that a layout on `gpus` GPUs with a global batch of `global_batch` rows must meet, in
/// order: a replica takes TP × PP × CP GPUs and DP replicas make the GPU count; the GPUs of one pipeline stage
/// (gpus / PP) are a multiple of EP × ETP; the global batch divides by DP. Returns every rule broken (empty when
/// the layout fits). All sizes must be ≥ 1 (the recipe loader bounds them).
std::vector<Violation> violations(const Layout& l, std::int64_t gpus, std::int64_t global_batch);

/// What a recipe says its run was: the layout, GPUs, rows per step and row length, and whether Megatron-LM itself
/// feeds the rows (framework megatron-lm: `micro_batch_size` is the micro-batch and `seq_length` the row length), or
/// slime / miles do (they pack by max_tokens_per_gpu, and their dump's seq_length is a placeholder, 4096 when unset:
/// slime backends/megatron_utils/arguments.py _set_default_megatron_args).
struct Placement {
  Layout layout;
  std::int64_t gpus = 1;
  std::int64_t global_batch = 1;
  std::int64_t row_length = 1;
  bool megatron_feeds_rows = false;
};

/// Each way the resolved Megatron arguments `args` (name → Python repr, from the run's argument dump) disagree
/// with `p`: tensor/pipeline/context/expert/data parallel sizes, global batch, seq_length and the micro-batch (when
/// Megatron feeds the rows), max_tokens_per_gpu (when the layout records it), ETP (when the dump sets it) and VPP
/// ("None" reads as none). An argument the dump lacks is not
/// compared. The GPU count against world_size is checks/device's. Sentences without the stage ("layout").
std::vector<std::string> argument_dump_mismatches(const Placement& p, const std::map<std::string, std::string>& args);

}  // namespace openrecipes::layout
