// Evidence held by two recipes, and which came first in git (registry/evidence_origin.h).
#include "registry/evidence_origin.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "core/subprocess.h"
#include "core/text.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;

bool is_git_registry(const fs::path& root) {
  try {
    const auto r = run_process({"git", "-C", root.string(), "rev-parse", "--is-inside-work-tree"}, {"", {}, 1 << 16});
    return r.exit_code == 0 && r.out.starts_with("true");
  } catch (const InputError&) {
    return false;  // no git
  }
}

std::optional<FirstCommit> first_commit(const fs::path& root, const fs::path& file) {
  std::error_code ec;
  const fs::path rel = fs::relative(file, root, ec);
  if (ec || rel.empty() || *rel.begin() == "..") return std::nullopt;
  try {
    const auto r = run_process({"git", "--literal-pathspecs", "-C", root.string(), "log", "--diff-filter=A",
                                "--format=%h %ct", "--", rel.string()},
                               {"", {}, 1 << 20});
    if (r.exit_code != 0) return std::nullopt;
    // Newest first: the oldest addition is the last line.
    std::optional<FirstCommit> out;
    std::size_t b = 0;
    while (b < r.out.size()) {
      const std::size_t e = std::min(r.out.find('\n', b), r.out.size());
      const std::string line = r.out.substr(b, e - b);
      b = e + 1;
      const auto space = line.find(' ');
      if (space == std::string::npos) continue;
      if (auto t = parse_int(line.substr(space + 1))) out = FirstCommit{line.substr(0, space), *t};
    }
    return out;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::map<std::string, std::string> duplicate_evidence_reasons(
    const std::map<std::string, std::vector<std::pair<std::string, fs::path>>>& groups,
    const std::optional<fs::path>& git_root) {
  std::map<std::string, std::string> out;
  for (const auto& [digest, holders] : groups) {
    if (holders.size() < 2) continue;
    std::vector<std::optional<FirstCommit>> commits;
    for (const auto& h : holders) commits.push_back(git_root ? first_commit(*git_root, h.second) : std::nullopt);
    // The first: the one committed earliest, when exactly one is.
    std::int64_t earliest = INT64_MAX;
    for (const auto& c : commits)
      if (c) earliest = std::min(earliest, c->time);
    // A plain index (holders.size() for none): GCC's -Wmaybe-uninitialized misreads an optional here at -O2.
    std::size_t first = holders.size(), at_earliest = 0;
    for (std::size_t k = 0; k < holders.size(); ++k)
      if (commits[k] && commits[k]->time == earliest) first = k, ++at_earliest;
    if (at_earliest != 1) first = holders.size();
    for (std::size_t k = 0; k < holders.size(); ++k) {
      if (k == first) continue;
      std::vector<std::string> others;
      for (std::size_t j = 0; j < holders.size(); ++j)
        if (j != k) others.push_back(fmt::format("'{}'", holders[j].first));
      std::string list;
      for (std::size_t j = 0; j < others.size(); ++j) list += (j ? ", " : "") + others[j];
      std::string why;
      if (first < holders.size())
        why = fmt::format(
            "its step log is byte-identical to that of '{}', whose evidence was committed first (commit "
            "{})",
            holders[first].first, commits[first]->commit);
      else if (git_root)
        why = fmt::format(
            "its step log is byte-identical to that of {}, and the registry's git history does not show "
            "which was committed first",
            list);
      else
        why = fmt::format(
            "its step log is byte-identical to that of {}; outside a git registry nothing shows which "
            "is the original, so neither ranks",
            list);
      out[holders[k].first] = why;
    }
  }
  return out;
}

}  // namespace openrecipes::registry
