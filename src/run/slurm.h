// The Slurm launcher (PROTOCOL.md "Running a recipe"): a batch script that starts one `openrecipes run-node` task per
// node with `srun` (the head node's address passed to every task), `sbatch` submission, polling with `scontrol show
// job`, `scancel` on SIGINT, and the scheduler's admission and finish times from `sacct` or, without an accounting
// database, `scontrol show job` (SPEC §2 "GPU-hours").
#pragma once

#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "run/capture.h"
#include "run/run_plan.h"

namespace openrecipes::run {

/// Options of the Slurm launcher beyond the plan.
struct SlurmOptions {
  std::string self;                      ///< the openrecipes executable every task runs (absolute)
  std::vector<std::string> sbatch_args;  ///< extra sbatch options (--partition=..., --time=...), one word each
  bool gres = true;                      ///< ask for the GPUs with --gpus-per-node (off for clusters without GRES)
  double poll_s = 1.0;                   ///< how often the job's state is read
  /// The flag that cancels the job (scancel) when it reads non-zero: g_stop_requested when null (`tune` passes its
  /// own, to cut a trial short).
  const volatile std::sig_atomic_t* stop = nullptr;
  bool echo = true;  ///< print the node log as it grows
};

/// The batch script (bash): the node list, the head's address, and one srun step of one task per node running
/// `<self> run-node <RUN_DIR> --head <address>`. Paths are single-quoted; nothing of the recipe is in it.
std::string sbatch_script(const RunPlan& plan, const SlurmOptions& options);

/// sbatch's argument vector for the script at `script`: --parsable, the job name, nodes, one task per node, the GPUs
/// per node (when `gres`), the output file in RUN_DIR, then the extra options (which override the script's).
std::vector<std::string> sbatch_argv(const RunPlan& plan, const SlurmOptions& options, const std::string& script);

/// Submits the run, follows it to its end (printing the node log as it grows), cancels it with scancel when SIGINT or
/// SIGTERM arrives (g_stop_requested), then saves the accounting into RUN_DIR and fills `record` (status, exit code,
/// job id, times). Throws InputError when sbatch is missing or refuses the job (with its message and the fix).
/// `before_launch` wraps the steps before the job is accepted (writing sbatch.sh, sbatch itself), so a refusal can
/// clean up.
void run_slurm(const RunPlan& plan, const SlurmOptions& options, RunRecord& record,
               const std::function<void(const std::function<void()>&)>& before_launch);

}  // namespace openrecipes::run
