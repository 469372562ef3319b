// Relayout (SPEC §6, PROTOCOL.md "Running a recipe"): a recipe's layout moved to G GPUs (DP changes; TP, PP, CP, EP,
// ETP stay unless given) or to a new row length L', every rule it then breaks, the nearest GPU counts that work, and
// the recipe's command with the framework's own flags rewritten. Knows numbers and command text, not recipe files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layout/command.h"
#include "layout/layout.h"
#include "layout/memory.h"
#include "layout/model_shape.h"

namespace openrecipes::layout {

/// How the command names the GPUs: Megatron-LM under torchrun, or slime / miles under Ray.
enum class Launch : unsigned char { megatron, slime };

/// What to move and where.
struct RelayoutRequest {
  Layout layout;                  ///< the recipe's layout (its DP is replaced)
  std::int64_t global_batch = 1;  ///< rows per step (128 for the standard workload)
  std::int64_t row_length = 1;    ///< the recipe's L
  Launch launch = Launch::megatron;
  std::int64_t gpus = 1;                            ///< G
  std::int64_t gpus_per_node = 8;                   ///< GPUs of one node on the target cluster
  std::optional<std::int64_t> new_row_length;       ///< L', when the rows change
  std::optional<std::int64_t> tp, pp, cp, ep, etp;  ///< new sizes, when asked
  std::optional<std::int64_t> micro_batch;          ///< a new micro-batch (Megatron-LM launches), when asked
  std::optional<Recomputation> recompute;           ///< new recompute flags (Megatron-LM launches), when asked
  /// The model and the recipe's run setup (its argument dump's), when known: the model's rules (model_rules.h), the
  /// predicted peak against `memory_mib`, and the structural changes that would fit.
  std::optional<ModelShape> model;
  TrainingSetup setup;
  double memory_mib = 0;  ///< one GPU's memory (gpus.yaml); 0: no memory verdict
};

/// A structural change that makes the relayout fit: new TP, PP, micro-batch and/or recompute.
struct Suggestion {
  TrainingSetup setup;
  MemoryEstimate memory;
  std::string what;  ///< the changes in words, e.g. "micro-batch 16 -> 4"
};

struct RelayoutResult {
  Layout layout;  ///< the new layout (DP = G / (TP × PP × CP) when that is whole)
  std::int64_t gpus = 0, nodes = 0, gpus_per_node = 0, row_length = 0;
  std::vector<Violation> violations;  ///< every rule broken; empty: the relayout fits
  /// The nearest GPU counts below and above G at which the new layout fits (same TP, PP, CP, EP, ETP, row length and
  /// node size); nullopt where none does (a rule that no GPU count fixes is broken, or none exists in range).
  std::optional<std::int64_t> nearest_below, nearest_above;
  std::string command;              ///< the recipe's command with the flags rewritten (when it fits)
  std::vector<FlagChange> changes;  ///< what changed in it, in order
  /// Flags given as variables, which relayout cannot rewrite, and what it added of its own (--sequence-parallel for
  /// MoE at TP > 1).
  std::vector<std::string> notes;
  bool convergence_rerun = false;        ///< a change beyond layout and packing (a new row length): re-run the check
  std::string why;                       ///< what must be re-done, in one sentence
  std::optional<MemoryEstimate> memory;  ///< the new layout's predicted peak (when the model is known)
  std::optional<TrainingSetup> setup;    ///< the new run's setup, with `memory` (the step-time model predicts it)
  std::vector<std::string> warnings;     ///< allowed but slow (TP across nodes)
  /// When the relayout does not fit and the model is known: up to 3 changes of TP, PP, the micro-batch (Megatron-LM)
  /// or a stronger recompute that fit (the asked CP and EP kept where the model takes them), one per set of changed
  /// knobs, fewest and least disruptive first (micro-batch, recompute, TP, PP), then by plan's speed heuristic.
  std::vector<Suggestion> suggestions;
};

/// The rules a layout on `gpus` GPUs breaks, in order: whole replicas (G divides by TP × PP × CP), the global batch
/// divides by DP, G / PP a multiple of EP × ETP, whole nodes (G ≤ gpus_per_node or a multiple of it), Megatron's
/// micro-batch rule (global batch divides by DP × micro-batch, Megatron-LM launches only), and slime's
/// max_tokens_per_gpu × CP ≥ L. The first, second and third are `violations` (layout.h) when DP is whole.
std::vector<Violation> relayout_violations(const Layout& l, std::int64_t gpus, std::int64_t gpus_per_node,
                                           std::int64_t global_batch, std::int64_t row_length, Launch launch);

/// Relayouts `command` (the recipe's, as text) per `r`; its flags are written by write_setup_flags (setup_flags.h).
/// With the model known, also its rules (model_violations), the predicted peak against the GPU's usable memory (a
/// violation when over), and suggestions; MoE training at TP > 1 gets --sequence-parallel (Megatron-LM's
/// moe_layer.py raises without it), said in `notes`. Throws InputError for a command that is not plain words (from
/// split_command, naming `where`), a size below 1 or over relayout's bound (2^20 GPUs), --micro-batch on a slime or
/// miles recipe, and --recompute none over a command's recompute flags.
RelayoutResult relayout(const RelayoutRequest& r, const std::string& command, const std::string& where);

}  // namespace openrecipes::layout
