// The reference graph of a registry (docs/recipe-format.md "The pair's one reference recipe", SPEC §4, §5): the one
// reference recipe of each pair (model, GPU type, workload), which reference a recipe is checked against (chains and
// cycles), and the rule that a recipe is verified only when its reference is, transitively to the pair's root.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "registry/evaluate.h"
#include "registry/registry.h"

namespace openrecipes::registry {

/// Recipes by id (pointers into a Registry's recipes).
using RecipesById = std::map<std::string, const RecipeEntry*>;

/// The key of a recipe's pair: model, GPU type and workload key.
std::string pair_key(const Recipe& r);

/// The one reference recipe of each pair, keyed by pair_key: of the pair's recipes with `reference: null`, the one
/// the most recipes are tuned from (following reference chains to their root; a broken or cyclic chain counts for
/// none), then the earliest date, then the smallest id.
std::map<std::string, std::string> choose_pair_references(const Registry& reg, const RecipesById& by_id);

/// What a recipe is checked against: the reference recipe it names (`reference`), or, for a recipe with
/// `reference: null`, whether it is its pair's chosen reference (`is_reference`). `problem` is the reason
/// (stage "reference") when neither holds: a cycle of references (named in order, "a → b → a"), a reference
/// that does not exist or cannot be read, or a second `reference: null` in a pair that has its reference.
struct ReferenceResolution {
  const Recipe* reference = nullptr;
  bool is_reference = false;
  std::optional<Reason> problem;
};

/// Resolves `r`'s reference in `by_id`; `pair_reference` is choose_pair_references' result.
ReferenceResolution resolve_reference(const Recipe& r, const RecipesById& by_id,
                                      const std::map<std::string, std::string>& pair_reference);

/// A recipe is verified only if its reference is, transitively to the pair's root (SPEC §4): each recipe whose
/// reference is not verified gets a reason naming it and the first reason of the recipe where the chain breaks
/// ("reference: 'X' is not verified (it is tuned from 'Y', which is not verified: …)"); then every `verified` is
/// set from the reasons. Cycles were given their reason by resolve_reference, and a cycle's members take none from
/// each other, so the reasons do not depend on the order of `results`.
void require_verified_references(std::vector<RecipeResult>& results);

}  // namespace openrecipes::registry
