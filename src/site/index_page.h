// The site's front page, index.html (SPEC §5): every model × GPU type × workload with its verified recipes, the
// filters, the changelog and the models list, as the view templates/index.mustache renders.
#pragma once

#include <nlohmann/json.hpp>

namespace openrecipes::site {

/// The index page's view of `board` (leaderboard_json's shape, with the site's "site" object when site_writer adds
/// it): one row per verified recipe, each pair's in rank order ("best" marks a pair's first), the filter options,
/// one empty state per model, the changelog (newest first), the models and the unreadable recipes. Throws
/// nlohmann::json exceptions on JSON of another shape.
nlohmann::json index_view(const nlohmann::json& board);

}  // namespace openrecipes::site
