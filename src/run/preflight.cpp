// run's pre-flight: the checkout exists, holds the entry script, and is at the recipe's commit (run/preflight.h).
#include "run/preflight.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "checks/stack.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "registry/recipe.h"

namespace openrecipes::run {

std::vector<std::string> diff_paths(std::string_view diff) {
  std::vector<std::string> out;
  auto add = [&](std::string_view path) {
    path = trim(path);
    if (const auto tab = path.find('\t'); tab != std::string_view::npos) path = path.substr(0, tab);  // git's date
    if (path == "/dev/null" || path.size() < 3 || path[1] != '/') return;
    std::string p(path.substr(2));  // "a/x" or "b/x"
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
  };
  for (auto line : lines_of(diff)) {
    if (line.starts_with("--- ") || line.starts_with("+++ "))
      add(line.substr(4));
    else if (line.starts_with("rename to "))
      out.emplace_back(trim(line.substr(10)));
  }
  return out;
}

std::vector<std::string> check_checkout(const std::string& variable, const std::string& dir, const std::string& script,
                                        const std::optional<std::string>& pinned,
                                        const std::vector<std::string>& patched) {
  namespace fs = std::filesystem;
  const std::string where = fmt::format("--var {}={}", variable, quote_for_message(dir, 200));
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(where, "the checkout does not exist (or is not a folder)",
                     fmt::format("give the folder of a checkout of the recipe's framework: --var {}=PATH", variable));
  if (!script.empty() && !fs::is_regular_file(fs::path(dir) / script, ec))
    throw InputError(where, fmt::format("the checkout holds no {}, the recipe's entry script", script),
                     "give the checkout's top folder");
  std::vector<std::string> warnings;
  if (!pinned) return warnings;
  ProcessResult head;
  try {
    head = run_process({"git", "-C", dir, "rev-parse", "HEAD"});
  } catch (const InputError&) {
    throw InputError(where,
                     "git is not installed, so the checkout's commit cannot be checked against the recipe's " + *pinned,
                     "install git");
  }
  if (head.exit_code != 0)
    throw InputError(
        where, fmt::format("not a git checkout, so its commit cannot be checked against the recipe's {}", *pinned),
        fmt::format("give a git checkout at {}: git clone <repository> && git -C <folder> checkout {}", *pinned,
                    *pinned));
  const std::string commit(trim(head.out));
  if (!checks::commits_agree(commit, *pinned))
    throw InputError(where, fmt::format("the checkout is at {}, and the recipe pins {}", commit, *pinned),
                     fmt::format("check out the recipe's commit: git -C {} checkout {}", dir, *pinned));
  // What git shows beside the pinned commit, but the recipe's own diffs (already applied, or applied by this run): a
  // module git does not know is refused (Python imports what it finds in the checkout, so a torch.py a run once left
  // there would run in every later run of it); a change to a tracked file, or another file git does not know (a model
  // script of the user's own), is the user's, and said.
  const auto status = run_process({"git", "-C", dir, "status", "--porcelain", "--untracked-files=all"});
  std::vector<std::string> changed, untracked;
  if (status.exit_code == 0)
    for (auto line : lines_of(status.out)) {
      if (line.size() < 4) continue;
      std::string path(line.substr(3));
      if (const auto arrow = path.find(" -> "); arrow != std::string::npos) path = path.substr(arrow + 4);
      if (std::find(patched.begin(), patched.end(), path) != patched.end()) continue;
      const bool module =
          line.starts_with("??") && registry::has_import_suffix(std::filesystem::path(path).filename().string());
      (module ? untracked : changed).push_back(std::string(line));
    }
  if (!untracked.empty())
    throw InputError(
        where,
        fmt::format("the checkout holds {} git does not know ({}{}), which Python may import in "
                    "the run: the run would not be the commit the recipe pins",
                    counted(std::int64_t(untracked.size()), "module"),
                    terminal_safe(trim(untracked.front()).substr(3), true), untracked.size() > 1 ? ", ..." : ""),
        fmt::format("remove them (git -C {} clean -n lists them; a run's own patches are taken back when "
                    "it ends) or commit them",
                    dir));
  if (!changed.empty())
    warnings.push_back(
        fmt::format("{} has uncommitted changes to {} ({}{}): the run is not exactly the commit the recipe pins; "
                    "commit or stash them, or make them a patch of the recipe",
                    variable, counted(std::int64_t(changed.size()), "file"), terminal_safe(trim(changed.front()), true),
                    changed.size() > 1 ? ", ..." : ""));
  return warnings;
}

}  // namespace openrecipes::run
