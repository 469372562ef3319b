// The list of the site's pages and the layout each is rendered in (site/pages.h).
#include "site/pages.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "core/version.h"
#include "site/board_entries.h"
#include "site/html.h"

namespace openrecipes::site {

using nlohmann::json;

namespace {

// Page `path` of `board`: template `template_name` rendered with `view` (and the page's root), inside the layout
// with its title, the tool's version and the build time. The body, already rendered HTML, is put in place of the
// layout's {{{body}}} as it is: rendering it through the layout again would copy and re-scan every page's bytes. Its
// marker is an HTML comment no other value of the layout can hold (the title is escaped there, so its "<" is "&lt;").
std::string page(const json& board, const std::string& path, const std::string& title, const std::string& template_name,
                 json view) {
  static constexpr std::string_view kBody = "<!--openrecipes:body-->";
  const std::string root = root_of(path);
  view["root"] = root;
  const std::string body = render_template(template_name, view);
  const json& site = board.contains("site") ? board["site"] : json::object();
  const json layout = {{"title", title},
                       {"root", root},
                       {"body", kBody},
                       {"version", kToolVersion},
                       {"built_at", site.contains("built_at") ? site["built_at"] : json(false)}};
  std::string out = render_template("layout", layout);
  const auto at = out.find(kBody);
  if (at == std::string::npos) throw std::logic_error("templates/layout.mustache has no {{{body}}}");
  return out.replace(at, kBody.size(), body);
}

}  // namespace

std::vector<PageJob> site_page_jobs(const json& board, const RecipeText& recipe_text) {
  std::vector<PageJob> out;
  out.push_back({"index.html", [&board] {
                   return page(board, "index.html", "OpenRecipes leaderboard", "index", index_view(board));
                 }});
  out.push_back({"rates.html", [&board] {
                   return page(board, "rates.html", "Rates, peaks and formulas · OpenRecipes", "rates",
                               rates_view(board));
                 }});
  for (auto it = board["models"].begin(); it != board["models"].end(); ++it) {
    const std::string model = it.key(), path = model_page_path(model);
    out.push_back({path, [&board, model, path] {
                     return page(board, path, board["models"][model]["name"].get<std::string>() + " · OpenRecipes",
                                 "model", model_view(board, model));
                   }});
  }
  for (const auto& p : board["pairs"])
    for (const auto& [e, status] : pair_entries(p)) {
      const std::string id = (*e)["id"].get<std::string>(), path = recipe_page_path(id);
      const json* pair = &p;
      const json* entry = e;
      out.push_back({path, [&board, &recipe_text, pair, entry, id, path] {
                       json view = recipe_view(*pair, *entry);
                       if (view["reproduce"].is_object() && recipe_text)
                         if (auto text = recipe_text(id)) {
                           view["reproduce"]["recipe_yaml"] = std::move(*text);
                           view["reproduce"]["has_recipe_yaml"] = true;
                         }
                       return page(board, path, id + " · OpenRecipes", "recipe", std::move(view));
                     }});
    }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

std::vector<SiteFileOut> site_pages(const json& board, const RecipeText& recipe_text) {
  std::vector<SiteFileOut> out;
  for (const auto& job : site_page_jobs(board, recipe_text)) out.push_back({job.path, job.render()});
  return out;
}

}  // namespace openrecipes::site
