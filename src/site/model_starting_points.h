// The starting points of every model on the site (issue 43): registry/starting_points.h's predictions, as the board
// JSON carries them to the model pages and the index. Predictions, kept apart from the ranked, measured recipes.
#pragma once

#include <nlohmann/json.hpp>

#include "registry/registry.h"

namespace openrecipes::site {

/// Adds "starting_points" to each model of `board` (leaderboard_json's shape), one entry per GPU type and count in
/// registry::starting_points' order: {gpu, gpus, nodes, layouts, fitting, usable_mib, fits} and, when a layout fits,
/// {layout (layout::layout_to_json's form with recompute, distributed_optimizer and sequence_parallel added),
/// peak_memory_mib, step_time_s, step_time_interval_s, tokens_per_s_per_gpu, tokens_interval,
/// dollars_per_million_tokens, dollars_interval, mfu, mfu_interval, megatron_args (the layout as Megatron-LM's flags),
/// tune_command (the `openrecipes tune` command that would measure it from a recipe written with those flags)}, else
/// {smallest_peak_mib, smallest_layout}; a model file without config.json fields gets none, and one whose fields the
/// planner cannot read, or whose N its fields do not give, none and "starting_points_error" (the message: the model
/// file as models/<id>.yaml, the field and the fix).
/// Models are planned in parallel. Throws nothing of its own.
void add_starting_points(nlohmann::json& board, const registry::Registry& reg);

}  // namespace openrecipes::site
