// The layout rules that need the model (docs/memory-model.md "The rules"): what Megatron-LM refuses at start-up for a
// given shape, beyond SPEC §6's arithmetic (layout.h). relayout, plan and build apply them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layout/layout.h"
#include "layout/memory.h"
#include "layout/model_shape.h"

namespace openrecipes::layout {

/// Every rule `t` breaks on `m`, in order: the heads split into whole query groups; TP divides the attention heads and
/// the query groups (and the FFN width); PP divides the layers, or the first/last-stage counts leave a whole number per
/// middle stage; VPP needs PP > 1 and divides each stage's layers; CP needs Transformer Engine's attention (not
/// --transformer-impl local) and a row length divisible by 2 × CP (Megatron's load-balanced split); EP and ETP only
/// with experts, EP dividing them and ETP the expert FFN width; sequence parallelism needs TP > 1, and MoE with TP > 1
/// needs it; the global batch divides by DP × micro-batch; full recompute's layer count fits a stage. Sizes below 1
/// throw InputError.
std::vector<Violation> model_violations(const ModelShape& m, const TrainingSetup& t);

/// What is allowed but slow: TP wider than a node (its all-reduces leave NVLink), EP × ETP wider than a node.
std::vector<std::string> model_warnings(const TrainingSetup& t, std::int64_t gpus_per_node);

}  // namespace openrecipes::layout
