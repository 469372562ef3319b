// `run`'s pre-flight (SPEC §6 "Running a recipe"): before anything launches, and before sbatch above all, the
// checkout a run uses must exist, hold the recipe's entry script and be at the commit the recipe pins, so a run never
// starts what it cannot run and never completes on another framework than the one it will be submitted as.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::run {

/// Checks the checkout that `variable` (MEGATRON_LM, SLIME, MILES) names: `dir` is a folder; it holds `script`
/// (relative; "" for none); when `pinned` is given, `git -C dir rev-parse HEAD` is that commit (one a prefix of the
/// other, at least 7 hex digits), and, but for the files `patched` (the recipe's own diffs: diff_paths), it holds no
/// file git does not know and does not ignore. Returns the warnings: a tree with uncommitted changes to tracked files
/// (the first of them named). Throws InputError naming the variable, the folder and the fix for a missing folder or
/// script, a folder that is not a git checkout while a commit is pinned (or git is missing), another commit, and an
/// untracked file (Python may import it: a file a stranger's patch once left there would run in every later run).
std::vector<std::string> check_checkout(const std::string& variable, const std::string& dir, const std::string& script,
                                        const std::optional<std::string>& pinned,
                                        const std::vector<std::string>& patched = {});

/// The paths a unified diff touches, relative to the tree it applies to ("--- a/x", "+++ b/x", git's "rename to x"),
/// each once, /dev/null left out.
std::vector<std::string> diff_paths(std::string_view diff);

}  // namespace openrecipes::run
