// data/recipes.json: the leaderboard's entries flattened to one object per recipe.
#include "site/recipes_export.h"

#include "site/board_entries.h"

namespace openrecipes::site {

nlohmann::json recipes_json(const nlohmann::json& leaderboard) {
  nlohmann::json recipes = nlohmann::json::array();
  for (const auto& pair : leaderboard.at("pairs")) {
    for (const auto& [entry, status] : pair_entries(pair)) {
      nlohmann::json e = *entry;
      for (const char* key : {"model", "model_name", "gpu", "non_standard_workload"}) e[key] = pair.at(key);
      if (!e.contains("workload")) e["workload"] = pair.at("workload");  // the entry's own is the pair's and more
      e["status"] = status;
      recipes.push_back(std::move(e));
    }
  }
  return {{"schema", kRecipesJsonSchema}, {"recipes", recipes}};
}

}  // namespace openrecipes::site
