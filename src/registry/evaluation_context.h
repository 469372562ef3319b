// What the stages of one recipe's evaluation share (registry/evaluate.cpp, the flow, and
// registry/reference_checks.cpp, SPEC §4): the registry read once, and how a stage records a reason. Internal to
// registry/.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/reason.h"
#include "registry/evaluate.h"
#include "registry/model_params.h"
#include "registry/recipe_evidence.h"
#include "registry/references.h"
#include "registry/registry.h"

namespace openrecipes::registry {

/// What every stage reads: the registry, its recipes by id, each recipe's evidence (read once), each model's N
/// (recounted once) and each pair's reference recipe (references.h).
struct EvaluationContext {
  const Registry& reg;
  const RecipesById& by_id;
  const std::map<std::string, RecipeEvidence>& loaded;
  const std::map<std::string, ModelCount>& counts;
  const std::map<std::string, std::string>& pair_reference;
};

/// Records one reason of `stage` (`rule`: its stable name, e.g. "convergence.failed") on `out`.
inline void add_reason(RecipeResult& out, Stage stage, const char* rule, std::string message, std::string fix = "") {
  out.reasons.push_back({stage, rule, std::move(message), std::move(fix)});
}

/// SPEC §4: both checks against the recipe's reference (configuration diff with its component tests, the 20-step
/// convergence check), the reference's model, workload and rows, and the checks' verdicts as reasons. A reference
/// recipe passes both trivially, but the objective conventions still apply to it.
void run_reference_checks(const EvaluationContext& c, const Recipe& r, const RecipeEvidence& ev, RecipeResult& out);

}  // namespace openrecipes::registry
