// Run-length arguments (SPEC §2, §4.3).
#include "checks/run_length.h"

#include <fmt/format.h>

#include "checks/config_check.h"

namespace openrecipes::checks {
namespace {

// `derived` equals `base` in the dump: the value follows the run length.
bool follows(const std::map<std::string, std::string>& d, const char* derived, const char* base) {
  auto x = d.find(derived), y = d.find(base);
  return x != d.end() && y != d.end() && x->second == y->second;
}

}  // namespace

bool is_run_length_change(const std::string& name, const std::map<std::string, std::string>& a,
                          const std::map<std::string, std::string>& b) {
  if (name == "train_iters" || name == "train_samples" || name == "exit_interval" || name == "exit_duration_in_mins" ||
      name == "num_rollout")
    return true;
  if (name == "lr_decay_iters")
    return follows(a, "lr_decay_iters", "train_iters") && follows(b, "lr_decay_iters", "train_iters");
  if (name == "lr_decay_samples")
    return follows(a, "lr_decay_samples", "train_samples") && follows(b, "lr_decay_samples", "train_samples");
  return false;
}

std::string arm_differences(const std::map<std::string, std::string>& arm,
                            const std::map<std::string, std::string>& run, const ArgumentRules& rules) {
  const auto diff = check_configuration(arm, run, rules, {}, {});
  std::string why;
  for (const auto& ch : diff.changes) {
    if (ch.classification.cls == ArgClass::bookkeeping || is_run_length_change(ch.name, arm, run)) continue;
    why += fmt::format("{}{} is {} in the arm but {} in the measured run", why.empty() ? "" : "; ", ch.name,
                       ch.recipe_value.value_or("(absent)"), ch.reference_value.value_or("(absent)"));
  }
  return why;
}

}  // namespace openrecipes::checks
