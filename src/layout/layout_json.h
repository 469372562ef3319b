// A parallel layout as JSON: the one form every output of a layout writes (plan.json, plan --json, relayout --json,
// the site's recipes.json and leaderboard.json), and its reader. tune.json keeps its own record schema
// (evidence/tune_search.h: evidence/ comes before layout/ and cannot include it).
#pragma once

#include <nlohmann/json.hpp>

#include "layout/layout.h"
#include "layout/memory.h"

namespace openrecipes::layout {

/// `l` as {"tp", "pp", "cp", "ep", "etp", "vpp", "dp", "micro_batch", "max_tokens_per_gpu"} (in that order where the
/// output keeps order; the site's JSON sorts keys): whole numbers, vpp and max_tokens_per_gpu null when unset
/// (docs/memory-model.md "JSON").
nlohmann::ordered_json layout_to_json(const Layout& l);

/// `t`'s layout (layout_to_json) and then the knobs of its setup a plan chooses: "recompute" (recompute_name),
/// "distributed_optimizer", "sequence_parallel", "impl" ("local" or "te"), "first_stage_layers" and
/// "last_stage_layers" (null when unset), "embedding_in_split" and "loss_in_split" (the pipeline split's counted
/// layers). What plan --json and the starting points of leaderboard.json write for a layout.
nlohmann::ordered_json setup_to_json(const TrainingSetup& t);

/// Reads layout_to_json's form. Throws nlohmann::json's exceptions for a missing key or a value of another type (the
/// callers read files openrecipes wrote, and name the file in their own error).
Layout layout_from_json(const nlohmann::json& j);

}  // namespace openrecipes::layout
