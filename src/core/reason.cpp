// The stages' names (core/reason.h).
#include "core/reason.h"

#include "core/enum_names.h"

namespace openrecipes {

const char* stage_name(Stage stage) {
  static constexpr EnumName<Stage> kNames[] = {
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
  return name_of(kNames, stage).data();  // each name is a literal: its data() ends in '\0'
}

}  // namespace openrecipes
