// `submit`: a captured run directory turned into a recipe of the registry (PROTOCOL.md "Running a recipe"; SPEC §5):
// the evidence copied in, the layout, stack and workload taken from the run and the recipe it ran, and every claim
// computed from the evidence by the same evaluation `build` runs (never typed by the submitter).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "registry/evaluate.h"

namespace openrecipes::run {

struct SubmitRequest {
  std::filesystem::path run_dir;
  std::filesystem::path reference;  ///< the reference recipe's folder (or its recipe.yaml); "none": a new pair's own
  std::string author;               ///< a GitHub handle
  std::filesystem::path registry;   ///< the registry to write into
  std::string name;                 ///< the new recipe's folder name ("" : <recipe>-<author>-<8 hex of the log>)
  /// Folders `openrecipes component-test` wrote (-o DIR): each raw output <test>.json in them becomes the recipe's
  /// evidence/component-tests/<test>.json and a component-test record computed from it.
  std::vector<std::filesystem::path> component_tests;
  /// The TUNE_DIR of the `openrecipes tune` whose winner the run is ("" : none): its tune.json becomes the recipe's
  /// evidence/search.json, which the recipe's page shows.
  std::filesystem::path search;
};

struct SubmitResult {
  std::string id;                     ///< "<model>/<gpu>/<name>"
  std::filesystem::path dir;          ///< the new recipe's folder
  registry::RecipeResult evaluation;  ///< what build computed for it (entry pointer cleared)
};

/// Writes the recipe and its evidence into `registry` and evaluates the registry. Throws InputError (nothing
/// written) for: a run directory whose run.json is missing (incomplete), edited after capture (a sha256 mismatch), a
/// run that failed or was cancelled (with run.json's reason), a --profile run (not a convergence arm), a reference
/// that does not load or is of another model or GPU type, a recipe the run came from that changed since the run, an
/// author that is not a GitHub handle, a name that is not a recipe id, a model the registry lacks, a recipe folder
/// that already exists, and a component-test folder with no raw output, a raw output that does not read, was run for
/// another recipe, or repeats a test another folder holds, and a --search folder whose tune.json does not read, did
/// not start from the reference, or whose winner's run is not the run submitted. The folder is written whole or not at
/// all (a temp folder renamed into place).
SubmitResult submit_run(const SubmitRequest& request);

}  // namespace openrecipes::run
