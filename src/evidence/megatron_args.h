// Parser for Megatron-LM's resolved-argument dump (SPEC §4.1): the block between
// "------------------------ arguments ------------------------" and
// "-------------------- end of arguments ---------------------", one "  name ........ value" per line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace openrecipes::evidence {

/// Resolved arguments as a flat map name -> value text (exactly as printed, e.g. "1e-05", "None", "[1, 2]").
struct ArgumentDump {
  std::string file;
  std::size_t first_line = 0;  ///< 1-based line of the opening rule
  std::map<std::string, std::string> values;
};

/// Reads the first argument block in `text`. Throws InputError (file:line, fix) when there is no block, the
/// block is not closed (truncated log), a line inside is not "name .... value", or a name appears twice.
ArgumentDump parse_megatron_args(std::string_view text, const std::string& file);

/// The log's own argument dump, or nullopt when `text` has no argument block at all (a log of a run that
/// printed none). A block that is there but damaged throws as parse_megatron_args does.
std::optional<ArgumentDump> find_megatron_args(std::string_view text, const std::string& file);

/// The dump's log_interval as a number (nullopt: not in the dump, or not a number).
std::optional<std::int64_t> log_interval_of(const ArgumentDump& dump);

/// The run's GPU count as its dump records it: world_size (slime and miles set it to actor_num_nodes x
/// actor_num_gpus_per_node before Megatron prints the dump, notes/slime.md §4.2); else actor_num_nodes x
/// actor_num_gpus_per_node. nullopt when the dump records neither as whole numbers. Throws InputError (the dump's file)
/// when both are there and disagree: slime sets one from the other, so the dump was edited.
std::optional<std::int64_t> gpu_count_of(const ArgumentDump& dump);

/// The run's length in optimizer steps as its dump records it. slime and miles (a dump with num_rollout, printed
/// before the actor sets train_iters: notes/slime.md §4.2): (num_rollout - start_rollout_id) rollouts of
/// floor(rollout_batch_size x n_samples_per_prompt / global_batch_size) steps each (a rollout's samples that do not
/// fill a step are dropped). Megatron-LM: train_iters. nullopt when the numbers are not there, not positive whole
/// numbers, or beyond 2^30.
std::optional<std::int64_t> run_steps_of(const ArgumentDump& dump);

/// Megatron's --log-interval as the log's own dump records it (nullopt: no dump, or no log_interval in it), so
/// that a log is read with the interval it was written with. Throws as find_megatron_args.
std::optional<std::int64_t> own_log_interval(std::string_view text, const std::string& file);

}  // namespace openrecipes::evidence
