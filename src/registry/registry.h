// The registry folder as a whole (DESIGN.md layout): gpus.yaml, models/, rules/arguments.yaml, and every
// recipes/<model>/<gpu>/<id>/recipe.yaml. Table files must be valid for a build to run at all; a recipe that
// cannot be read is kept with its error, so `build` reports it instead of stopping.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/argument_rules.h"
#include "checks/component_check.h"
#include "registry/gpus.h"
#include "registry/model.h"
#include "registry/recipe.h"
#include "registry/reference_rows.h"

namespace openrecipes::registry {

/// A recipe folder and either the loaded recipe or why it could not be loaded.
struct RecipeEntry {
  std::string id;  ///< "<model>/<gpu>/<name>" from the folder
  std::filesystem::path dir;
  std::optional<Recipe> recipe;
  std::string load_error;  ///< why it could not be read when recipe is empty: "<where>: <problem>"
  std::string load_fix;    ///< and what to do about it ("" when the message says it)
};

struct Registry {
  std::filesystem::path root;
  std::map<std::string, GpuType> gpus;
  std::map<std::string, ModelInfo> models;
  checks::ArgumentRules rules;
  /// rules/component_tests.yaml: how each same-math swap is tested and its bound (absent: no swap can be verified)
  std::optional<checks::ComponentRules> component_rules;
  std::map<std::string, ReferenceRows> reference_rows;  ///< registry/rows/<id>: the standard rows builds
  /// The protocol's workload the standard recipes' rows builds are held to: the compiled-in one (never the registry
  /// folder's own; a test may set another).
  ProtocolWorkload protocol = protocol_workload();
  std::vector<RecipeEntry> recipes;  ///< sorted by id
};

/// Loads the registry at `root`. Throws InputError for a missing or malformed gpus.yaml, models/ or
/// rules/arguments.yaml (the build cannot run without them), a malformed rows/<id>/ (registry/reference_rows.h),
/// and a model whose rows_build names no rows/<id>/. Recipe folders are found at exactly
/// recipes/<model>/<gpu>/<id>/ (a folder there without recipe.yaml is a load error for that entry);
/// a symbolic link to a folder at any of those levels is never followed: it becomes an entry (its id is its
/// path under recipes/) with a load error saying so. At most 10,000 recipes.
Registry load_registry(const std::filesystem::path& root);

}  // namespace openrecipes::registry
