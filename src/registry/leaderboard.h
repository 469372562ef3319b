// Pairs and ranking (SPEC §5): recipes rank only inside their pair (model, GPU type, workload), by
// tokens/s/GPU; a declared non-standard workload forms its own pair, marked wherever it is shown.
#pragma once

#include <string>
#include <vector>

#include "registry/evaluate.h"

namespace openrecipes::registry {

struct Pair {
  std::string model, model_name, gpu, workload_key, workload_description;
  bool standard_workload = false;
  std::vector<const RecipeResult*> ranked;  ///< verified (or, with include_unverified, all measured), best first
  /// One per `ranked` entry: its score interval overlaps that of the verified entry ranked directly above it
  /// (measure::intervals_overlap), so the two are within noise of each other; false for rank 1 and for an
  /// unverified entry of a preview (it has no rank).
  std::vector<bool> within_noise_of_above;
  std::vector<const RecipeResult*> unranked;  ///< not verified, by id
  bool unreadable = false;                    ///< not a pair: the recipes that could not be read (all in `unranked`)
};

/// Groups results into pairs sorted by (model, gpu, workload key). Verified recipes rank by tokens/s/GPU
/// (ties by id): the point score decides the order, and each ranked recipe is marked within noise of the one above it
/// when their 95% intervals overlap (Pair::within_noise_of_above). With `include_unverified`, recipes that measured but
/// are not verified are ranked too (the site marks them), for a submitter's preview. The pair's workload description
/// comes from its verified reference recipe, else from its first verified recipe by id (never from an unverified one;
/// empty when none is verified). Recipes that cannot be read come last, in one entry marked `unreadable`.
std::vector<Pair> build_pairs(const Registry& reg, const std::vector<RecipeResult>& results, bool include_unverified);

}  // namespace openrecipes::registry
