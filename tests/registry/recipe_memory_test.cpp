// registry::recipe_memory: a recipe's shape and setup for `plan --from`, `relayout` and the build. With the run's
// argument dump it reads the dump; without one it reads the recipe's command as `plan --command` does
// (checks::read_training_command), and refuses what the memory model does not cover by name either way.
#include "registry/recipe_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checks/megatron_arguments.h"
#include "registry/recipe.h"
#include "scratch_registry.h"
#include "testing/support.h"

namespace openrecipes::registry {
namespace {

constexpr const char* kDumpLine = "  arguments: {path: evidence/train.log, format: megatron-args}\n";

// lr10's command is rebuilt from its own argument dump: read as a command, it gives the setup and the peak the dump
// gives, exactly.
TEST(RecipeMemory, a_recipe_without_its_dump_is_planned_from_its_command_as_plan_command_reads_it) {
  scratch::Scratch s;
  const auto with_dump = recipe_memory(load_recipe(s.recipe("lr10")));
  EXPECT_EQ(with_dump.setup_from, "argument dump");
  s.replace(s.recipe("lr10") / "recipe.yaml", kDumpLine, "");
  const auto from_command = recipe_memory(load_recipe(s.recipe("lr10")));
  EXPECT_EQ(from_command.setup_from, "command");
  EXPECT_EQ(from_command.setup.impl, layout::Impl::local);  // --transformer-impl local
  EXPECT_EQ(from_command.setup.recompute.kind, layout::Recompute::selective);
  EXPECT_FALSE(from_command.setup.attention_dropout);  // --attention-dropout 0
  EXPECT_EQ(from_command.setup, with_dump.setup);
  EXPECT_DOUBLE_EQ(layout::estimate_memory(from_command.shape, from_command.setup).peak_mib,
                   layout::estimate_memory(with_dump.shape, with_dump.setup).peak_mib);
  ASSERT_TRUE(from_command.measured);  // the log's memory lines are still read
}

TEST(RecipeMemory, what_the_model_does_not_cover_is_refused_by_name_in_a_command_or_a_dump) {
  scratch::Scratch s;
  s.replace(s.recipe("lr10") / "recipe.yaml", "--transformer-impl local",
            "--transformer-impl local --fp8-format hybrid");
  s.replace(s.recipe("mbs2") / "evidence/train.log", "  fp8 ............................................. None",
            "  fp8 ............................................. hybrid");
  EXPECT_THAT(testing::message_of([&] { recipe_memory(load_recipe(s.recipe("mbs2"))); }),
              ::testing::HasSubstr("--fp8-format is not modelled"));
  s.replace(s.recipe("lr10") / "recipe.yaml", kDumpLine, "");
  EXPECT_THROW(recipe_memory(load_recipe(s.recipe("lr10"))), checks::NotModelledError);
}

// A command whose model sizes sit in an array (slime's "${MODEL_ARGS[@]}") does not read: the recorded layout stands,
// and the reason is kept.
TEST(RecipeMemory, a_command_that_does_not_read_leaves_the_recorded_layout_and_says_why) {
  scratch::Scratch s;
  s.replace(s.recipe("lr10") / "recipe.yaml", kDumpLine, "");
  s.replace(s.recipe("lr10") / "recipe.yaml", "--num-layers 28", "\"${MODEL_ARGS[@]}\" --num-layers 28");
  const auto rm = recipe_memory(load_recipe(s.recipe("lr10")));
  EXPECT_THAT(rm.setup_from, ::testing::StartsWith("recorded layout (its command does not read: "));
  EXPECT_EQ(rm.setup.layout.micro_batch, 1);  // lr10's layout: micro_batch 1
  EXPECT_EQ(rm.setup.impl, layout::Impl::te);
  EXPECT_EQ(rm.setup.row_length, 2048);  // the workload's
}

}  // namespace
}  // namespace openrecipes::registry
