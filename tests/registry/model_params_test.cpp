// A registry model's N is recounted, not trusted (SPEC §3): from its config fields, and from checkpoint headers
// when the build is given one.
#include "registry/model_params.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "params/hf_layouts.h"
#include "registry/evaluate.h"
#include "testing/support.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;

ModelInfo bundled_model() { return load_models(testing::source_dir() / "registry/models").at("qwen3-0.6b"); }

TEST(ModelParams, bundled_qwen3_0_6b_n_agrees_with_its_config_arithmetic) {
  auto m = bundled_model();
  auto c = recount_active_params(m, std::nullopt);
  EXPECT_TRUE(c.problems.empty()) << c.problems[0];
  EXPECT_EQ(c.n, 595984384);  // 28 x 15,728,640 + 151936 x 1024, by hand in the model file
  EXPECT_EQ(c.counted_from, "config arithmetic");
}

TEST(ModelParams, a_recorded_n_its_config_does_not_give_is_a_problem) {
  auto m = bundled_model();
  m.active_params = 751566848;  // e.g. someone also counted the input embedding
  m.breakdown["output_projection"] += 751566848 - 595984384;
  auto c = recount_active_params(m, std::nullopt);
  ASSERT_EQ(c.problems.size(), 2u);
  EXPECT_NE(c.problems[0].find("records N = 751566848, but its config arithmetic gives 595984384"), std::string::npos)
      << c.problems[0];
  EXPECT_NE(c.problems[1].find("records output_projection = 311164928"), std::string::npos) << c.problems[1];
}

TEST(ModelParams, a_breakdown_class_that_is_not_a_class_of_n_is_a_problem) {
  auto m = bundled_model();
  m.breakdown["routed experts"] = 0;  // the reason's words, not the class's name (routed_expert)
  auto c = recount_active_params(m, std::nullopt);
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0], m.file + ": breakdown class 'routed experts' is not a class of N");
}

TEST(ModelParams, checkpoint_headers_recount_n_when_given) {
  auto m = bundled_model();
  testing::TempDir d;
  auto tensors = testing::hf::layout_for(m.config);
  testing::st::write_safetensors(d / "model.safetensors", tensors);
  auto c = recount_active_params(m, d.path());
  EXPECT_TRUE(c.problems.empty()) << c.problems[0];
  EXPECT_EQ(c.counted_from, "safetensors headers");
  EXPECT_EQ(c.n, 595984384);
  // A checkpoint of another shape (a wider MLP) contradicts the model file.
  auto more = m.config;
  more["intermediate_size"] = 3200;
  testing::TempDir d2;
  testing::st::write_safetensors(d2 / "model.safetensors", testing::hf::layout_for(more));
  auto bad = recount_active_params(m, d2.path());
  ASSERT_FALSE(bad.problems.empty());
  EXPECT_NE(bad.problems[0].find("but the checkpoint's safetensors headers"), std::string::npos) << bad.problems[0];
  // 28 x (6,291,456 + 3 x 1024 x 3200) + 155,582,464
  EXPECT_NE(bad.problems[0].find("gives 606994432"), std::string::npos) << bad.problems[0];
}

TEST(ModelParams, build_uses_the_recount_for_mfu_and_reports_disagreements) {
  testing::TempDir d;
  fs::copy(testing::source_dir() / "registry", d / "registry", fs::copy_options::recursive);
  auto reg = load_registry(d / "registry");
  auto results = evaluate_registry(reg);
  EXPECT_EQ(results[1].active_params, 595984384);
  EXPECT_EQ(results[1].active_params_from, "config arithmetic");
  reg.models.at("qwen3-0.6b").active_params = 1;
  reg.models.at("qwen3-0.6b").breakdown.clear();
  auto bad = evaluate_registry(reg);
  for (const auto& r : bad) {
    EXPECT_FALSE(r.verified) << r.id;
    bool named = false;
    for (const auto& why : r.reasons)
      named |= why.text().find("records N = 1, but its config arithmetic gives 595984384") != std::string::npos;
    EXPECT_TRUE(named) << r.id;
  }
}

TEST(ModelParams, a_breakdown_past_n_stops_at_the_class_that_passes_it) {
  // 9,000 classes of 2^50 each would overflow a 64-bit sum (2^63 after 8,192); the sum stops at N instead.
  testing::TempDir d;
  std::string yaml =
      "name: X\nfamily: qwen3\ncheckpoint: {id: a/b}\nactive_params:\n  n: 1000\n  counted_from: config\n"
      "  counting: by hand\n  breakdown:\n";
  for (int i = 0; i < 9000; ++i) yaml += "    c" + std::to_string(i) + ": 1125899906842624\n";
  d.write("models/x.yaml", yaml);
  EXPECT_THAT(testing::message_of([&] { load_models(d / "models"); }),
              ::testing::HasSubstr("active_params.breakdown: the breakdown sums to more than N = 1000 by class "
                                   "'c0'"));
}

}  // namespace
}  // namespace openrecipes::registry
