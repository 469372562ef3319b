// JSON records of the configuration and convergence checks (SPEC §4).
#include "checks/check_json.h"

#include <cmath>

namespace openrecipes::checks {
namespace {
nlohmann::json text_or_null(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
nlohmann::json finite_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }
}  // namespace

nlohmann::json to_json(const ConfigCheck& check) {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : check.changes)
    changes.push_back({{"argument", c.name},
                       {"reference", text_or_null(c.reference_value)},
                       {"recipe", text_or_null(c.recipe_value)},
                       {"class", to_string(c.classification.cls)},
                       {"accepted", c.accepted},
                       {"note", c.note}});
  return {{"verdict", check.eligible ? "eligible" : "ineligible"}, {"changes", changes}, {"problems", check.problems}};
}

nlohmann::json to_json(const ConvergenceResult& r) {
  return {{"verdict", r.passed ? "pass" : "fail"},
          {"correlation", finite_or_null(r.correlation)},
          {"final_loss_rel_diff", finite_or_null(r.final_loss_rel_diff)},
          {"pointwise_failures", r.pointwise_failures},
          {"outliers", r.outliers},
          {"points", r.points},
          {"failed_tests", r.failed_tests},
          {"problems", r.problems}};
}

}  // namespace openrecipes::checks
