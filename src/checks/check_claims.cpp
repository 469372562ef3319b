// A recipe's recorded check verdicts against the checks' own (SPEC §4.3, §5).
#include "checks/check_claims.h"

#include <fmt/format.h>

#include <cmath>

#include "core/protocol.h"

namespace openrecipes::checks {

std::vector<std::string> check_claim_problems(const CheckClaims& claims, const ConfigCheck* configuration,
                                              const ConvergenceResult* convergence, bool is_reference) {
  std::vector<std::string> out;
  auto pct = [](double x) { return fmt::format("{:.2f}%", 100 * x); };
  if (configuration) {
    const std::string got = configuration->eligible ? "eligible" : "ineligible";
    if (got != claims.configuration)
      out.push_back("the recipe records the configuration check as " + claims.configuration + ", but it is " + got);
  }
  const std::string conv = is_reference ? "pass" : convergence ? (convergence->passed ? "pass" : "fail") : "";
  if (!conv.empty() && conv != claims.convergence)
    out.push_back("the recipe records the convergence check as " + claims.convergence + ", but it is " + conv);
  if (!convergence) return out;
  const auto& cv = *convergence;
  if (claims.pointwise_failures && *claims.pointwise_failures != cv.pointwise_failures)
    out.push_back(fmt::format("the recipe records {} pointwise failures, the check finds {}",
                              *claims.pointwise_failures, cv.pointwise_failures));
  if (claims.correlation && std::isfinite(cv.correlation) &&
      std::fabs(*claims.correlation - cv.correlation) > protocol::kCorrelationClaimTolerance)
    out.push_back(fmt::format("the recipe records correlation {:.4f}, the check finds {:.4f}", *claims.correlation,
                              cv.correlation));
  if (claims.final_loss_rel_diff && std::isfinite(cv.final_loss_rel_diff) &&
      std::fabs(*claims.final_loss_rel_diff - cv.final_loss_rel_diff) > protocol::kFinalLossClaimTolerance)
    out.push_back(fmt::format("the recipe records a final loss difference of {}, the check finds {}",
                              pct(*claims.final_loss_rel_diff), pct(cv.final_loss_rel_diff)));
  return out;
}

}  // namespace openrecipes::checks
