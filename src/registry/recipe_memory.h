// A recipe's memory as the planner sees it (SPEC §7): the model shape and training setup its run used, and the peak
// its evidence measured. `plan --from`, `relayout`, tune's candidates (run/tune_candidates.h) and the build
// (registry/evaluate, registry/predicted_memory; the recipe page shows what the build found) read it.
#pragma once

#include <optional>

#include "evidence/megatron_args.h"
#include "evidence/megatron_memory.h"
#include "layout/memory.h"
#include "layout/model_shape.h"
#include "registry/recipe.h"

namespace openrecipes::registry {

struct RecipeMemory {
  layout::ModelShape shape;
  layout::TrainingSetup setup;
  std::optional<evidence::MemoryReport> measured;  ///< Megatron's memory lines in the evidence log, when there
  bool from_arguments = false;                     ///< shape and setup read from the run's argument dump
  std::string setup_from;  ///< "argument dump", "command", or "recorded layout (its command does not read: why)"
};

/// The shape and setup of `recipe`'s run: from its Megatron argument dump when the evidence has one (exact), else the
/// shape from its model's config.json fields (registry models/<model>.yaml under the recipe's registry) and the setup
/// from its command read as `plan --command` reads it (checks::read_training_command on the recipe's GPUs and the
/// model's vocabulary), or, where the command does not read, its recorded layout under Transformer Engine with
/// nothing recomputed; the row length and global batch are the workload's. slime and miles pack rows by
/// max_tokens_per_gpu: a micro-batch is then one bin of max_tokens_per_gpu × CP tokens. Throws InputError (naming the
/// file) when neither source gives a shape, and checks::NotModelledError for what the memory model does not cover
/// (FP8, MTP, offloading, FSDP, ...: refuse_not_modelled), in the dump or the command.
RecipeMemory recipe_memory(const Recipe& recipe);

/// The same from evidence already read: the run's argument dump `args` and the memory lines of its log (`measured`,
/// nullopt when it has none). Reads no file. Throws InputError when the dump lacks the model's shape, NotModelledError
/// as above.
RecipeMemory recipe_memory(const Recipe& recipe, const evidence::ArgumentDump& args,
                           std::optional<evidence::MemoryReport> measured);

}  // namespace openrecipes::registry
