// Recomputes everything a recipe claims from its evidence and runs both checks against its reference recipe
// (SPEC §2–§5): the status of each recipe, with every reason it is not verified.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/config_check.h"
#include "checks/convergence.h"
#include "checks/stack.h"
#include "core/reason.h"
#include "evidence/tune_search.h"
#include "layout/memory.h"
#include "measure/throughput.h"
#include "registry/registry.h"

namespace openrecipes::registry {

/// A stack component as shown: what the recipe says and whether the evidence shows it (checks/stack.h).
using StackStatus = checks::StackStatus;

/// One record of a run's log as the charts draw it (SPEC §2): the record's first 0-based step and the number of
/// steps it averages, its step time (seconds), the tokens of each of its steps, and its loss, each when known.
struct SeriesPoint {
  std::int64_t step = 0;
  std::int64_t steps = 1;
  std::optional<double> step_time_s;
  std::int64_t tokens = 0;
  std::optional<double> loss;
};

/// A convergence arm's per-step losses (0-based step -> loss), with the file they came from.
struct ArmCurve {
  std::string file;
  std::map<std::int64_t, double> loss;
};

/// What a recipe's evidence covers, so that a reader sees its strength at a glance (SPEC §5): each piece the build
/// read and used. A verified recipe has at least the log, the argument dump, a device and scheduler times.
struct EvidenceCoverage {
  std::string log;         ///< the step log's format ("megatron", "steps-jsonl", ...), "" when it could not be read
  bool arguments = false;  ///< an argument dump (the configuration check's input; the command is checked against it)
  bool versions = false;   ///< a versions dump (the stack check's input)
  std::string device;      ///< the GPU name the evidence shows ("NVIDIA H200"), "" when none or several
  std::string times;       ///< the scheduler times' format ("launcher", "sacct", "scontrol"), "" when none
  bool launch = false;     ///< the command as the run started it (evidence/launch.json)
  bool operator==(const EvidenceCoverage&) const = default;
  /// Six letters read like `ls -l`'s mode (the table, the CSV and the site show it): L the step log, A an argument
  /// dump, V a versions dump, D a device named, T scheduler times, C the command as launched; '-' where that piece is
  /// missing: "LAVDT-".
  std::string code() const;
};

/// The legend of EvidenceCoverage::code, one line.
inline constexpr const char* kEvidenceLegend =
    "evidence: L step log, A argument dump, V versions, D device, T scheduler times, C launched command (- missing)";

/// The planner's predicted peak memory per GPU of a recipe's run (layout/memory.h) and the peak its log measured.
struct MemoryPrediction {
  layout::MemoryEstimate predicted;
  std::optional<double> measured_peak_mib;  ///< Megatron's largest "max allocated", when the log prints it
};

/// Everything the build computed for one recipe.
struct RecipeResult {
  std::string id;
  const RecipeEntry* entry = nullptr;
  bool verified = false;
  Reasons reasons;                 ///< each reason it is not verified, with its stage, rule and fix
  std::vector<std::string> notes;  ///< remarks that do not block verification
  EvidenceCoverage coverage;

  std::optional<measure::Throughput> throughput;
  std::string step_time_field;  ///< the log's name for the step time (StepLog::time_field), when it was read
  std::optional<double> gpu_hours;
  std::optional<double> dollars_per_million_tokens;
  std::optional<double> mfu;
  std::int64_t active_params = 0;  ///< N used for MFU
  std::string active_params_from;  ///< how N was (re)counted: "config arithmetic", "safetensors headers", ...
  std::optional<checks::ConfigCheck> configuration;
  std::optional<checks::ConvergenceResult> convergence;
  /// The recipe's component-test records as the configuration check judged them: each with its raw output read,
  /// the arguments it covers and why its evidence does not back it (empty when the check did not run).
  std::vector<checks::ComponentTest> component_tests;
  bool is_reference = false;  ///< the pair's one reference recipe: both checks pass trivially
  std::string rows_status;    ///< "verified: <the build>", "not applicable (non-standard workload)", or why not
  std::vector<StackStatus> stack;

  // What the site draws: the measured run's records in file order with the window it was measured over, and
  // the loss curves of the recipe's arm and of its reference's arm (empty when they could not be read).
  std::vector<SeriesPoint> run_series;
  std::optional<measure::Window> window;
  std::optional<ArmCurve> arm, reference_arm;
  std::optional<MemoryPrediction> memory;      ///< nullopt when the evidence gives no shape to predict from
  std::optional<evidence::TuneSearch> search;  ///< the search that found it (evidence.search), when it checks out
};

/// Evaluates every recipe of `reg` (sorted by id). `checkpoints` maps a model id to a checkpoint (folder, index
/// or .safetensors) whose headers recount that model's N. Never throws for a recipe's bad input: it becomes a
/// reason. Beyond each recipe's own evidence (SPEC §2–§6), these make a recipe not verified:
/// - its reference is not verified, transitively to the pair's root ("reference: 'X' is not verified (…)");
/// - it declares `reference: null` but its pair (model, GPU, workload) already has the reference recipe: of
///   several roots, the one the most recipes are tuned from, then the earliest date, then the smallest id;
/// - an MFU above 100% of the GPU's dense BF16 peak, or a non-finite score, cost or MFU;
/// - scheduler times spanning less than the step times its log reports for the whole run;
/// - a convergence arm byte-identical to its reference's arm, or a separate arm whose argument dump differs from
///   the measured run's in a math argument other than the run length (train_iters, train_samples, exit_*);
/// - a command that breaks the program policy (checks/command_policy.h), or that is not the command the run started:
///   its launch (when the evidence has one) and its arguments against the argument dump (checks/command_check.h);
/// - a GPU type other than the device the evidence names, no device named, or a GPU count other than the dump's
///   world size (checks/device.h);
/// - no argument dump: without one a recipe can neither be checked against its reference nor serve as one;
/// - a patch whose file does not have the sha256 the recipe records, or a file in patches/ it does not list;
/// - a step log (or separate arm) that records the very steps of another recipe's (evidence_origin.h: one run published
///   twice; in a git registry the one whose file was committed first by ancestry keeps its rank, else none ranks);
/// - an argument dump whose shape is not the model file's (layout::shape_differences) or that breaks the model's
///   layout rules (layout::model_violations);
/// - a search record (evidence.search) that does not read or does not hold, by every rule of checks::check_search
///   (its start, its trials recomputed from their logs, tune's cut and best rules, the knobs, the planner's
///   predictions and fits, the GPU memory).
std::vector<RecipeResult> evaluate_registry(const Registry& reg,
                                            const std::map<std::string, std::filesystem::path>& checkpoints = {});

/// Evaluates the one recipe `id` ("<model>/<gpu>/<name>") of `reg`: the result evaluate_registry gives it, with
/// `entry` pointing into `reg`. Only the recipe and its reference chain are evaluated (every recipe's evidence is still
/// read, for the duplicate-run rule). Throws InputError naming the registry when it holds no recipe `id`.
RecipeResult evaluate_recipe(const Registry& reg, const std::string& id,
                             const std::map<std::string, std::filesystem::path>& checkpoints = {});

/// The claims block `r`'s evidence supports, as recipe.yaml records them (tokens/s/GPU to 2 decimals, CV to 5,
/// GPU-hours to 6 significant digits, correlation to 4 decimals, final-loss difference to 3 significant digits): what
/// submit writes and `check recipe` prints to paste. A result without a throughput or GPU-hours gives 0 there (the
/// recipe is not verified and its reasons say why).
Claims computed_claims(const RecipeResult& r);

}  // namespace openrecipes::registry
