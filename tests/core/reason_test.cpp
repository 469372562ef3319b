// Tests for src/core/reason: every stage's printed name (the words outputs and tests match on).
#include "core/reason.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(StageName, each_stage_prints_its_own_name) {
  const std::pair<Stage, const char*> expected[] = {
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
  for (const auto& [stage, name] : expected) EXPECT_STREQ(stage_name(stage), name);
}

}  // namespace
}  // namespace openrecipes
