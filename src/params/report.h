// Presents a ParamCount: the human table of `openrecipes params` and its --json form (deterministic key order), with
// the config-arithmetic cross-check when both counts exist (SPEC §3: N "shown with its breakdown so anyone can check").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "params/count.h"

namespace openrecipes::params {

/// The human report: the counted classes (tensors, parameters, in N), N, the excluded classes (tensors, stored values)
/// with their reasons, the stored parameter total, the quantization scales on a line of their own (checkpoint counts
/// holding any; scales are not parameters), the notes, and — when `config_check` is given — whether config.json's
/// arithmetic agrees, listing each difference. `where` names the checkpoint or config read.
std::string format_table(const ParamCount& count, const std::string& where, const ParamCount* config_check = nullptr);

/// Every tensor of a checkpoint count, one line each: class, parameters, name (in checkpoint order).
std::string format_tensor_list(const ParamCount& count);

/// The machine form. Keys, in order: source, where, model_type, N, counted_total, total_params (parameters only;
/// null for config counts), quantization_scales ({tensors, values}: scales, not parameters, not in total_params;
/// null for config counts), shards, tensors, top_k, num_experts, output_tied, classes (every class in a fixed order:
/// counted, tensors, params, active, reason, example), notes, and config_check (N, agrees,
/// differences[{what, checkpoint, config}]) when `config_check` is given.
nlohmann::ordered_json to_json(const ParamCount& count, const std::string& where,
                               const ParamCount* config_check = nullptr);

}  // namespace openrecipes::params
