// One run published twice, and which came first in git (registry/evidence_origin.h).
#include "registry/evidence_origin.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/error.h"
#include "core/sha256.h"
#include "core/subprocess.h"
#include "core/text.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;

std::string steps_fingerprint(const StepLog& log) {
  if (log.records.empty()) return "";
  auto num = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  std::string text;
  for (const auto& r : log.records)
    text += fmt::format("{} {} {} {} {} {} {} {}\n", r.first_step, r.steps, num(r.time_s), num(r.tokens), num(r.rows),
                        num(r.loss), num(r.learning_rate), num(r.grad_norm));
  return sha256_hex(text);
}

bool is_git_registry(const fs::path& root) {
  try {
    const auto r = run_process({"git", "-C", root.string(), "rev-parse", "--is-inside-work-tree"}, {"", {}, 1 << 16});
    return r.exit_code == 0 && r.out.starts_with("true");
  } catch (const InputError&) {
    return false;  // no git
  }
}

bool is_ancestor(const fs::path& root, const std::string& a, const std::string& b) {
  try {
    return run_process({"git", "-C", root.string(), "merge-base", "--is-ancestor", a, b}, {"", {}, 1 << 16})
               .exit_code == 0;
  } catch (const InputError&) {
    return false;
  }
}

std::optional<std::string> first_commit(const fs::path& root, const fs::path& file) {
  std::error_code ec;
  const fs::path rel = fs::relative(file, root, ec);
  if (ec || rel.empty() || *rel.begin() == "..") return std::nullopt;
  try {
    const auto r = run_process({"git", "--literal-pathspecs", "-C", root.string(), "log", "--diff-filter=A",
                                "--format=%H", "--", rel.string()},
                               {"", {}, 1 << 20});
    if (r.exit_code != 0) return std::nullopt;
    std::vector<std::string> added;
    for (auto line : lines_of(r.out))
      if (!trim(line).empty()) added.emplace_back(trim(line));
    for (const auto& c : added)
      if (std::all_of(added.begin(), added.end(),
                      [&](const std::string& o) { return o == c || is_ancestor(root, c, o); }))
        return c;
    return std::nullopt;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::map<std::string, std::string> duplicate_run_reasons(const std::map<std::string, std::vector<RunHolder>>& groups,
                                                         const std::optional<fs::path>& git_root) {
  std::map<std::string, std::string> out;
  for (const auto& [fingerprint, holders] : groups) {
    std::set<std::string> recipes;
    for (const auto& h : holders) recipes.insert(h.recipe);
    if (recipes.size() < 2) continue;
    // Each holder's adding commit; the first: the holder whose commit every other's descends from, alone.
    std::vector<std::optional<std::string>> commits;
    for (const auto& h : holders) commits.push_back(git_root ? first_commit(*git_root, h.file) : std::nullopt);
    std::optional<std::size_t> first;
    for (std::size_t k = 0; k < holders.size() && !first; ++k) {
      if (!commits[k]) continue;
      bool before_all = true;
      for (std::size_t j = 0; j < holders.size() && before_all; ++j)
        if (holders[j].recipe != holders[k].recipe)
          before_all = !commits[j] ||  // not committed: added after every commit
                       (*commits[j] != *commits[k] && is_ancestor(*git_root, *commits[k], *commits[j]));
      if (before_all) first = k;
    }
    for (std::size_t k = 0; k < holders.size(); ++k) {
      const auto& h = holders[k];
      if ((first && holders[*first].recipe == h.recipe) || out.count(h.recipe)) continue;
      std::vector<std::string> others;
      for (const auto& o : holders)
        if (o.recipe != h.recipe) others.push_back(fmt::format("the {} of '{}'", o.what, o.recipe));
      std::string list;
      for (std::size_t j = 0; j < others.size(); ++j) list += (j ? ", " : "") + others[j];
      const std::string same = fmt::format("its {} records the very steps (each step's time and loss) of ", h.what);
      if (first)
        out[h.recipe] = same + fmt::format(
                                   "the {} of '{}', which was committed first (commit {}, an ancestor of this "
                                   "recipe's)",
                                   holders[*first].what, holders[*first].recipe, commits[*first]->substr(0, 12));
      else if (git_root)
        out[h.recipe] = same + list + ", and the registry's git history does not show which was committed first";
      else
        out[h.recipe] = same + list + "; outside a git registry nothing shows which is the original, so neither ranks";
    }
  }
  return out;
}

}  // namespace openrecipes::registry
