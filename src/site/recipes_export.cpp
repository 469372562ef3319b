// data/recipes.json: the leaderboard's entries flattened to one object per recipe.
#include "site/recipes_export.h"

namespace openrecipes::site {

nlohmann::json recipes_json(const nlohmann::json& leaderboard) {
  nlohmann::json recipes = nlohmann::json::array();
  for (const auto& pair : leaderboard.at("pairs")) {
    for (const char* list : {"ranked", "unranked"}) {
      for (auto e : pair.at(list)) {
        for (const char* key : {"model", "model_name", "gpu", "workload", "non_standard_workload"})
          e[key] = pair.at(key);
        e["status"] = std::string(list) == "ranked" ? "verified" : "unranked";
        recipes.push_back(std::move(e));
      }
    }
  }
  return {{"schema", kRecipesJsonSchema}, {"recipes", recipes}};
}

}  // namespace openrecipes::site
