// A recipe's shape, setup and measured peak for the planner.
#include "registry/recipe_memory.h"

#include "core/error.h"
#include "core/files.h"
#include "evidence/megatron_args.h"
#include "registry/model.h"

namespace openrecipes::registry {

RecipeMemory recipe_memory(const Recipe& recipe) {
  RecipeMemory out;
  if (recipe.arguments && recipe.arguments->format == "megatron-args") {
    const std::string text = read_file(recipe.arguments->path);
    const auto dump = evidence::parse_megatron_args(text, recipe.arguments->path.string());
    out.shape = layout::shape_from_arguments(dump.values, recipe.arguments->path.string());
    out.setup = layout::setup_from_arguments(dump.values, recipe.arguments->path.string());
    out.from_arguments = true;
  } else {
    const auto root = registry_root(recipe.dir);
    if (!root)
      throw InputError(recipe.file.string(),
                       "no argument dump in its evidence and no registry around it to read "
                       "the model's shape from",
                       "put the recipe in a registry whose models/ holds its model");
    const auto models = load_models(*root / "models");
    auto it = models.find(recipe.model);
    if (it == models.end() || it->second.config.empty())
      throw InputError(recipe.file.string(), "model " + recipe.model + " has no config.json fields in models/",
                       "add the model's config: block (docs/models-format.md)");
    out.shape = layout::shape_from_config(it->second.config, it->second.file);
    out.setup.layout = recipe.layout;
    out.setup.row_length = recipe.workload.row_length;
    out.setup.global_batch = recipe.workload.global_batch;
    out.setup.impl =
        recipe.command.find("--transformer-impl local") != std::string::npos ? layout::Impl::local : layout::Impl::te;
  }
  if (recipe.layout.max_tokens_per_gpu) {  // slime / miles: one packed bin a micro-batch
    out.setup.layout.micro_batch = 1;
    out.setup.row_length = *recipe.layout.max_tokens_per_gpu * recipe.layout.cp;
  }
  if (recipe.log.format == "megatron")
    out.measured = evidence::parse_megatron_memory(read_file(recipe.log.path), recipe.log.path.string());
  return out;
}

}  // namespace openrecipes::registry
