// The stages' names (core/reason.h).
#include "core/reason.h"

namespace openrecipes {

const char* stage_name(Stage stage) {
  switch (stage) {
    case Stage::recipe:
      return "recipe";
    case Stage::measurement:
      return "measurement";
    case Stage::evidence:
      return "evidence";
    case Stage::layout:
      return "layout";
    case Stage::model:
      return "model";
    case Stage::stack:
      return "stack";
    case Stage::device:
      return "device";
    case Stage::command:
      return "command";
    case Stage::patches:
      return "patches";
    case Stage::rows:
      return "rows";
    case Stage::reference:
      return "reference";
    case Stage::configuration:
      return "configuration check";
    case Stage::convergence:
      return "convergence check";
    case Stage::search:
      return "search";
    case Stage::claims:
      return "claims";
  }
  return "?";
}

}  // namespace openrecipes
