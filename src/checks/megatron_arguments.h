// A Megatron-LM training command's arguments resolved as its run's argument dump would print them: the argparse
// table's defaults, the command's values, and what validate_args derives (Megatron-LM d98e8a64,
// megatron/training/arguments.py). The planner reads a command through this (layout::shape_from_arguments and
// setup_from_arguments take the same map an argument dump gives).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checks/framework_options.h"
#include "layout/command.h"

namespace openrecipes::checks {

/// Resolves `args` (a command's words after its entry script) with `table` (Megatron-LM's compiled-in argparse table,
/// or a framework's that extends it) for a run of `world_size` processes. Returns destination -> value as the dump
/// prints it ("True", "8", "None", "[0, 1, 1]"):
/// 1. every option's default (the table's repr, a string's quotes removed: 'nccl' -> nccl);
/// 2. the command's values over them: a switch its constant ("True", "False"), a value its word (a variable as
///    written, ${DATA_PATH}/x), several words a list ("[1, 2]");
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
std::map<std::string, std::string> resolve_megatron_arguments(const std::vector<layout::CommandWord>& args,
                                                              const OptionTable& table, std::int64_t world_size,
                                                              const std::string& where);

/// Megatron-LM's --moe-layer-freq value as the dump prints it: a whole number N as "N" (every N-th layer), or a
/// pattern of 0/1 lists, `+` and `*` (Megatron's moe_freq_type evaluates it as Python: "([0]*1+[1]*3)") as the list
/// "[0, 1, 1, 1]". Throws InputError naming `where` for anything else or a list over 2^20 entries.
std::string moe_layer_freq_printed(const std::string& value, const std::string& where);

}  // namespace openrecipes::checks
