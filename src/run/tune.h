// `openrecipes tune` (docs/tune.md): the fastest structural variant of a recipe, found by short measured trials. The
// candidates are the planner's layouts that fit (layout/planner.h) over the structural knobs only (TP, PP, VPP, CP, EP,
// ETP, the micro-batch, recompute, the distributed optimizer with its overlap flags), so the winner keeps the
// recipe's math by construction; each trial is a run through the `run` machinery (run/execute.h: the same plan,
// program policy, capture), cut to warm-up + N steps and measured over its N steps after warm-up with the score's 95%
// interval (measure/throughput.h); the winner is re-run for the recipe's own length, as a run directory that `submit
// --reference <the starting recipe>` turns into a verified recipe. docs/tune.md says every rule.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "evidence/tune_search.h"
#include "measure/throughput.h"
#include "registry/recipe.h"
#include "run/execute.h"
#include "run/tune_candidates.h"
#include "run/tune_trial.h"

namespace openrecipes::run {

/// What the user asked `tune` for.
struct TuneRequest {
  std::int64_t gpus = 1;   ///< G
  std::int64_t nodes = 1;  ///< N
  std::string launcher;    ///< local or slurm
  std::vector<std::string> vars;
  double budget_minutes = 60;             ///< wall-clock minutes for the whole search, the winner's run included
  std::int64_t trial_steps = 10;          ///< measured steps of a trial (after warm-up)
  std::int64_t warmup_steps = 3;          ///< steps of a trial not measured (start-up, allocator, first compilations)
  std::int64_t max_trials = 0;            ///< at most this many trials (0: as many as the budget allows)
  double memory_mib = 0;                  ///< one GPU's memory (gpus.yaml memory_mib; 0: no fit verdict)
  std::optional<layout::GpuSpeed> speed;  ///< the GPU type's rates (gpus.yaml): candidates get a predicted step time
  std::filesystem::path tune_dir;         ///< TUNE_DIR (new or empty)
  std::filesystem::path data_dir;         ///< the checkout's data/ (the trainer's PYTHONPATH), as run takes it
  ExecuteOptions execute;                 ///< the launcher's options (echo is off for trials)
};

/// The longest search tune runs: a week (10,080 minutes). A longer budget is a typo, and the deadline stays far inside
/// the clock's range.
inline constexpr double kMaxBudgetMinutes = 7 * 24 * 60;

/// The most steps a trial's warm-up or measurement may have: far beyond any recipe's run (which bounds them both).
inline constexpr std::int64_t kMaxTrialSteps = 100000;

/// Checks `q`'s sizes before anything else (the dry run and the real one alike): GPUs and nodes at least 1, the
/// budget a finite number of minutes in (0, kMaxBudgetMinutes], trial steps in [2, kMaxTrialSteps], warm-up steps in
/// [0, kMaxTrialSteps], max trials not negative. Throws InputError naming the option, its value and the range.
void check_tune_request(const TuneRequest& q);

/// The search: every candidate, every trial in order, the best, why it stopped, the winner's run.
struct TuneResult {
  std::vector<TuneCandidate> candidates;
  std::vector<TuneSwap> swaps;  ///< the same-math swaps it could try (tune_swaps)
  std::vector<TuneTrial> trials;
  std::optional<std::size_t> best;  ///< index into trials
  std::string stopped;              ///< "every candidate tried", "budget", "--max-trials", "interrupted"
  double elapsed_s = 0;
  std::string winner_run_dir;                       ///< TUNE_DIR/winner ("" when the start won or nothing was measured)
  std::string winner_status;                        ///< its run.json status
  std::optional<measure::Throughput> winner_score;  ///< over the protocol's window
};

/// Runs the search from `start` (a recipe of a registry, loaded in full: its argument dump gives the model's shape and
/// setup) within `request`'s bounds and writes TUNE_DIR: recipes/<model>/<gpu>/<name>/recipe.yaml (each
/// candidate as a draft), trials/<NN>-<name>/ (each trial's run directory), winner/ (the winner's run of the recipe's
/// own length), tune.json and tune.txt (rewritten after every trial). A trial is cut short when, after at least 3
/// measured steps, its score's interval lies wholly below the best's by more than 5%; the best changes only to a trial
/// whose interval lies wholly above it (a trial within noise of the best does not replace it). No trial starts that
/// would end past the budget, keeping time for the winner's run. Each same-math swap of tune_swaps is tried on every
/// configuration that becomes the best (the start aside), right after it: a candidate of that command plus the swap,
/// never itself the base of another. A winner with a swap needs its own component test at its shape before submit
/// (tune_table says how). Throws InputError (nothing run) for a recipe that is not Megatron-LM's, a request
/// check_tune_request refuses (sizes below 1, a budget not finite or over a week), warm-up + trial steps longer than
/// the recipe's run (check_trial_length), a TUNE_DIR that exists and is not empty, and whatever tune_candidates or
/// run's planning refuse for the start.
TuneResult tune(const registry::Recipe& start, const TuneRequest& request);

/// The search as tune.json records it (evidence/tune_search.h writes it): the request, every candidate, every trial,
/// the winner, with paths relative to TUNE_DIR.
evidence::TuneSearch search_record(const registry::Recipe& start, const TuneRequest& request, const TuneResult& result);

/// Checks that warm-up plus trial steps fit in `start`'s run (a trial replays the recipe's data and schedule). Throws
/// InputError naming both counts.
void check_trial_length(const registry::Recipe& start, const TuneRequest& request);
/// The table tune prints and writes as tune.txt.
std::string tune_table(const registry::Recipe& start, const TuneRequest& request, const TuneResult& result);

}  // namespace openrecipes::run
