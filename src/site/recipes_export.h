// The leaderboard's recipes as one list (the site's data/recipes.json): one object per readable recipe with every
// field the build computed for it, plus its pair's fields, read from the JSON that `build --json` writes.
// docs/recipes-json.md documents the schema.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace openrecipes::site {

/// The version of the recipes.json schema; a change of fields' meaning or a removed field is a new version.
inline constexpr const char* kRecipesJsonSchema = "openrecipes-recipes/2";

/// {"schema": kRecipesJsonSchema, "recipes": [...]}: per pair in the leaderboard's order (leaderboard_json's shape),
/// its ranked recipes by rank, then its unranked ones; each object is the leaderboard's entry for the recipe with
/// "model", "model_name", "gpu", "workload" and "non_standard_workload" of its pair and "status" ("verified" or
/// "unranked") added. Keys sort, so the same leaderboard gives the same bytes. Throws nlohmann::json exceptions on
/// JSON of another shape.
nlohmann::json recipes_json(const nlohmann::json& leaderboard);

/// recipes_json(leaderboard).dump(2) and a line break, the bytes of data/recipes.json, written one recipe at a time:
/// never the whole list as JSON values in memory (at 10,000 recipes that is hundreds of MiB beside the board).
std::string recipes_json_text(const nlohmann::json& leaderboard);

}  // namespace openrecipes::site
