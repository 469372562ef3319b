// Registry loader (DESIGN.md layout).
#include "registry/registry.h"

#include <fmt/format.h>

#include <tbb/parallel_for.h>

#include <algorithm>

#include "core/error.h"
#include "registry/folder_writer.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;

namespace {
// The real folders in `dir`, sorted; symbolic links to folders go to `links` (they are reported, never followed). A
// staging folder of registry::write_folder (".<name>.<purpose>.tmp", left by a writer that was killed) is no recipe.
std::vector<fs::path> subfolders(const fs::path& dir, std::vector<fs::path>& links) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (is_staging_name(e.path().filename().string())) continue;
    if (e.is_symlink()) {
      if (e.is_directory()) links.push_back(e.path());
    } else if (e.is_directory()) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A recipe entry for a folder link in the recipes tree: listed as unreadable with why.
RecipeEntry link_entry(const fs::path& recipes, const fs::path& link) {
  RecipeEntry e;
  e.dir = link;
  e.id = link.lexically_relative(recipes).generic_string();
  std::error_code ec;
  auto target = fs::read_symlink(link, ec);
  e.load_error = link.string() + ": the folder is a symbolic link (to '" + (ec ? std::string("?") : target.string()) +
                 "'); the registry does not follow links, so nothing in it is read";
  e.load_fix = "put the recipe's real folder at registry/recipes/<model>/<gpu>/<id>/";
  return e;
}
}  // namespace

Registry load_registry(const fs::path& root) {
  if (!fs::is_directory(root))
    throw InputError(root.string(), "not a registry folder",
                     "give the path of a folder holding gpus.yaml, models/, rules/ and recipes/");
  Registry reg;
  reg.root = root;
  reg.gpus = load_gpus(root / "gpus.yaml");
  reg.models = load_models(root / "models");
  reg.rules = checks::ArgumentRules::load(root / "rules" / "arguments.yaml");
  if (std::error_code ec; fs::exists(root / "rules" / "component_tests.yaml", ec))
    reg.component_rules = checks::ComponentRules::load(root / "rules" / "component_tests.yaml");
  reg.reference_rows = load_reference_rows_folder(root / "rows");
  for (const auto& [id, m] : reg.models)
    if (m.rows_build && !reg.reference_rows.count(*m.rows_build))
      throw InputError(
          m.file + ": rows_build",
          fmt::format("names rows build '{}', which {} does not hold", *m.rows_build, (root / "rows").string()),
          "register it with openrecipes rows register <rows.manifest.json>, or remove rows_build");
  fs::path recipes = root / "recipes";
  if (!fs::is_directory(recipes)) return reg;
  std::vector<fs::path> links;
  for (const auto& model : subfolders(recipes, links))
    for (const auto& gpu : subfolders(model, links))
      for (const auto& dir : subfolders(gpu, links)) {
        if (reg.recipes.size() >= 10000)
          throw InputError(recipes.string(), "more than 10,000 recipes", "split the registry");
        RecipeEntry e;
        e.dir = dir;
        e.id = model.filename().string() + "/" + gpu.filename().string() + "/" + dir.filename().string();
        reg.recipes.push_back(std::move(e));
      }
  // Each recipe folder is read on its own, so on every core (the result does not depend on the order).
  tbb::parallel_for(std::size_t{0}, reg.recipes.size(), [&](std::size_t i) {
    RecipeEntry& e = reg.recipes[i];
    try {
      e.recipe = load_recipe(e.dir);
    } catch (const InputError& err) {
      e.load_error = err.where().empty() ? err.problem() : err.where() + ": " + err.problem();
      e.load_fix = err.fix();
    }
  });
  for (const auto& link : links) {
    if (reg.recipes.size() >= 10000)
      throw InputError(recipes.string(), "more than 10,000 recipes", "split the registry");
    reg.recipes.push_back(link_entry(recipes, link));
  }
  std::sort(reg.recipes.begin(), reg.recipes.end(),
            [](const RecipeEntry& a, const RecipeEntry& b) { return a.id < b.id; });
  return reg;
}

}  // namespace openrecipes::registry
