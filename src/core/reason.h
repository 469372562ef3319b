// Why a recipe is not verified, as a value (SPEC §5): the stage of the flow that found it, the rule it breaks, the
// sentence saying how, and the fix. The build's text, JSON, CSV and the site render it; nothing parses it back.
#pragma once

#include <string>
#include <vector>

namespace openrecipes {

/// The stage of the flow that found a reason, one per check of SPEC §2–§6 (docs/recipe-format.md "What `build`
/// checks").
enum class Stage : unsigned char {
  recipe,         ///< recipe.yaml itself: it does not load, or names what the registry lacks
  measurement,    ///< SPEC §2: the window, the score, GPU-hours, the claims of them, plausibility
  evidence,       ///< SPEC §5: the evidence files hold together (timestamps, learning rates, one run once)
  layout,         ///< SPEC §6: the layout and the model's rules
  model,          ///< SPEC §3, §5: the run's shape is its model's
  stack,          ///< SPEC §6 "Stack": versions
  device,         ///< SPEC §5: the GPU type and count
  command,        ///< SPEC §5, §6: the program policy and the command against its run
  patches,        ///< SPEC §6 "Patches"
  rows,           ///< SPEC §1, §5: the rows
  reference,      ///< SPEC §4: the reference recipe
  configuration,  ///< SPEC §4.1: the configuration check
  convergence,    ///< SPEC §4.3: the convergence check and its arms
  search,         ///< docs/tune.md: the search that found a tuned recipe
  claims,         ///< SPEC §4.3's record, §5: what the recipe records about its checks
};

/// The name every output prints for `stage`: "measurement", ..., "configuration check", "convergence check".
const char* stage_name(Stage stage);

struct Reason {
  Stage stage = Stage::recipe;  ///< the stage that found it
  std::string rule;             ///< the rule's stable id, e.g. "stack.version" or "command.argument-dump"
  std::string message;          ///< one sentence, without the stage
  std::string fix;              ///< what to do about it; "" where the message says it
  /// "stage: message", the one-line form.
  std::string text() const { return std::string(stage_name(stage)) + ": " + message; }
  /// "stage: message (fix: fix)", as a terminal shows it (an InputError's own form); text() when there is no fix.
  std::string text_with_fix() const { return fix.empty() ? text() : text() + " (fix: " + fix + ")"; }
  bool operator==(const Reason&) const = default;
};

using Reasons = std::vector<Reason>;

}  // namespace openrecipes
