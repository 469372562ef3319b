// Subcommand registry for the `openrecipes` executable: each src/cli/<name>.cpp registers itself with a
// static Registration, so adding a subcommand never edits a shared file.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include "layout/step_time.h"

namespace openrecipes::cli {

/// A subcommand: `setup` adds its options to `app` (already named and described) and returns the action that
/// runs after parsing. The action returns an exit code (0 ok, 1 check failed); it throws InputError for bad
/// input (exit 2).
struct Command {
  std::string name;
  std::string description;
  std::function<std::function<int()>(CLI::App& app)> setup;
};

/// Registers a command (called from static initialisers). Returns true so it can initialise a static bool.
bool register_command(Command command);

/// All registered commands, sorted by name.
std::vector<Command> registered_commands();

}  // namespace openrecipes::cli

namespace openrecipes::cli {

/// A default path into the bundled registry, such as "registry/rules/arguments.yaml": `relative` itself when
/// it exists from the working directory, else the same path next to the checkout the executable was built in
/// (<dir of /proc/self/exe>/../<relative>, so `build/openrecipes` finds it from anywhere), else `relative`
/// unchanged (the command's own read then reports it missing, naming the path). Never throws.
std::string bundled_path(const std::string& relative);

/// The checkout's data/ (the rollout plugin, put on the trainer's PYTHONPATH by run and tune): beside the executable's
/// checkout first, then the working folder's. Throws InputError when neither holds data/pretokenized_sft_rollout.py.
std::filesystem::path data_dir();

/// Adds the Slurm launcher's options `run` and `tune` share (docs/running.md "Slurm"): --sbatch-arg, one extra sbatch
/// option a flag, repeatable, for `applies_to` ("the job", "every trial"), and --no-gres (no --gpus-per-node).
void add_slurm_options(CLI::App& app, std::vector<std::string>& sbatch_args, bool& no_gres,
                       const std::string& applies_to);

/// This executable's absolute path (/proc/self/exe), or "openrecipes" when it cannot be read: what a Slurm task runs.
std::string self_exe();

/// One GPU of type `gpu`'s memory in MiB (gpus.yaml memory_mib) from the registry `recipe_dir` sits in, else the
/// bundled one; 0 when that gpus.yaml has no such type (no memory verdict). Throws InputError for a gpus.yaml that does
/// not load.
double gpu_memory_mib(const std::filesystem::path& recipe_dir, const std::string& gpu);

/// The step-time model's rates (layout/step_time.h) of GPU type `gpu` in nodes of `gpus_per_node`, from the same
/// gpus.yaml as gpu_memory_mib; nullopt when it has no such type or no hardware figures for it (no prediction).
std::optional<layout::GpuSpeed> gpu_speed_of(const std::filesystem::path& recipe_dir, const std::string& gpu,
                                             std::int64_t gpus_per_node);

}  // namespace openrecipes::cli
