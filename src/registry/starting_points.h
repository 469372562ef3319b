// A model's starting points (issue 43): before its first recipe, the layout `plan` predicts fastest on the protocol's
// workload for each GPU type and GPU count a user would start from, with its predicted peak, step time, tokens/s/GPU,
// $/1M tokens and MFU, each with the step-time model's interval. Predictions, never ranked with measured recipes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "layout/planner.h"
#include "registry/gpus.h"
#include "registry/model.h"

namespace openrecipes::registry {

/// The GPU counts a model page plans (one node of 8 to 32 nodes).
inline constexpr std::array<std::int64_t, 6> kStartingGpuCounts = {8, 16, 32, 64, 128, 256};
/// The GPUs of a node the starting points assume: a whole instance of gpus.yaml (kInstanceGpus).
inline constexpr std::int64_t kStartingNodeGpus = kInstanceGpus;

/// One GPU type and count: the predicted fastest layout that fits, or why none fits.
struct StartingPoint {
  std::string gpu;                            ///< gpus.yaml key ("H100")
  std::int64_t gpus = 0;                      ///< G
  std::int64_t nodes = 0;                     ///< the nodes of kStartingNodeGpus the G GPUs take
  std::size_t layouts = 0, fitting = 0;       ///< valid layouts at G, and those that fit the GPU
  double usable_mib = 0;                      ///< the memory a layout may use on the GPU (layout::usable_memory_mib)
  std::optional<layout::PlannedLayout> best;  ///< the predicted fastest that fits (plan's first)
  std::optional<layout::PlannedLayout> smallest;  ///< the layout of the smallest predicted peak (when none fits)
  double tokens_per_s_per_gpu = 0, tokens_low = 0, tokens_high = 0;          ///< at the predicted step and its interval
  double dollars_per_million_tokens = 0, dollars_low = 0, dollars_high = 0;  ///< at the GPU type's rate
  double mfu = 0, mfu_low = 0, mfu_high = 0;  ///< 6·N·tokens/s/GPU / the dense BF16 peak
};

/// The starting points of `model` on every GPU type of `gpus` that has the step-time model's hardware figures, at each
/// of kStartingGpuCounts, on the protocol's workload (L 8,192, 128 rows a step), Transformer Engine, BF16, nodes of 8.
/// Sorted by GPU type key, then count. Throws InputError when the model file's config.json fields do not make a
/// shape the planner reads (layout::shape_from_config names the field).
std::vector<StartingPoint> starting_points(const ModelInfo& model, const std::map<std::string, GpuType>& gpus);

}  // namespace openrecipes::registry
