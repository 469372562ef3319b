// Registry loader (DESIGN.md layout).
#include "registry/registry.h"

#include <algorithm>

#include "core/error.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;

namespace {
std::vector<fs::path> subfolders(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && !e.is_symlink()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

Registry load_registry(const fs::path& root) {
  if (!fs::is_directory(root))
    throw InputError(root.string(), "not a registry folder", "give the path of a folder holding gpus.yaml, models/, rules/ and recipes/");
  Registry reg;
  reg.root = root;
  reg.gpus = load_gpus(root / "gpus.yaml");
  reg.models = load_models(root / "models");
  reg.rules = checks::ArgumentRules::load(root / "rules" / "arguments.yaml");
  fs::path recipes = root / "recipes";
  if (!fs::is_directory(recipes)) return reg;
  for (const auto& model : subfolders(recipes))
    for (const auto& gpu : subfolders(model))
      for (const auto& dir : subfolders(gpu)) {
        if (reg.recipes.size() >= 10000)
          throw InputError(recipes.string(), "more than 10,000 recipes", "split the registry");
        RecipeEntry e;
        e.dir = dir;
        e.id = model.filename().string() + "/" + gpu.filename().string() + "/" + dir.filename().string();
        try {
          e.recipe = load_recipe(dir);
        } catch (const InputError& err) {
          e.load_error = err.what();
        }
        reg.recipes.push_back(std::move(e));
      }
  std::sort(reg.recipes.begin(), reg.recipes.end(), [](const RecipeEntry& a, const RecipeEntry& b) { return a.id < b.id; });
  return reg;
}

}  // namespace openrecipes::registry
