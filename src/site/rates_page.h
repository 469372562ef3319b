// The rates page, rates.html (SPEC §3): gpus.yaml's rates and peaks with their sources, and the formulas, as the
// view templates/rates.mustache renders.
#pragma once

#include <nlohmann/json.hpp>

namespace openrecipes::site {

/// The view of `board`'s GPU types (leaderboard_json's "gpus"), in key order: instance and per-GPU rates in $, the
/// dense BF16 peak in TFLOPS, the price date, and each source linked where it is an https URL. Throws nlohmann::json
/// exceptions on JSON of another shape.
nlohmann::json rates_view(const nlohmann::json& board);

}  // namespace openrecipes::site
