// Executing a run plan (PROTOCOL.md "Running a recipe", SPEC §6): plan.json and the patches applied first, then the
// trainer on this machine (one node task in-process) or through Slurm, then run.json, the manifest of everything
// captured. `openrecipes run` executes one plan; `openrecipes tune` executes one per trial, the same way.
#pragma once

#include <csignal>

#include "run/capture.h"
#include "run/run_plan.h"
#include "run/slurm.h"

namespace openrecipes::run {

struct ExecuteOptions {
  SlurmOptions slurm;  ///< the Slurm launcher's options (launcher slurm)
  bool echo = true;    ///< local launcher: copy the trainer's output to stdout as it comes
  /// The flag that stops the run (null: g_stop_requested, set by SIGINT / SIGTERM), and who sets it, for run.json's
  /// reason ("a signal").
  const volatile std::sig_atomic_t* stop = nullptr;
  std::string stopped_by = "a signal";
};

/// Creates RUN_DIR, writes plan.json (and patches.txt, applying the patches), runs the plan with its launcher and
/// writes run.json. Returns the record: "completed" (exit 0), "failed" (with the exit status, or the program that
/// could not start) or "cancelled" (the stop flag). Throws InputError, leaving no RUN_DIR it created behind, when a
/// step before the trainer starts fails (a patch that does not apply, sbatch refusing the job).
RunRecord execute_run(const RunPlan& plan, const ExecuteOptions& options);

}  // namespace openrecipes::run
