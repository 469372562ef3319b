// A tuned recipe's search held to the recipe (docs/tune.md "The winner"; SPEC §5): the record `openrecipes tune`
// wrote (evidence/tune_search.h reads it) must be the search that found this recipe, with every number it publishes
// recomputed from the trials' own logs, its winner the best trial by tune's own rule, and every prediction the
// planner's. The rules are here; the build gives them the recipe's facts (registry/evaluate).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/reason.h"
#include "evidence/tune_search.h"
#include "layout/memory.h"

namespace openrecipes::checks {

/// What the planner reads from and predicts for one candidate's command (registry::candidate_prediction).
struct CandidatePrediction {
  layout::TrainingSetup setup;     ///< the training setup the command gives: the record's knobs are held to it
  std::optional<double> peak_mib;  ///< the predicted peak per GPU (MiB, rounded as tune.json records it); nullopt:
                                   ///< the planner gives none for that setup
};

/// What the build knows of the recipe a search is held to.
struct SearchSubject {
  std::string where;            ///< the record's file, for messages ("recipes/<id>/evidence/search.json")
  std::string search_relative;  ///< evidence.search as the recipe writes it: the trial logs lie beside it
  std::string command;          ///< the recipe's command
  std::int64_t gpus = 1;        ///< the recipe's GPU count
  std::int64_t row_length = 1, global_batch = 1;  ///< the recipe's workload (the trials ran it)
  std::optional<double> tokens_per_s_per_gpu;     ///< what the build measured for the recipe, when it measured
  std::optional<std::string> reference;           ///< the recipe's reference id
  /// The reference's command, when the reference is known and ran on the search's GPU count (the start must be it).
  std::optional<std::string> reference_command;
  /// The text of a trial's log, by its path relative to the recipe's folder; throws InputError when it does not read.
  std::function<std::string(const std::string& relative)> read;
  /// The planner's reading of and prediction for a candidate's command, or nullopt when the command gives no shape and
  /// setup (registry::candidate_prediction); called once per candidate. Empty: neither the record's knobs nor its
  /// predictions are checked.
  std::function<std::optional<CandidatePrediction>(const std::string& command)> predict;
  /// One GPU's memory in MiB as the registry's gpus.yaml gives it for the recipe's GPU type (the search's memory_mib
  /// and every fit verdict are held to it); nullopt: not checked.
  std::optional<double> memory_mib;
};

/// The best trial (its 1-based number) by tune's rule (docs/tune.md "Trials"): the trials in the order run, the first
/// measured one with a score interval is the best, and a later measured one replaces it only when its interval clears
/// the best's (measure::interval_clears). nullopt when no trial was measured.
std::optional<std::int64_t> best_trial(const evidence::TuneSearch& search);

/// Every way `search` is not the search that found the recipe `subject` describes, as reasons (stage search, with the
/// fix): it did not start from the recipe's reference, or its start is not the reference's command; it hands back no
/// variant of its start; its winner's command is not the recipe's, or its winner's run scored other than the build
/// measures (1e-6 relative); it ran on another GPU count; a trial's tokens/s/GPU, interval or measured peak is not
/// what its own log gives (search-trials/NN.log beside the record, measured over its steps after warm-up), or its
/// log does not read; a trial's outcome is not what its numbers show (a measured trial ran every trial step; one cut as
/// slower ran fewer, after a best, and its interval falls short of that best's: measure::interval_falls_short); a
/// trial's log ran another layout than its candidate's (its argument dump's setup); its winner is not best_trial; a
/// candidate's recorded knobs are not what its command sets; a trial's predicted peak is not the planner's for its
/// candidate's command (more than 0.5 MiB off); its GPU memory is not the recipe's GPU type's, or a fit verdict is not
/// the planner's against the usable part of it. Empty when the search holds. Never throws.
Reasons check_search(const evidence::TuneSearch& search, const SearchSubject& subject);

}  // namespace openrecipes::checks
