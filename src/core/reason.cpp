// The stages' names (core/reason.h).
#include "core/reason.h"

#include <utility>

namespace openrecipes {

const char* stage_name(Stage stage) {
  static constexpr std::pair<Stage, const char*> kNames[] = {
      {Stage::recipe, "recipe"},
      {Stage::measurement, "measurement"},
      {Stage::evidence, "evidence"},
      {Stage::layout, "layout"},
      {Stage::model, "model"},
      {Stage::stack, "stack"},
      {Stage::device, "device"},
      {Stage::command, "command"},
      {Stage::patches, "patches"},
      {Stage::rows, "rows"},
      {Stage::reference, "reference"},
      {Stage::configuration, "configuration check"},
      {Stage::convergence, "convergence check"},
      {Stage::search, "search"},
      {Stage::claims, "claims"},
  };
  for (const auto& [s, name] : kNames)
    if (s == stage) return name;
  return "?";  // a stage added to the enum without its name here
}

}  // namespace openrecipes
