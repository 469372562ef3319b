// The configuration and convergence checks on a recipe's page (site/recipe_sections.h).
#include "site/recipe_sections.h"

#include <fmt/format.h>

#include "core/text.h"
#include "site/format.h"
#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

json configuration_check_view(const json& checks) {
  if (!checks.contains("configuration")) return false;
  json changes = json::array();
  for (const auto& c : checks["configuration"]["changes"])
    changes.push_back({{"argument", c["argument"]},
                       {"reference", c["reference"].is_string() ? c["reference"] : json("(not set)")},
                       {"recipe", c["recipe"].is_string() ? c["recipe"] : json("(not set)")},
                       {"class", c["class"]},
                       {"accepted", c["accepted"].get<bool>() ? "allowed" : "not allowed"},
                       {"note", c["note"]}});
  return {{"verdict", checks["configuration"]["verdict"]},
          {"changes", changes},
          {"has_changes", !changes.empty()},
          {"problems", checks["configuration"]["problems"]}};
}

json convergence_check_view(const json& checks) {
  if (!checks.contains("convergence")) return false;
  const json& c = checks["convergence"];
  auto fixed = [&](const char* k, int d) {
    return c[k].is_number() ? json(fmt::format("{:.{}f}", c[k].get<double>(), d)) : json("–");
  };
  return {
      {"verdict", c["verdict"]},
      {"correlation", fixed("correlation", 6)},
      {"correlation_value",
       c["correlation"].is_number() ? json(format_double(c["correlation"].get<double>())) : json("")},
      {"final_loss_rel_diff", cell(number(c, "final_loss_rel_diff"), [](double x) { return format_percent(x, 4); })},
      {"pointwise_failures", std::to_string(c["pointwise_failures"].get<std::int64_t>())},
      {"outliers", std::to_string(c["outliers"].get<std::int64_t>())},
      {"points", std::to_string(c["points"].get<std::int64_t>())},
      {"failed_tests", c["failed_tests"]},
      {"problems", c["problems"]}};
}

}  // namespace openrecipes::site::parts
