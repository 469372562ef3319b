// run's pre-flight: the checkout exists, holds the entry script, and is at the recipe's commit (run/preflight.h).
#include "run/preflight.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "checks/stack.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "core/text.h"

namespace openrecipes::run {

std::vector<std::string> check_checkout(const std::string& variable, const std::string& dir, const std::string& script,
                                        const std::optional<std::string>& pinned) {
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
  const auto status = run_process({"git", "-C", dir, "status", "--porcelain", "--untracked-files=no"});
  if (status.exit_code == 0 && !trim(status.out).empty()) {
    const auto lines = split(trim(status.out), '\n');
    warnings.push_back(fmt::format(
        "{} has uncommitted changes to {} tracked file(s) ({}{}): the run is not exactly the commit the recipe pins; "
        "commit or stash them, or make them a patch of the recipe",
        variable, lines.size(), terminal_safe(trim(lines.front()), true), lines.size() > 1 ? ", ..." : ""));
  }
  return warnings;
}

}  // namespace openrecipes::run
