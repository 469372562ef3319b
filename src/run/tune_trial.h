// One trial of `openrecipes tune` (docs/tune.md "Trials"): a candidate's draft run through the run machinery, cut to
// warm-up + N steps, watched while it runs (cut when it falls short of the best, or at the budget's deadline), and
// classed by how it ended.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "evidence/tune_search.h"
#include "measure/throughput.h"
#include "run/execute.h"
#include "run/run_plan.h"

namespace openrecipes::run {

using evidence::TrialOutcome;

/// One trial's result.
struct TuneTrial {
  std::size_t candidate = 0;  ///< index into the candidates
  TrialOutcome outcome = TrialOutcome::measured;
  std::string reason;
  std::string run_dir;  ///< TUNE_DIR/trials/<NN>-<name>
  std::int64_t steps_measured = 0;
  std::optional<measure::ScoreInterval> interval;  ///< over the measured steps (partial for a cut trial)
  std::optional<double> tokens_per_s_per_gpu;
  std::optional<double> measured_peak_mib;  ///< Megatron's max allocated, when the log printed it
  double wall_s = 0;                        ///< the trial's launch to exit
  std::optional<double> startup_s;          ///< launch to its first step line
  std::string planner;                      ///< the planner's verdict against what happened ("right", "wrong: ...", "")
};

/// How one trial runs.
struct TrialSetup {
  RunRequest run;                 ///< the candidate's draft, its run directory and trial_iters (warm-up + N steps)
  std::int64_t warmup_steps = 0;  ///< steps not measured
  std::int64_t trial_steps = 0;   ///< steps measured when it runs to its end
  measure::StepShape shape;       ///< GPUs, row length and rows a step
  std::optional<measure::ScoreInterval> best;      ///< the best trial's interval so far (none: nothing to cut against)
  std::chrono::steady_clock::time_point deadline;  ///< when the budget runs out for this trial
  ExecuteOptions execute;                          ///< the launcher's options
};

/// Runs one trial: plans it (a plan run refuses is the trial's "refused"), runs it while a watcher cuts it as "cut:
/// slower" (measure::interval_falls_short against the best, after at least 3 measured steps) or "cut: budget" (past
/// the deadline) or "interrupted" (a signal), then scores its measured steps from its log with the score's interval
/// and reads Megatron's max allocated. "measured" when it ran all its steps, else how it stopped: cut, "oom" (PyTorch's
/// CUDA out-of-memory error in its log) or "crashed" (with the log's last error line). Never throws.
TuneTrial run_trial(const TrialSetup& setup);

/// A MiB figure as tune prints it: rounded to a whole MiB, with thousands separators ("16,154").
std::string mib_text(double mib);

/// Seconds elapsed since `t` on the steady clock (a trial's and a search's wall time).
double seconds_since(std::chrono::steady_clock::time_point t);

/// The planner's verdict against what the trial showed: for an "oom", right when it predicted no fit; for a trial
/// whose log printed its peak, whether it fit and the prediction's error; "" when there is nothing to judge.
/// `predicted_mib` is the planner's peak, `fits` its verdict against `memory_mib`'s usable part.
std::string planner_verdict(const TuneTrial& trial, double predicted_mib, bool fits, double memory_mib);

}  // namespace openrecipes::run
