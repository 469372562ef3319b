// The stack check (SPEC §6 "Stack"): each component a recipe says it ran is "pinned" when the run's evidence shows
// that version, "not pinned" when the evidence does not show the component, and a mismatch when it shows another.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/reason.h"
#include "evidence/versions.h"

namespace openrecipes::checks {

/// One stack entry: a component and the version the recipe says it ran.
struct StackEntry {
  std::string component;  ///< "pytorch", "cuda", "nccl", "transformer_engine", "megatron_lm", "<framework>_commit"
  std::string version;
  bool operator==(const StackEntry&) const = default;
};

/// A stack component as shown: what the recipe says and whether the evidence shows it.
struct StackStatus {
  std::string component;
  std::string version;
  std::string status;  ///< "pinned" (evidence shows it), "not pinned" (evidence does not show it), "mismatch"
};

/// The statuses, in the recipe's order, and a reason (stage "stack") per entry the evidence contradicts.
struct StackCheck {
  std::vector<StackStatus> stack;
  Reasons problems;
};

/// Two commits agree when the shorter (at least 7 hex digits) starts the longer: "d98e8a6" and
/// "d98e8a64ddf34856e74b24714e3bedb2f5a39553" do. The one rule for a commit a recipe pins against one a run shows
/// (the stack check, run's pre-flight, submit).
bool commits_agree(const std::string& a, const std::string& b);

/// Checks `entries` against what the run's evidence shows (`dump`: the versions dump merged with the log's
/// banners; nullptr when there is none) and its resolved Megatron arguments (`args`, nullptr when none).
/// A component matches the dump under any of its spellings (pytorch: torch, Megatron's "PyTorch version" banner;
/// nccl: nvidia_nccl_cu12/13; transformer_engine: transformer_engine_torch and the banner). Commits (megatron_lm and
/// <framework>_commit) agree when one is a prefix of the other (7 to 40 hex digits); Megatron-LM's commit is also
/// read from the Megatron-Core banner's local version ("0.20.0+d98e8a6"). A Transformer Engine version 0.0.0 (what
/// Megatron's banner prints without TE) is "none". `transformer_engine: none` is pinned when the arguments show
/// `--transformer-impl local`, and a problem otherwise.
StackCheck check_stack(const std::vector<StackEntry>& entries, const evidence::VersionDump* dump,
                       const std::map<std::string, std::string>* args);

}  // namespace openrecipes::checks
