// The list of the site's pages and the layout each is rendered in (site/pages.h).
#include "site/pages.h"

#include <algorithm>

#include "core/version.h"
#include "site/board_entries.h"
#include "site/html.h"

namespace openrecipes::site {

using nlohmann::json;

namespace {

// Page `path` of `board`: template `template_name` rendered with `view` (and the page's root), inside the layout
// with its title, the tool's version and the build time.
std::string page(const json& board, const std::string& path, const std::string& title, const std::string& template_name,
                 json view) {
  const std::string root = root_of(path);
  view["root"] = root;
  std::string body = render_template(template_name, view);
  const json& site = board.contains("site") ? board["site"] : json::object();
  json layout = {{"title", title},
                 {"root", root},
                 {"body", body},
                 {"version", kToolVersion},
                 {"built_at", site.contains("built_at") ? site["built_at"] : json(false)}};
  return render_template("layout", layout);
}

}  // namespace

std::vector<PageJob> site_page_jobs(const json& board) {
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
      out.push_back({path, [&board, pair, entry, id, path] {
                       return page(board, path, id + " · OpenRecipes", "recipe", recipe_view(*pair, *entry));
                     }});
    }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

std::vector<SiteFileOut> site_pages(const json& board) {
  std::vector<SiteFileOut> out;
  for (const auto& job : site_page_jobs(board)) out.push_back({job.path, job.render()});
  return out;
}

}  // namespace openrecipes::site
