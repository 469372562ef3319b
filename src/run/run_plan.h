// What `openrecipes run` will do (PROTOCOL.md "Running a recipe", SPEC §6): the recipe's command relaid out to the
// GPUs asked for, cut to a profiler run when asked, rendered with the user's variables and the framework's
// MODEL_ARGS into an argument vector, the patches it must apply, and how each node launches it (Megatron-LM under
// torchrun, or slime / miles under Ray). A plan is written to RUN_DIR/plan.json before anything runs; every node
// task of the run reads the same file, so no field of the recipe ever passes through a shell.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/utf8.h"
#include "layout/layout.h"
#include "layout/relayout.h"
#include "registry/recipe.h"

namespace openrecipes::run {

/// How a node starts the trainer: Megatron-LM (`torchrun` per node with a static rendezvous) or slime / miles (Ray:
/// `ray start --head` on the first node, `ray start --address` on the others, one `ray job submit` from the head).
enum class LaunchMode : unsigned char { megatron, ray };

/// The run directory's log that carries the step lines, relative to it: "nodes/<N-1>/train.log" for a torchrun launch
/// (Megatron-LM prints its steps on the last rank), "nodes/0/train.log" for Ray (the head's driver prints them).
std::string step_log_file(LaunchMode mode, std::int64_t nodes);

/// What the user asked `run` for.
struct RunRequest {
  std::filesystem::path recipe;      ///< the recipe's folder or its recipe.yaml
  std::optional<std::int64_t> gpus;  ///< G (default: the recipe's own GPU count)
  std::int64_t nodes = 1;            ///< N; G / N GPUs per node
  std::string launcher;              ///< "local" or "slurm"
  std::vector<std::string> vars;     ///< NAME=VALUE, as given
  bool profile = false;              ///< a profiler run: to step 24, not a convergence arm
  std::int64_t trial_iters = 0;      ///< a tuning trial (`openrecipes tune`): cut to this many steps (0: not a trial)
  std::filesystem::path run_dir;     ///< RUN_DIR
  std::filesystem::path data_dir;    ///< the checkout's data/ (put on PYTHONPATH)
  /// The pre-flight of what the trainer reads (every read argument's file there, a dataset prefix's .bin and .idx):
  /// off only for a plan that renders the command without running it (component-test's).
  bool check_reads = true;
};

/// A patch of the recipe, checked against its sha256 before it is applied.
struct PlannedPatch {
  std::string path;    ///< absolute path of the patch file in the registry
  std::string sha256;  ///< its sha256 (the recipe's, equal to the file's)
};

/// Everything a node task needs, as written to plan.json (format_version 1).
struct RunPlan {
  std::string recipe_id, recipe_dir, recipe_sha256;  ///< "<model>/<gpu>/<name>", its folder, sha256 of recipe.yaml
  std::string model, gpu, framework;                 ///< framework: megatron-lm, slime or miles
  LaunchMode mode = LaunchMode::megatron;
  std::string launcher;  ///< local or slurm
  std::int64_t gpus = 1, nodes = 1, gpus_per_node = 1;
  bool profile = false;
  std::int64_t trial_iters = 0;  ///< a tuning trial's length (0: not a trial); a trial is not a convergence arm
  std::int64_t train_iters = 0;  ///< the run's length as the command gives it (0 when it names none)
  std::string command;           ///< the recipe's command after relayout and --profile edits, variables kept
  layout::Layout layout;         ///< the layout it runs with
  std::map<std::string, std::string> variables;          ///< the values of the variables the command uses
  std::vector<std::pair<std::string, std::string>> env;  ///< the command's leading NAME=value words, rendered
  std::vector<std::string> argv;                         ///< the command, rendered
  std::size_t script_index = 0;  ///< argv[script_index] is the entry script, its arguments follow (not in plan.json)
  std::vector<std::string> pythonpath;  ///< data/, the recipe's patches/, (Ray) Megatron-LM
  std::string framework_dir;            ///< the framework checkout (patches applied there; its commit probed)
  std::string megatron_dir;             ///< the Megatron-LM checkout when known (its commit probed)
  std::string python;                   ///< the interpreter of the version probe
  std::vector<PlannedPatch> patches;
  std::string run_dir;                                    ///< absolute
  int master_port = 0, ray_port = 0, dashboard_port = 0;  ///< rendezvous ports (multi-node and Ray)
  std::vector<std::string> edits;                         ///< what relayout / --profile changed, one line each
  std::vector<std::string> warnings;  ///< what the pre-flight saw but did not refuse (a checkout with local changes)
};

/// The relayout of `recipe`'s layout, workload and launch to `gpus` GPUs over `nodes` nodes (one node: nodes of at
/// least 8 GPUs for the nearest counts), before any knob is asked for: what plan_command and tune start from.
layout::RelayoutRequest relayout_request(const registry::Recipe& recipe, std::int64_t gpus, std::int64_t nodes);

/// The command a recipe runs with on `gpus` GPUs over `nodes` nodes: relaid out (layout/relayout.h; a no-op on the
/// recipe's own count), cut to a profiler run (to step 24) when `profile`, with what changed and the run length it
/// sets. make_plan plans with it, and submit derives a run's command with it from the recipe the run was planned
/// from (never from plan.json). Throws InputError for a layout that does not fit (every broken rule, the nearest
/// counts), a command that is not plain words, and a --profile run or a tuning trial (`trial_iters` > 0: the run's
/// length set to it) of a command that sets no run length.
struct PlannedCommand {
  std::string command;
  layout::Layout layout;
  std::vector<std::string> edits;
  std::int64_t train_iters = 0;  ///< the run length the command sets (0 when it sets none)
};
PlannedCommand plan_command(const registry::Recipe& recipe, std::int64_t gpus, std::int64_t nodes, bool profile,
                            std::int64_t trial_iters = 0);

/// True for a variable the launcher itself reads (the checkouts it probes and patches: MEGATRON_LM, SLIME, MILES; the
/// probe's interpreter: PYTHON): a --var of one is never "unknown", even when the command does not use it.
bool is_launcher_variable(const std::string& name);

/// Builds the plan. Throws InputError (naming the recipe file, the variable or the option, with the fix) for: a
/// recipe that does not load, a command that breaks the program policy (checks/command_policy.h: every way, at once),
/// a launcher other than local or slurm, --nodes > 1 with the local launcher, G not a multiple of N, a layout that does
/// not fit G GPUs (every broken rule and the nearest counts), a command that is not plain words (split_command), a
/// --var that is not NAME=VALUE or has an empty value, a --var the command does not use (unless it is one of the
/// launcher's: MEGATRON_LM, SLIME, MILES, PYTHON), the command's variables with no value (all of them named),
/// ${MODEL_ARGS[@]} without the framework checkout or with no model script in it, a checkout that does not exist,
/// lacks the entry script or is not at the commit the recipe pins (run/preflight.h), an entry script that resolves
/// outside the checkout, a patch whose file's sha256 is not the recipe's or a file in patches/ it does not list, a
/// --profile run whose command sets no run length, and a RUN_DIR that exists and is not empty.
RunPlan make_plan(const RunRequest& request);

/// plan.json's text (deterministic: sorted keys where order is free).
std::string plan_json(const RunPlan& plan);
/// Reads plan.json. Throws InputError naming the file for malformed JSON, a missing field or another format_version.
RunPlan read_plan(const std::filesystem::path& file);

/// The argument vector and environment node `rank` runs with its head node's address `head`: for Megatron-LM on
/// several nodes, torchrun's --nnodes, --node-rank, --master-addr and --master-port set (any given in the command
/// replaced); otherwise the plan's own. PYTHONPATH is the plan's, ahead of any PYTHONPATH the command sets.
std::pair<std::vector<std::string>, std::vector<std::pair<std::string, std::string>>> node_command(
    const RunPlan& plan, std::int64_t rank, const std::string& head);

using ::openrecipes::display_command;  // core/utf8.h
using ::openrecipes::display_word;

}  // namespace openrecipes::run
