// A model's page, models/<model>.html (SPEC §5): its notes and N, per pair (GPU type × workload) the ranked table,
// and the GPU-type comparison, as the view templates/model.mustache renders.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace openrecipes::site {

/// The view of model `model` (a key of the board's "models") of `board` (leaderboard_json's shape): the model's facts
/// (name, checkpoint, N and its breakdown by parameter class), each of its pairs with its ranked and unranked rows
/// and the count of its unverified recipes, the filter options, per workload the comparison across GPU types
/// (site/model_comparison.h) and the scatter charts. A model with no pair gets a view without tables. Throws
/// nlohmann::json exceptions on JSON of another shape.
nlohmann::json model_view(const nlohmann::json& board, const std::string& model);

}  // namespace openrecipes::site
