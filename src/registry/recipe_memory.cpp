// A recipe's shape, setup and measured peak for the planner.
#include "registry/recipe_memory.h"

#include "checks/megatron_arguments.h"
#include "core/error.h"
#include "core/files.h"
#include "evidence/megatron_args.h"
#include "registry/model.h"

namespace openrecipes::registry {

namespace {

// slime / miles: one packed bin of max_tokens_per_gpu × CP tokens a micro-batch.
void apply_packing(const Recipe& recipe, RecipeMemory& out) {
  if (recipe.layout.max_tokens_per_gpu)
    layout::pack_micro_batches(out.setup, *recipe.layout.max_tokens_per_gpu, recipe.layout.cp);
}

}  // namespace

RecipeMemory recipe_memory(const Recipe& recipe, const evidence::ArgumentDump& args,
                           std::optional<evidence::MemoryReport> measured) {
  checks::refuse_not_modelled(args.values, args.file);
  RecipeMemory out;
  out.shape = layout::shape_from_arguments(args.values, args.file);
  out.setup = layout::setup_from_arguments(args.values, args.file);
  out.from_arguments = true;
  out.setup_from = "argument dump";
  apply_packing(recipe, out);
  out.measured = std::move(measured);
  return out;
}

RecipeMemory recipe_memory(const Recipe& recipe) {
  std::optional<evidence::MemoryReport> measured;
  std::string log;  // the log usually holds the argument dump too: read it once
  if (recipe.log.format == "megatron") {
    log = read_file(recipe.log.path);
    measured = evidence::parse_megatron_memory(log, recipe.log.path.string());
  }
  if (recipe.arguments && recipe.arguments->format == "megatron-args") {
    const std::string text =
        recipe.arguments->path == recipe.log.path && !log.empty() ? log : read_file(recipe.arguments->path);
    const auto dump = evidence::parse_megatron_args(text, recipe.arguments->path.string());
    return recipe_memory(recipe, dump, std::move(measured));
  }
  RecipeMemory out;
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
  // The command through plan --command's reader, with the model's vocabulary: its setup, where it reads. What the
  // memory model does not cover is refused by name; a command it cannot read (a model-arguments array, a variable
  // where a size goes) leaves the recorded layout under Transformer Engine, the planner's default.
  std::optional<checks::TrainingCommand> cmd;
  try {
    cmd = checks::read_training_command(recipe.command, recipe.file.string(), recipe.gpus, out.shape.vocab);
  } catch (const checks::NotModelledError&) {
    throw;
  } catch (const InputError& e) {
    out.setup = {};
    out.setup.layout = recipe.layout;
    out.setup.impl = layout::Impl::te;
    out.setup_from = "recorded layout (its command does not read: " + e.problem() + ")";
  }
  if (cmd) {  // a command that reads: a variable where the model reads a word is refused, as plan --command does
    checks::refuse_variable_words(cmd->arguments, recipe.file.string());
    out.setup = layout::setup_from_arguments(cmd->arguments, recipe.file.string());
    out.setup_from = "command";
  }
  out.setup.row_length = recipe.workload.row_length;  // the workload's, as the command may spell it otherwise
  out.setup.global_batch = recipe.workload.global_batch;
  apply_packing(recipe, out);
  out.measured = std::move(measured);
  return out;
}

}  // namespace openrecipes::registry
