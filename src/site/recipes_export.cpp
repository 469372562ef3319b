// data/recipes.json: the leaderboard's entries flattened to one object per recipe.
#include "site/recipes_export.h"

#include <string>

#include "site/board_entries.h"

namespace openrecipes::site {

namespace {

// One recipe of recipes.json: the leaderboard's entry with its pair's fields and its status.
nlohmann::json recipe_object(const nlohmann::json& pair, const nlohmann::json& entry, const std::string& status) {
  nlohmann::json e = entry;
  for (const char* key : {"model", "model_name", "gpu", "non_standard_workload"}) e[key] = pair.at(key);
  if (!e.contains("workload")) e["workload"] = pair.at("workload");  // the entry's own is the pair's and more
  e["status"] = status;
  return e;
}

}  // namespace

nlohmann::json recipes_json(const nlohmann::json& leaderboard) {
  nlohmann::json recipes = nlohmann::json::array();
  for (const auto& pair : leaderboard.at("pairs"))
    for (const auto& [entry, status] : pair_entries(pair)) recipes.push_back(recipe_object(pair, *entry, status));
  return {{"recipes", std::move(recipes)}, {"schema", kRecipesJsonSchema}};
}

std::string recipes_json_text(const nlohmann::json& leaderboard) {
  // recipes_json's dump(2), written a recipe at a time: its keys sort ("recipes" before "schema"), each recipe is
  // indented by 4 (JSON text never holds a raw line break inside a value, so every '\n' starts a line).
  std::string out = "{\n  \"recipes\": [";
  bool first = true;
  for (const auto& pair : leaderboard.at("pairs"))
    for (const auto& [entry, status] : pair_entries(pair)) {
      const std::string text = recipe_object(pair, *entry, status).dump(2);
      out += first ? "\n    " : ",\n    ";
      first = false;
      for (char c : text) {
        out.push_back(c);
        if (c == '\n') out += "    ";
      }
    }
  out += first ? "]" : "\n  ]";
  out += ",\n  \"schema\": " + nlohmann::json(kRecipesJsonSchema).dump() + "\n}\n";
  return out;
}

}  // namespace openrecipes::site
