// How to reproduce a recipe (README "Find → reproduce → submit"; PROTOCOL.md "Running a recipe"): the variables its
// command uses with what each must point at, the data-prep commands that make its rows, and the `openrecipes run` line.
// One home for both `openrecipes run --list-vars` and the site's Reproduce box, so the two never disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "registry/model.h"
#include "registry/recipe.h"

namespace openrecipes::registry {

/// One variable a recipe's command uses (or the launcher reads for it).
struct CommandVariable {
  std::string name;            ///< "SFT_DATA", "MEGATRON_LM", "MODEL_ARGS", "<slime entry module>"
  std::string shown;           ///< as the command writes it: "$SFT_DATA", "${MODEL_ARGS[@]}", "<slime entry module>"
  std::string points_at;       ///< what its value must be, in a sentence (e.g. the export prefix Megatron reads)
  std::string example;         ///< the value the Reproduce commands give it ("rows/megatron"); empty when run fills it
  bool needs_value = true;     ///< run refuses to start without --var NAME=VALUE
  bool launcher_only = false;  ///< the command does not use it; the launcher reads it (checkout probe, interpreter)
};

/// A word of the data-prep commands the user replaces (SOURCE_FILES, TOKENIZER_DIR): the recipe cannot fill it.
struct Placeholder {
  std::string name;       ///< as the commands write it
  std::string points_at;  ///< what to put there and where the recipe says it
};

/// What it takes to reproduce `recipe`: every field derived from the recipe (and its model, for the checkpoint).
struct Reproduction {
  std::vector<CommandVariable> variables;  ///< the command's, in order of first use, then the launcher's it reads
  std::vector<std::string> prepare;  ///< the data-prep command lines, display-quoted (never run by a shell); none when
                                     ///< the command reads no $SFT_DATA
  std::vector<Placeholder> placeholders;  ///< the words of `prepare` to replace (a non-standard workload's inputs)
  std::string run_line;                   ///< `openrecipes run <folder> --launcher … --var …=… -o runs/<name>`
  std::string recipe_folder;              ///< registry/recipes/<model>/<gpu>/<name>, or the folder given
  std::string rows_sha256;                ///< the rows the run trained on (full hex); empty when not recorded
  std::int64_t rows_count = 0;
  bool standard_workload = false;
};

/// The reproduction of `recipe`, whose model is `model` (nullptr when the registry lacks it). The run line names the
/// recipe by `folder` (the folder as the user gave it, for `run --list-vars`) or, when empty, by its folder in a clone
/// of the registry (registry/recipes/<id>, for the site). The launcher is local when the recipe's GPUs fit one node
/// (stack.gpus_per_node), else slurm with --nodes; every word of the lines is display-quoted (core/utf8.h
/// display_word), so a hostile field is shown, never interpreted. Never throws.
Reproduction reproduction(const Recipe& recipe, const ModelInfo* model, const std::string& folder = "");

}  // namespace openrecipes::registry
