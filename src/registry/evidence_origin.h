// Which of two recipes holding the same evidence came first (SPEC §5: a recipe's evidence is its own run's): in a git
// registry, the commit that first added an evidence file. Byte-identical evidence under two recipes is one run
// published twice; the recipe whose evidence was committed first keeps its rank.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace openrecipes::registry {

/// The oldest commit of the git work tree `root` is in that added `file` (a path inside root): its abbreviated id and
/// commit time (Unix seconds). nullopt when root is not in a git work tree, git cannot run, or no commit added
/// the file (it is not committed). Runs `git --literal-pathspecs -C root log --diff-filter=A --format=... -- <file>`
/// as an argument vector (no shell, no pathspec magic). Never throws.
struct FirstCommit {
  std::string commit;
  std::int64_t time = 0;
};
std::optional<FirstCommit> first_commit(const std::filesystem::path& root, const std::filesystem::path& file);

/// True when `root` is inside a git work tree (git rev-parse --is-inside-work-tree).
bool is_git_registry(const std::filesystem::path& root);

/// The recipes that hold evidence another recipe holds too, each with its reason. `groups` maps an evidence digest to
/// the recipes holding it, each as (recipe id, its evidence file); a group of one is no duplicate. In a git registry
/// (`git_root` given) the recipe whose file was committed first (first_commit of each, by time) keeps its rank and
/// the others get a reason naming it and its commit; when no single one is first (none committed, or the first ones
/// in the same second), every one gets a reason. Outside git (`git_root` nullopt) every one of a group gets a reason:
/// nothing tells which is the original. Reasons name the other recipes and files.
std::map<std::string, std::string> duplicate_evidence_reasons(
    const std::map<std::string, std::vector<std::pair<std::string, std::filesystem::path>>>& groups,
    const std::optional<std::filesystem::path>& git_root);

}  // namespace openrecipes::registry
