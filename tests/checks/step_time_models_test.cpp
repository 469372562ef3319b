// The Megatron arguments tests/data/step_time/bridge_models.json gives each model Megatron-Bridge measured (the
// step-time model's fit rows are built from them, tools/step_time_rows.py) train the model its checkpoint's config.json
// describes: read as `plan --command` reads a command, the shape is the config's (layout::shape_differences empty).
// Needs ../shared/fixtures (the configs).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "checks/megatron_arguments.h"
#include "core/files.h"
#include "layout/model_shape.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

TEST(StepTimeModels, every_bridge_models_arguments_train_its_checkpoints_shape) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const auto models =
      nlohmann::json::parse(read_file(testing::source_dir() / "tests/data/step_time/bridge_models.json"));
  int checked = 0;
  for (const auto& [name, model] : models.items()) {
    if (name.front() == '_') continue;  // the file's comment
    SCOPED_TRACE(name);
    std::string command = "python pretrain_gpt.py";
    for (const auto& a : model.at("arguments")) command += " '" + a.get<std::string>() + "'";
    command +=
        " --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 8 --bf16"
        " --transformer-impl transformer_engine";
    const auto run = read_command_run(command, name, 8, std::nullopt);
    const auto file = testing::fixtures_dir() / "configs" / model.at("fixture").get<std::string>() / "config.json";
    const auto config = layout::shape_from_config(nlohmann::json::parse(read_file(file)), file.string());
    EXPECT_EQ(layout::shape_differences(config, run.shape, 128), std::vector<std::string>{});
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}

}  // namespace
}  // namespace openrecipes::checks
