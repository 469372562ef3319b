// Patches: sha256 first, then git apply in the framework checkout (run/patches.h).
#include "run/patches.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/subprocess.h"
#include "registry/recipe.h"

namespace openrecipes::run {

std::string apply_patches(const RunPlan& p, bool dry_run, std::vector<std::string>* applied_out) {
  std::string out;
  std::vector<std::string> applied;
  for (const auto& patch : p.patches) {
    const registry::Patch recorded{patch.path, patch.path, patch.sha256};
    // A module of patches/ goes on PYTHONPATH: there is nothing to apply.
    if (!registry::is_patch_diff(recorded)) continue;
    // The patch rule's one home (registry/recipe.h): checked again just before git applies it.
    if (auto problem = registry::patch_problem(recorded))
      throw InputError("patches", *problem,
                       "the patch was changed after the recipe was written: restore it, or record its new sha256");
    const std::string& got = patch.sha256;
    if (dry_run) {
      out += fmt::format("would run: git -C {} apply {}   (sha256 {} checked)\n", p.framework_dir, patch.path, got);
      continue;
    }
    const auto check = run_process({"git", "-C", p.framework_dir, "apply", "--check", patch.path});
    if (check.exit_code != 0) {
      const auto reverse = run_process({"git", "-C", p.framework_dir, "apply", "--reverse", "--check", patch.path});
      if (reverse.exit_code == 0) {
        out += fmt::format("already applied {} (sha256 {})\n", patch.path, got);
        continue;
      }
      throw InputError(
          patch.path,
          fmt::format("git cannot apply it to {}: {}{}", p.framework_dir, check.err.substr(0, 2000),
                      applied.empty() ? "" : fmt::format(" (applied before it: {})", fmt::join(applied, ", "))),
          "check out the framework commit the recipe names (stack.framework.commit)");
    }
    const auto apply = run_process({"git", "-C", p.framework_dir, "apply", patch.path});
    if (apply.exit_code != 0)
      throw InputError(patch.path, "git apply failed: " + apply.err.substr(0, 2000),
                       "check out the framework commit the recipe names");
    applied.push_back(patch.path);
    if (applied_out) applied_out->push_back(patch.path);
    out += fmt::format("applied {} (sha256 {})\n", patch.path, got);
  }
  return out;
}

std::string revert_patches(const RunPlan& p, const std::vector<std::string>& applied) {
  std::string out;
  for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
    try {
      const auto r = run_process({"git", "-C", p.framework_dir, "apply", "--reverse", *it});
      out += r.exit_code == 0 ? fmt::format("reverted {}\n", *it)
                              : fmt::format("could not revert {}: {}\n", *it, r.err.substr(0, 2000));
    } catch (const InputError& e) {
      out += fmt::format("could not revert {}: {}\n", *it, e.what());
    }
  }
  return out;
}

}  // namespace openrecipes::run
