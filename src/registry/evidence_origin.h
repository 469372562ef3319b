// Which of the recipes holding the same run came first (SPEC §5: a recipe's evidence is its own run's): two recipes
// whose step logs (or a step log and a convergence arm) record the very same steps are one run published twice. In a
// git registry, the recipe whose file was added by a commit the others' commits descend from keeps its rank.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/step_record.h"

namespace openrecipes::registry {

/// A fingerprint of a run's step records (SPEC §2): the sha256 of every record's steps, step time, tokens, rows, loss,
/// learning rate and gradient norm, in order. Two logs of one run have the same one whatever else they hold (a line
/// appended, another banner); two runs never do. "" for a log without records.
std::string steps_fingerprint(const StepLog& log);

/// The commit of the git work tree `root` is in that first added `file` (a path inside root): of the commits that
/// added it, the one every other descends from (its full id). nullopt when root is not in a git work tree, git cannot
/// run, no commit added the file (it is not committed), or the commits that added it do not descend from one another.
/// Runs git as an argument vector (no shell; --literal-pathspecs: no pathspec magic). Never throws.
std::optional<std::string> first_commit(const std::filesystem::path& root, const std::filesystem::path& file);

/// True when commit `a` is an ancestor of commit `b` (or is it), in the git work tree `root`. Never throws.
bool is_ancestor(const std::filesystem::path& root, const std::string& a, const std::string& b);

/// True when `root` is inside a git work tree (git rev-parse --is-inside-work-tree).
bool is_git_registry(const std::filesystem::path& root);

/// One recipe's file holding a run.
struct RunHolder {
  std::string recipe;          ///< the recipe's id
  std::filesystem::path file;  ///< the file (absolute)
  std::string what;            ///< "step log" or "convergence arm"
};

/// The recipes that publish a run another recipe publishes too, each with its reason. `groups` maps a run's
/// fingerprint to the files holding it; the files of one recipe alone are no duplicate. In a git registry (`git_root`
/// given) the recipe whose file was added by a commit that every other holder's adding commit descends from (or whose
/// file is not committed at all) keeps its rank (a commit's date can be set to anything; its ancestry cannot), and the
/// others get a reason naming it and its commit; when no one is first (none committed, added together, or on branches
/// that do not descend from one another), or outside git (`git_root` nullopt), every one gets a reason.
std::map<std::string, std::string> duplicate_run_reasons(const std::map<std::string, std::vector<RunHolder>>& groups,
                                                         const std::optional<std::filesystem::path>& git_root);

}  // namespace openrecipes::registry
