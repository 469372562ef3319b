// A training setup written as Megatron-LM's own flags into a command (relayout, and through it run's plan, and tune's
// candidates): the one place that knows which flag carries which knob of a layout.
#pragma once

#include <string>
#include <vector>

#include "layout/command.h"
#include "layout/memory.h"

namespace openrecipes::layout {

/// The knobs of a setup to write besides the parallel sizes; a knob left false keeps the command's flags as they are.
struct SetupFlagParts {
  bool micro_batch = false;            ///< --micro-batch-size (inserted when absent)
  bool recompute = false;              ///< --recompute-granularity/-method/-num-layers; Recompute::none removes them
  bool pipeline_split = false;         ///< VPP (--num-virtual-stages-per-pipeline-rank) and an uneven split: the
                                       ///< first/last-stage counts, the embedding and loss counted
  bool sequence_parallel = false;      ///< --sequence-parallel on (inserted after TP) or off
  bool distributed_optimizer = false;  ///< --use-distributed-optimizer and, at DP > 1, --overlap-grad-reduce and
                                       ///< --overlap-param-gather
};

/// Writes `t` into `ed` as Megatron-LM reads it (megatron/training/arguments.py at d98e8a64):
/// - always TP, PP, CP and EP (--tensor/pipeline/context/expert-model-parallel-size; a size of 1 is written only
///   where the command already has the flag, since 1 is the default), and ETP (--expert-tensor-parallel-size, whose
///   default is TP) where it differs from TP and experts are in play (EP > 1 or the command sets EP);
/// - then each knob `parts` names. Selective recompute removes --recompute-method and --recompute-num-layers
///   (validate_args refuses a method with selective granularity); VPP > 1 is written as stages per rank after PP and
///   the layers-per-virtual-stage form removed.
/// Flags whose value is a variable are left and named in the editor's notes. Throws nothing of its own.
void write_setup_flags(CommandEditor& ed, const TrainingSetup& t, const SetupFlagParts& parts);

/// The embedding and loss counted in the pipeline split (--account-for-embedding/loss-in-pipeline-split) as `t` has
/// them: each switch written when on, removed when off. Part of write_setup_flags' pipeline split.
void write_counted_split(CommandEditor& ed, const TrainingSetup& t);

/// The flags of `t`'s uneven pipeline split as write_setup_flags writes them, one flag with its value an item
/// ("--decoder-first-pipeline-num-layers 15", "--account-for-loss-in-pipeline-split"); none for an even split.
std::vector<std::string> uneven_split_flag_list(const TrainingSetup& t);

/// uneven_split_flag_list space-separated ("--decoder-first-pipeline-num-layers 15 --decoder-last-pipeline-num-layers
/// 15", "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split"); empty for an even split.
std::string uneven_split_flags(const TrainingSetup& t);

}  // namespace openrecipes::layout
