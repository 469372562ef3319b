// The recipe's patches applied to the framework checkout (SPEC §6 "Patches"): each diff's sha256 checked against the
// recipe's first, then `git apply` in the checkout; a patch already in the tree is left as it is, and what the run
// applied is taken back when it ends.
#pragma once

#include <string>
#include <vector>

#include "run/run_plan.h"

namespace openrecipes::run {

/// Applies every patch of `plan` to plan.framework_dir, in the recipe's order, and returns one line per patch
/// ("applied <path> (sha256 <hex>)" or "already applied ..."), as RUN_DIR/patches.txt records them. `dry_run`: checks
/// the sha256 and says what it would do (the git commands) without touching the checkout. Throws InputError naming
/// the patch for a sha256 that is no longer the recipe's, and for a patch git cannot apply (with git's message),
/// before the next patch is tried; patches applied before it stay applied (the message says which).
std::string apply_patches(const RunPlan& plan, bool dry_run, std::vector<std::string>* applied = nullptr);

/// Takes back the patches this run applied (`applied`, as apply_patches listed them: the recipe's diffs it applied
/// itself, not those already in the tree), last first, with `git apply --reverse`: the checkout is left as the run
/// found it, so a patch never reaches a later run of another recipe. Returns one line per patch ("reverted <path>",
/// or "could not revert <path>: <git's message>"). Never throws.
std::string revert_patches(const RunPlan& plan, const std::vector<std::string>& applied);

}  // namespace openrecipes::run
