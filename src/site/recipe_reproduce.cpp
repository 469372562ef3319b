// The Reproduce box of a recipe's page: how to run the recipe again (site/recipe_sections.h).
#include "site/recipe_sections.h"

#include "core/error.h"
#include "core/text.h"
#include "layout/command.h"
#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

namespace {

// A command as the box shows it: a line for each flag and its value, continued with " \" (a shell and the project's
// command reader join the lines back), so a long run line reads whole in a wide window and never breaks inside a flag
// in a narrow one (the box scrolls instead). Each word keeps its exact text, quotes included; a line the reader
// refuses (it never should: reproduction() writes it) is shown as it is.
std::string folded(const std::string& line) {
  std::vector<layout::CommandWord> words;
  try {
    words = layout::split_command(line, "the Reproduce box's command");
  } catch (const InputError&) {
    return line;
  }
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& w = words[i];
    if (i > 0) out += w.leading_literal().starts_with("-") && i > 1 ? " \\\n  " : " ";
    out += line.substr(w.begin, w.end - w.begin);
  }
  return out;
}

}  // namespace

json reproduce_view(const json& e) {
  if (!e.contains("reproduce")) return false;
  const json& r = e["reproduce"];
  json prepare = json::array();
  for (const auto& line : r["prepare"]) prepare.push_back(folded(line.get<std::string>()));
  json vars = json::array();
  for (const auto& v : r["variables"])
    vars.push_back({{"name", v["name"]},
                    {"points_at", v["points_at"]},
                    {"example", v["example"].get<std::string>().empty() ? json("–") : v["example"]},
                    {"needed", v["needs_value"].get<bool>()     ? "needed"
                               : v["launcher_only"].get<bool>() ? "read by the launcher"
                                                                : "filled by run"}});
  return {{"recipe_folder", r["recipe_folder"]},
          {"has_recipe_yaml", false},  // the site writer adds the file's text (site/pages.h RecipeText)
          {"prepare", prepare},
          {"has_prepare", !prepare.empty()},
          {"placeholders", r.value("placeholders", json::array())},
          {"has_placeholders", !r.value("placeholders", json::array()).empty()},
          {"run", folded(r["run"].get<std::string>())},
          {"variables", vars},
          {"has_variables", !vars.empty()},
          {"standard", r["standard_workload"]},
          {"rows_sha256", r["rows_sha256"].is_string() ? r["rows_sha256"] : json(false)},
          {"rows_count", with_thousands(r["rows_count"].get<std::int64_t>())}};
}

}  // namespace openrecipes::site::parts
