#include "params/report.h"

#include "core/text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hf_layouts.h"
#include "safetensors_writer.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using ::testing::HasSubstr;
using json = nlohmann::json;
namespace st = testing::st;

// A small Qwen3 MoE (2 layers, 4 experts, top-2) with its checkpoint written by the test's layout.
json tiny_moe() { return testing::hf::tiny_qwen3_moe(); }

TEST(Report, json_has_a_fixed_key_order_and_identical_bytes_across_runs) {
  testing::TempDir d;
  auto t = testing::hf::layout_for(tiny_moe());
  st::write_sharded(d.path(), t, st::split_evenly(t, 2));
  ParamCount a = count_from_checkpoint(d.path(), tiny_moe());
  ParamCount b = count_from_checkpoint(d.path(), tiny_moe());
  ParamCount c = count_from_config(tiny_moe());
  auto ja = to_json(a, "ckpt", &c), jb = to_json(b, "ckpt", &c);
  EXPECT_EQ(ja.dump(2), jb.dump(2));
  std::vector<std::string> keys;
  for (auto it = ja.begin(); it != ja.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"source", "where", "model_type", "N", "counted_total", "total_params",
                                            "quantization_scales", "shards", "tensors", "top_k", "num_experts",
                                            "output_tied", "classes", "notes", "config_check"}));
  // A BF16 checkpoint: no scales, reported as zero; a config count predicts none (null, like total_params).
  EXPECT_EQ(ja["quantization_scales"].dump(), R"({"tensors":0,"values":0})");
  EXPECT_TRUE(to_json(c, "config.json")["quantization_scales"].is_null());
  EXPECT_TRUE(to_json(c, "config.json")["total_params"].is_null());
  std::vector<std::string> classes;
  for (auto it = ja["classes"].begin(); it != ja["classes"].end(); ++it) classes.push_back(it.key());
  EXPECT_EQ(classes.front(), "attention");
  EXPECT_EQ(classes.back(), "quantization_scale");
  EXPECT_EQ(classes.size(), kParamClassCount);
  // 2 layers × (attention 32×32 + 2×32×16 + 32×32 = 3,072; router 4×32; 2 of 4 experts × 3×32×16) + output 100×32.
  EXPECT_EQ(ja["N"], 2 * (3072 + 128 + 2 * 1536) + 3200);
  EXPECT_EQ(ja["config_check"]["agrees"], true);
  EXPECT_EQ(ja["classes"]["routed_expert"]["params"], 2 * 4 * 1536);
  EXPECT_EQ(ja["classes"]["norm"]["counted"], false);
}

TEST(Report, the_table_shows_n_the_exclusions_and_a_disagreement) {
  testing::TempDir d;
  auto t = testing::hf::layout_for(tiny_moe());
  st::write_sharded(d.path(), t, st::split_evenly(t, 1));
  ParamCount headers = count_from_checkpoint(d.path(), tiny_moe());
  json other = tiny_moe();
  other["moe_intermediate_size"] = 8;  // config arithmetic now predicts smaller experts
  ParamCount config = count_from_config(other);
  std::string table = format_table(headers, "ckpt", &config);
  EXPECT_THAT(table, HasSubstr("N (active parameters per token)"));
  EXPECT_THAT(table, HasSubstr(with_thousands(headers.n_active)));
  EXPECT_THAT(table, HasSubstr("top-2 of 4 experts"));
  EXPECT_THAT(table, HasSubstr("embedding"));
  EXPECT_THAT(table, HasSubstr("input embedding: a table lookup, not a matrix multiply"));
  EXPECT_THAT(table, HasSubstr("DISAGREES with the headers"));
  EXPECT_THAT(table, HasSubstr("routed_expert.active"));
  EXPECT_FALSE(compare_counts(headers, config).empty());
  EXPECT_THAT(format_table(headers, "ckpt", &headers), HasSubstr("agrees with the headers"));
}

}  // namespace
}  // namespace openrecipes::params
