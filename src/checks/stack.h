// The stack check (SPEC §6 "Stack"): each component a recipe says it ran is "pinned" when the run's evidence shows
// that version, "not pinned" when the evidence does not show the component, and a mismatch when it shows another.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "evidence/versions.h"

namespace openrecipes::checks {

/// One stack entry: a component and the version the recipe says it ran.
struct StackEntry {
  std::string component;  ///< "pytorch", "cuda", "nccl", "transformer_engine", "megatron_lm", "framework", ...
  std::string version;
};

/// A stack component as shown: what the recipe says and whether the evidence shows it.
struct StackStatus {
  std::string component;
  std::string version;
  std::string status;  ///< "pinned" (evidence shows it), "not pinned" (evidence does not show it), "mismatch"
};

/// The statuses, in the recipe's order, and a sentence per entry the evidence contradicts (starting "stack: ").
struct StackCheck {
  std::vector<StackStatus> stack;
  std::vector<std::string> problems;
};

/// Checks `entries` against the run's versions dump (`dump`, nullptr when the recipe has none or it could not be
/// read) and its resolved Megatron arguments (`args`, nullptr when none). A component matches the dump under any
/// of its spellings (pytorch: torch; nccl: nvidia_nccl_cu12/13; megatron_lm: megatron_lm_commit,
/// megatron_core_commit; transformer_engine: transformer_engine_torch). `transformer_engine: none` is pinned when
/// the arguments show `--transformer-impl local` and a problem otherwise.
StackCheck check_stack(const std::vector<StackEntry>& entries, const evidence::VersionDump* dump,
                       const std::map<std::string, std::string>* args);

}  // namespace openrecipes::checks
