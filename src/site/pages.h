// The site's pages (SPEC §5; docs/site.md), each a function of the leaderboard JSON (leaderboard_json's shape, schema
// openrecipes-leaderboard/2) so every number shown is the one `build --json` computed:
//   index.html                               every model × GPU type × workload with its best verified recipe
//   models/<model>.html                      notes, N, per pair the ranked table, the GPU-type comparison
//   recipes/<model>/<gpu>/<name>.html        everything about one recipe, with its charts
//   rates.html                               gpus.yaml's rates and peaks with their sources, and the formulas
// Numbers are written by site/format.h and carry their exact JSON value in data-value (the browser test and the
// sorting script read it). Views are JSON; templates/*.mustache render them (site/html.h). This file lists the pages;
// each page's view has its own file (site/index_page.h, model_page.h, recipe_page.h, rates_page.h), their shared
// parts are site/page_parts.h and the site's paths site/site_paths.h.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "site/index_page.h"
#include "site/model_page.h"
#include "site/rates_page.h"
#include "site/recipe_page.h"
#include "site/site_paths.h"

namespace openrecipes::site {

/// One file of the site: its path relative to the site's root ('/'-separated) and its bytes.
struct SiteFileOut {
  std::string path;
  std::string bytes;
};

/// One page to write: its path and how to render it. Jobs refer to `board`, which must outlive them; rendering is
/// thread-safe, so the writer renders them in parallel without holding every page in memory.
struct PageJob {
  std::string path;
  std::function<std::string()> render;
};

/// The text of a recipe's recipe.yaml by its id, which its page shows in the Reproduce box; nullopt when it cannot be
/// read (the box then names the recipe's folder only). Called from several threads at once.
using RecipeText = std::function<std::optional<std::string>(const std::string& id)>;

/// Every HTML page of `board`, sorted by path. A model with no pair still gets its page (it says it has no
/// verified recipe); every recipe of a pair (pair_entries) gets a recipe page, with its recipe.yaml from
/// `recipe_text` when given. Throws nlohmann::json exceptions on JSON of another shape (when a job renders).
std::vector<PageJob> site_page_jobs(const nlohmann::json& board, const RecipeText& recipe_text = {});

/// site_page_jobs rendered, in order (for tests and small boards).
std::vector<SiteFileOut> site_pages(const nlohmann::json& board, const RecipeText& recipe_text = {});

}  // namespace openrecipes::site
