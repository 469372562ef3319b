// The Reproduce box of a recipe's page: how to run the recipe again (site/recipe_sections.h).
#include "site/recipe_sections.h"

#include "core/text.h"
#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

json reproduce_view(const json& e, const std::string& id, const std::string& root) {
  if (!e.contains("reproduce")) return false;
  const json& r = e["reproduce"];
  json prepare = json::array();
  for (const auto& line : r["prepare"]) prepare.push_back(line);
  json vars = json::array();
  for (const auto& v : r["variables"])
    vars.push_back({{"name", v["name"]},
                    {"points_at", v["points_at"]},
                    {"example", v["example"].get<std::string>().empty() ? json("–") : v["example"]},
                    {"needed", v["needs_value"].get<bool>()     ? "needed"
                               : v["launcher_only"].get<bool>() ? "read by the launcher"
                                                                : "filled by run"}});
  return {{"recipe_href", evidence_href(id, root, "recipe.yaml")},
          {"recipe_folder", r["recipe_folder"]},
          {"prepare", prepare},
          {"has_prepare", !prepare.empty()},
          {"run", r["run"]},
          {"variables", vars},
          {"has_variables", !vars.empty()},
          {"standard", r["standard_workload"]},
          {"rows_sha256", r["rows_sha256"].is_string() ? r["rows_sha256"] : json(false)},
          {"rows_count", with_thousands(r["rows_count"].get<std::int64_t>())}};
}

}  // namespace openrecipes::site::parts
