// `openrecipes tune` (issue 29): the fastest structural variant of a recipe, found by short measured trials. The
// candidates are the planner's layouts that fit (layout/plan.h) over the structural knobs only (TP, PP, VPP, CP, EP,
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

#include "checks/component_test.h"
#include "layout/memory.h"
#include "layout/plan.h"
#include "measure/throughput.h"
#include "registry/recipe.h"
#include "run/execute.h"

namespace openrecipes::run {

/// What the user asked `tune` for.
struct TuneRequest {
  std::int64_t gpus = 1;   ///< G
  std::int64_t nodes = 1;  ///< N
  std::string launcher;    ///< local or slurm
  std::vector<std::string> vars;
  double budget_minutes = 60;      ///< wall-clock minutes for the whole search, the winner's run included
  std::int64_t trial_steps = 10;   ///< measured steps of a trial (after warm-up)
  std::int64_t warmup_steps = 3;   ///< steps of a trial not measured (start-up, allocator, first compilations)
  std::int64_t max_trials = 0;     ///< at most this many trials (0: as many as the budget allows)
  double memory_mib = 0;           ///< one GPU's memory (gpus.yaml memory_mib; 0: no fit verdict)
  std::filesystem::path tune_dir;  ///< TUNE_DIR (new or empty)
  std::filesystem::path data_dir;  ///< the checkout's data/ (the trainer's PYTHONPATH), as run takes it
  ExecuteOptions execute;          ///< the launcher's options (echo is off for trials)
};

/// The longest search tune runs: a week (10,080 minutes). A longer budget is a typo, and the deadline stays far inside
/// the clock's range.
inline constexpr double kMaxBudgetMinutes = 7 * 24 * 60;

/// Checks `q`'s sizes before anything else (the dry run and the real one alike): GPUs and nodes at least 1, the
/// budget a finite number of minutes in (0, kMaxBudgetMinutes], trial steps at least 2, warm-up steps and max trials
/// not negative. Throws InputError naming the option, its value and the range.
void check_tune_request(const TuneRequest& q);

/// A same-math swap tune may try (SPEC §4.2): one whose component test passed, at the model's layer shape, in a
/// recipe of the start's registry, and which the start does not make yet.
struct TuneSwap {
  std::string test;                                ///< the component test's id ("cross_entropy_loss_fusion")
  std::vector<checks::SwappedArgument> arguments;  ///< each argument with its two values, as the dump prints them
  std::string tested_in;                           ///< the recipe whose passed test allows it
};

/// The swaps tune may try from `start`: every same-math swap whose component test counts (its raw output backs it,
/// it passed, at the model's layer shape: registry::evaluate_registry's judgement) in a recipe of the same model in
/// the start's registry, whose every argument the start's argument dump sets to the test's reference value and the
/// Megatron-LM argument table can write as a flag. Empty when the start is in no registry or has no argument dump.
std::vector<TuneSwap> tune_swaps(const registry::Recipe& start);

/// TUNE_DIR/recipes/<model>/<gpu>/<name>: where tune writes candidate `name`'s draft recipe (the recipe its trials and
/// the winner's run ran, which submit checks the run against).
std::filesystem::path tune_draft_dir(const std::filesystem::path& tune_dir, const std::string& model,
                                     const std::string& gpu, const std::string& name);

/// One configuration to try: a layout the planner says fits, as a draft recipe's command.
struct TuneCandidate {
  std::string name;   ///< the draft's folder name, "<start>-<changed knobs>" ("tulu3-ref-mbs16")
  std::string knobs;  ///< what changed from the start, in words ("micro-batch 4 -> 16"; "the start")
  layout::TrainingSetup setup;
  layout::MemoryEstimate memory;     ///< the planner's peak per GPU
  bool fits = true;                  ///< the planner's verdict against the GPU's usable memory
  double relative_time = 1;          ///< the planner's speed heuristic (lower is faster)
  bool start = false;                ///< the starting recipe's own configuration
  std::string command;               ///< the draft recipe's command (the recipe's own length)
  std::vector<std::string> changes;  ///< the command's flag changes, "--micro-batch-size 4 -> 16"
  std::string swap;                  ///< the same-math swap it adds to the candidate it was made from ("" : none)
};

/// The candidates for `recipe` on G GPUs, in the order they are tried: the start first (the baseline every
/// speed-up is stated against), then every layout plan_layouts finds that fits, in its order, each once (layouts
/// whose commands come out equal are one candidate). Needs a Megatron-LM recipe whose shape and setup are known
/// (registry/recipe_memory.h); slime and miles recipes keep their micro-batch and recompute (their commands do not set
/// Megatron's). Throws InputError naming the recipe for a shape that cannot be read, and when no layout fits.
std::vector<TuneCandidate> tune_candidates(const registry::Recipe& recipe, const TuneRequest& request);

/// One trial's result.
struct TuneTrial {
  std::size_t candidate = 0;  ///< index into the candidates
  /// "measured" (ran its steps), "cut: slower" (its interval fell below the best's), "cut: budget", "oom" (out of GPU
  /// memory), "crashed" (another failure), "refused" (run's plan refused it), "interrupted" (a signal)
  std::string outcome;
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
/// (tune_table says how). Throws InputError (nothing run) for a TUNE_DIR that exists and is not empty, sizes below 1,
/// and whatever tune_candidates or run's planning refuse for the start.
TuneResult tune(const registry::Recipe& start, const TuneRequest& request);

/// tune.json's text (format openrecipes-tune, format_version 1; docs/tune.md).
std::string tune_json(const registry::Recipe& start, const TuneRequest& request, const TuneResult& result);
/// The table tune prints and writes as tune.txt.
std::string tune_table(const registry::Recipe& start, const TuneRequest& request, const TuneResult& result);

}  // namespace openrecipes::run
