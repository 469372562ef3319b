// What a recipe records about its own checks against what the checks conclude (SPEC §4.3's record, §5): the
// configuration verdict, the convergence verdict and, when the check ran, its correlation, final loss difference and
// pointwise failures. A recipe never types a verdict the build does not reach.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks/config_check.h"
#include "checks/convergence.h"

namespace openrecipes::checks {

/// The checks' part of a recipe's claims.
struct CheckClaims {
  std::string configuration;  ///< "eligible" or "ineligible"
  std::string convergence;    ///< "pass" or "fail"
  std::optional<double> correlation, final_loss_rel_diff;
  std::optional<std::int64_t> pointwise_failures;
};

/// One sentence (stage "claims") per recorded value the checks contradict: a verdict other than the check's (a
/// reference recipe's convergence is "pass"), pointwise failures other than the count, a correlation off by more than
/// protocol::kCorrelationClaimTolerance, a final loss difference off by more than kFinalLossClaimTolerance. A check
/// that did not run (nullptr) is not compared.
std::vector<std::string> check_claim_problems(const CheckClaims& claims, const ConfigCheck* configuration,
                                              const ConvergenceResult* convergence, bool is_reference);

}  // namespace openrecipes::checks
