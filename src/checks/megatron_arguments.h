// A Megatron-LM training command's arguments resolved as its run's argument dump would print them: the argparse
// table's defaults, the command's values, and what validate_args derives (Megatron-LM d98e8a64,
// megatron/training/arguments.py). The planner reads a command through this (layout::shape_from_arguments and
// setup_from_arguments take the same map an argument dump gives).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/framework_options.h"
#include "core/error.h"
#include "layout/command.h"
#include "layout/memory.h"
#include "layout/model_shape.h"

namespace openrecipes::checks {

/// Resolves `args` (a command's words after its entry script) with `table` (Megatron-LM's compiled-in argparse table,
/// or a framework's that extends it) for a run of `world_size` processes. Returns destination -> value as the dump
/// prints it ("True", "8", "None", "[0, 1, 1]"):
/// 1. every option's default (the table's repr, a string's quotes removed: 'nccl' -> nccl);
/// 2. the command's values over them: a switch its constant ("True", "False"), a value its word (a variable left
///    unexpanded, as $NAME: $DATA_PATH/x), several words a list ("[1, 2]");
/// 3. validate_args' derivations: world_size; data_parallel_size = world / (TP x PP x CP); ffn_hidden_size (4h, or
///    with --swiglu int(8h/3 / 64) x 64); kv_channels = h / heads; moe_ffn_hidden_size = ffn_hidden_size (with
///    experts); expert_tensor_parallel_size = TP; sequence_parallel off at TP 1; the VPP size from
///    --num-layers-per-virtual-pipeline-stage (layers, plus one each for
///    --account-for-embedding/loss-in-pipeline-split, / PP / that) or --num-virtual-stages-per-pipeline-rank, None when
///    1; a --moe-layer-freq pattern such as
///    ([0]*1+[1]*15) expanded to its list; padded_vocab_size from --vocab-size, rounded up to a multiple of
///    --make-vocab-size-divisible-by x TP (left None without --vocab-size: a tokenizer's own size is not in a command).
/// Throws InputError naming `where` (and the word's line and column) for what argparse or validate_args would refuse:
/// an unknown flag, a missing or refused value, a world size that is not a multiple of TP x PP x CP, layers that do
/// not split into the virtual stages asked for, or a --moe-layer-freq pattern that does not parse or does not give one
/// 0 or 1 per layer.
/// `tokenizer_vocab`, when given, is the tokenizer's vocabulary for a command without --vocab-size: written as its
/// vocab_size (the model's own, unpadded: N's, SPEC §3) and padded the same way.
std::map<std::string, std::string> resolve_megatron_arguments(const std::vector<layout::CommandWord>& args,
                                                              const OptionTable& table, std::int64_t world_size,
                                                              const std::string& where,
                                                              std::optional<std::int64_t> tokenizer_vocab = {});

/// A training command as the planner reads it (`plan --command`).
struct TrainingCommand {
  std::map<std::string, std::string> arguments;  ///< resolve_megatron_arguments' map
  std::int64_t gpus = 0;                         ///< the world size it was resolved for
  std::string gpus_from;                         ///< where that count came from: "--gpus", "torchrun", "slime"
  /// The launcher's GPUs a node, when it gives the count: torchrun's --nproc-per-node, slime's
  /// --actor-num-gpus-per-node.
  std::optional<std::int64_t> gpus_per_node;
  std::string framework;  ///< the argument table read with: "megatron-lm", "slime" or "miles"
};

/// Reads `text`, a training command as a recipe writes it (NAME=value words, a launcher such as torchrun or python3,
/// an entry script *.py, its arguments; variables left unexpanded) or bare Megatron-LM arguments (the first word a
/// flag). slime's and miles' train.py (or train_async.py) is read with slime's table (Megatron-LM's and slime's own
/// flags), and with miles' where slime's lacks one of its flags. The GPUs are
/// `gpus` when given, else torchrun's --nproc-per-node x --nnodes, else slime's --actor-num-nodes x
/// --actor-num-gpus-per-node. Refuses by name, never guesses: what the memory model does not cover (FP8 and FP4,
/// --fp8-param-gather, MTP layers, activation and optimizer offloading, FSDP, CUDA graphs, a
/// --pipeline-model-parallel-layout, a hybrid layer pattern) and a command without a GPU count or
/// vocabulary size (`tokenizer_vocab`, when given, stands for --vocab-size). Throws InputError naming `where`, the flag
/// and the fix.
TrainingCommand read_training_command(std::string_view text, const std::string& where, std::optional<std::int64_t> gpus,
                                      std::optional<std::int64_t> tokenizer_vocab);

/// What the memory model does not cover, named (refuse_not_modelled): an InputError a caller can tell from a command it
/// cannot read.
class NotModelledError : public InputError {
 public:
  using InputError::InputError;
};

/// Throws NotModelledError naming `where` and the flag for the first argument of `arguments` (a resolved command's or
/// an argument dump's, as the dump prints them) that the memory model does not cover and that differs from
/// Megatron-LM's default: FP8 and FP4, --fp8-param-gather, MTP layers, activation and optimizer offloading, FSDP, a
/// --pipeline-model-parallel-layout, a hybrid layer pattern, weight shards beyond TP or ETP. Arguments absent from the
/// map (a dump of an older Megatron-LM) are not checked.
void refuse_not_modelled(const std::map<std::string, std::string>& arguments, const std::string& where);

/// Throws InputError naming `where` and the flag where `arguments` (a resolved command's) hold a variable in place of a
/// word the memory model reads (--transformer-impl, --attention-backend, the recompute options,
/// --position-embedding-type, the dropouts, --optimizer): read as no value, it would plan something else.
void refuse_variable_words(const std::map<std::string, std::string>& arguments, const std::string& where);

/// A training command planned as it runs: the command, its model's shape and its training setup.
struct CommandRun {
  TrainingCommand command;
  layout::ModelShape shape;
  layout::TrainingSetup setup;
};

/// read_training_command of `text`, then layout::shape_from_arguments and setup_from_arguments of its arguments
/// (slime's
/// --use-dynamic-batch-size: one bin of --max-tokens-per-gpu x CP tokens a micro-batch), held to SPEC §6's layout
/// rules on its GPUs (layout::violations: whole replicas, EP x ETP dividing a pipeline stage's GPUs) and the model's
/// (layout::model_violations). A variable where the model reads a word (--transformer-impl, --attention-backend, the
/// recompute options, --position-embedding-type, the dropouts, --optimizer) is refused. `plan --command`, `plan --from`
/// and `relayout` (a recipe without an argument dump) read a command through this. Throws InputError naming `where`:
/// read_training_command's errors, a size the model needs that the command does not give, and the first rule the layout
/// breaks, with its fix.
CommandRun read_command_run(std::string_view text, const std::string& where, std::optional<std::int64_t> gpus,
                            std::optional<std::int64_t> tokenizer_vocab);

/// Megatron-LM's --moe-layer-freq value as the dump prints it: a whole number N as "N" (every N-th layer), or a
/// pattern of 0/1 lists, `+` and `*` (Megatron's moe_freq_type evaluates it as Python: "([0]*1+[1]*3)") as the list
/// "[0, 1, 1, 1]". Throws InputError naming `where` for anything else or a list over 2^20 entries.
std::string moe_layer_freq_printed(const std::string& value, const std::string& where);

}  // namespace openrecipes::checks
