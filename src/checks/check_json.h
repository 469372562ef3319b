// The two checks' records as JSON, one shape everywhere they are shown (`check --json`, `build --json`).
#pragma once

#include <nlohmann/json.hpp>

#include "checks/config_check.h"
#include "checks/convergence.h"

namespace openrecipes::checks {

/// {"verdict": "eligible"|"ineligible", "changes": [{argument, reference, recipe, class, accepted, note}],
///  "problems": [...]}; absent values are null.
nlohmann::json to_json(const ConfigCheck& check);

/// {"verdict": "pass"|"fail", "correlation", "final_loss_rel_diff" (null when not finite), "pointwise_failures",
///  "outliers", "points", "failed_tests", "problems"} (SPEC §4.3's record).
nlohmann::json to_json(const ConvergenceResult& result);

}  // namespace openrecipes::checks
