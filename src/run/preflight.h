// `run`'s pre-flight (SPEC §6 "Running a recipe"): before anything launches, and before sbatch above all, the
// checkout a run uses must exist, hold the recipe's entry script and be at the commit the recipe pins, so a run never
// starts what it cannot run and never completes on another framework than the one it will be submitted as.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace openrecipes::run {

/// Checks the checkout that `variable` (MEGATRON_LM, SLIME, MILES) names: `dir` is a folder; it holds `script`
/// (relative; "" for none); when `pinned` is given, `git -C dir rev-parse HEAD` is that commit (one a prefix of the
/// other, at least 7 hex digits). Returns the warnings: a tree with uncommitted changes to tracked files (the first
/// of them named). Throws InputError naming the variable, the folder and the fix for a missing folder or script, a
/// folder that is not a git checkout while a commit is pinned (or git is missing), and another commit.
std::vector<std::string> check_checkout(const std::string& variable, const std::string& dir, const std::string& script,
                                        const std::optional<std::string>& pinned);

}  // namespace openrecipes::run
