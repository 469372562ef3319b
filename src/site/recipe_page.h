// A recipe's page, recipes/<model>/<gpu>/<name>.html (SPEC §5): everything about one recipe, its numbers, how to
// reproduce it, its evidence, checks and charts, as the view templates/recipe.mustache renders.
#pragma once

#include <nlohmann/json.hpp>

namespace openrecipes::site {

/// The view of entry `entry` of pair `pair` (leaderboard_json's shape; the entry is ranked or unranked): its table row
/// (entry_row) and, for a readable recipe, its run (score, window, command, layout, memory), the Reproduce box, the
/// search that found it, its stack, the configuration and convergence checks, the charts and step table, the
/// component tests, the workload and rows, and its evidence and patches linked to the site's copies
/// (site/recipe_sections.h). Throws nlohmann::json exceptions on JSON of another shape.
nlohmann::json recipe_view(const nlohmann::json& pair, const nlohmann::json& entry);

}  // namespace openrecipes::site
