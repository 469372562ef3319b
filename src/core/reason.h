// Why a recipe is not verified, as a value (SPEC §5): the stage of the flow that found it, the rule it breaks, the
// sentence saying how, and the fix. The build's text, JSON, CSV and the site render it; nothing parses it back.
#pragma once

#include <string>
#include <vector>

namespace openrecipes {

struct Reason {
  std::string stage;    ///< the stage that found it: "measurement", "stack", "command", "device", "convergence check"
  std::string rule;     ///< the rule's stable id, e.g. "stack.version" or "command.argument-dump"
  std::string message;  ///< one sentence, without the stage
  std::string fix;      ///< what to do about it; "" where the message says it
  /// "stage: message", the one-line form.
  std::string text() const { return stage + ": " + message; }
  /// "stage: message (fix: fix)", as a terminal shows it (an InputError's own form); text() when there is no fix.
  std::string text_with_fix() const { return fix.empty() ? text() : text() + " (fix: " + fix + ")"; }
  bool operator==(const Reason&) const = default;
};

using Reasons = std::vector<Reason>;

}  // namespace openrecipes
