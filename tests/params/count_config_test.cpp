#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "params/count.h"
#include "params/model_config.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using ::testing::HasSubstr;
using json = nlohmann::json;

json small_moe() {
  return {{"model_type", "qwen3_moe"},
          {"hidden_size", 64},
          {"vocab_size", 1000},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"head_dim", 16},
          {"intermediate_size", 128},
          {"moe_intermediate_size", 32},
          {"num_experts", 8},
          {"num_experts_per_tok", 2},
          {"decoder_sparse_step", 1},
          {"mlp_only_layers", json::array({0})},
          {"tie_word_embeddings", false}};
}

std::string error_of(const json& c) {
  return testing::message_of([&] { count_from_config(c); });
}

TEST(CountConfig, mlp_only_layers_are_dense_and_experts_count_at_top_k) {
  ParamCount pc = count_from_config(small_moe());
  // attention per layer: q 64×64 + k, v 64×32 each + o 64×64 = 12,288; 4 layers.
  EXPECT_EQ(pc.of(ParamClass::attention).active, 4 * 12'288);
  // layer 0 dense: 3 × 64 × 128; layers 1-3: router 8 × 64, experts 2 of 8 × 3 × 64 × 32.
  EXPECT_EQ(pc.of(ParamClass::dense_mlp).active, 3 * 64 * 128);
  EXPECT_EQ(pc.of(ParamClass::router).active, 3 * 8 * 64);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).params, 3 * 8 * 3 * 64 * 32);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).active, 3 * 2 * 3 * 64 * 32);
  EXPECT_EQ(pc.of(ParamClass::output_projection).active, 1000 * 64);
  EXPECT_EQ(pc.n_active, 4 * 12'288 + 3 * 64 * 128 + 3 * 8 * 64 + 3 * 2 * 3 * 64 * 32 + 1000 * 64);
  EXPECT_FALSE(pc.total_params);  // not predicted from config
}

TEST(CountConfig, missing_moe_fields_are_errors_naming_the_field) {
  json c = small_moe();
  c.erase("num_experts_per_tok");
  EXPECT_THAT(error_of(c), HasSubstr("config.json: num_experts_per_tok: missing"));
  c = small_moe();
  c.erase("num_experts");
  EXPECT_THAT(error_of(c), HasSubstr("config.json: num_experts: missing"));
  c = small_moe();
  c["num_experts_per_tok"] = 9;
  EXPECT_THAT(error_of(c), HasSubstr("num_experts_per_tok: is 9, outside 1..8"));
}

TEST(CountConfig, malformed_and_absurd_fields_are_errors) {
  json c = small_moe();
  c["hidden_size"] = "64";
  EXPECT_THAT(error_of(c), HasSubstr("config.json: hidden_size: is \"64\", not an integer"));
  c = small_moe();
  c["vocab_size"] = -1;
  EXPECT_THAT(error_of(c), HasSubstr("vocab_size: is -1, outside 0..2^40"));
  c = small_moe();
  c["hidden_size"] = std::int64_t{1} << 40;
  c["moe_intermediate_size"] = std::int64_t{1} << 40;
  EXPECT_THAT(error_of(c), HasSubstr("overflows 64 bits"));
  EXPECT_THAT(error_of(json::array()), HasSubstr("is not a JSON object"));
  EXPECT_THAT(error_of({{"hidden_size", 4}}), HasSubstr("model_type: missing"));
}

TEST(CountConfig, layer_and_expert_counts_over_their_limits_are_errors_before_any_counting) {
  // Within 2^40 but past kMaxLayers / kMaxExperts: counting would loop 2^39 times or keep 2^39 bits per projection.
  json c = small_moe();
  c["num_hidden_layers"] = std::int64_t{1} << 39;
  EXPECT_THAT(error_of(c), HasSubstr("config.json: num_hidden_layers: is 549755813888, over the limit of 4096"));
  c = small_moe();
  c["num_hidden_layers"] = 4096;
  c["mlp_only_layers"] = json::array();
  EXPECT_NO_THROW(count_from_config(c));  // the limit itself is allowed
  c = small_moe();
  c["num_experts"] = 65537;
  EXPECT_THAT(error_of(c), HasSubstr("config.json: num_experts: is 65537, over the limit of 65536"));
  c = small_moe();
  c["model_type"] = "deepseek_v3";
  c["num_nextn_predict_layers"] = 5000;
  try {
    ModelConfig::from_json(c).mtp_layers();
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("config.json: num_nextn_predict_layers: is 5000, over the limit of 4096"));
  }
}

TEST(CountConfig, zero_shape_fields_are_errors_naming_the_field) {
  for (const char* k : {"num_attention_heads", "num_hidden_layers", "hidden_size", "num_key_value_heads"}) {
    json c = small_moe();
    c[k] = 0;
    EXPECT_THAT(error_of(c), HasSubstr(std::string("config.json: ") + k + ": is 0")) << k;
  }  // Widths (head_dim 0 once planned a model with no attention).
  for (const char* k : {"head_dim", "vocab_size", "intermediate_size", "moe_intermediate_size"}) {
    json c = small_moe();
    c[k] = 0;
    EXPECT_THAT(error_of(c), HasSubstr(std::string("config.json: ") + k + ": is 0; a width is at least 1")) << k;
  }
}

TEST(CountConfig, key_value_heads_must_group_the_attention_heads) {
  json c = small_moe();
  c["num_key_value_heads"] = 8;  // 4 attention heads
  EXPECT_THAT(error_of(c), HasSubstr("num_key_value_heads: is 8, more than num_attention_heads (4)"));
  c["num_attention_heads"] = 6;
  c["num_key_value_heads"] = 4;
  EXPECT_THAT(error_of(c), HasSubstr("num_key_value_heads: is 4, which does not divide num_attention_heads (6)"));
  json nested = {{"model_type", "qwen3_moe"}, {"text_config", small_moe()}};
  nested["text_config"]["hidden_size"] = 0;
  EXPECT_THAT(error_of(nested), HasSubstr("text_config.hidden_size: is 0"));
}

TEST(CountConfig, mixtral_experts_use_intermediate_size_and_num_local_experts) {
  json c = {{"model_type", "mixtral"},     {"hidden_size", 64},        {"vocab_size", 1000},
            {"num_hidden_layers", 3},      {"num_attention_heads", 8}, {"num_key_value_heads", 2},
            {"intermediate_size", 96},     {"num_local_experts", 4},   {"num_experts_per_tok", 2},
            {"tie_word_embeddings", false}};
  ParamCount pc = count_from_config(c);
  // head_dim 64 / 8 = 8. Per layer: q 64×64 + k, v 64×16 + o 64×64 = 10,240; router 4×64; 2 of 4 experts of 3×64×96.
  EXPECT_EQ(pc.of(ParamClass::attention).active, 3 * 10'240);
  EXPECT_EQ(pc.of(ParamClass::router).active, 3 * 4 * 64);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).params, 3 * 4 * 3 * 64 * 96);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).active, 3 * 2 * 3 * 64 * 96);
  EXPECT_EQ(pc.of(ParamClass::dense_mlp).params, 0);
  EXPECT_EQ(pc.of(ParamClass::shared_expert).params, 0);
  EXPECT_EQ(pc.n_active, 3 * (10'240 + 256 + 2 * 3 * 64 * 96) + 1000 * 64);
  EXPECT_FALSE(pc.output_tied);
  json no_e = c;
  no_e.erase("num_local_experts");
  EXPECT_THAT(error_of(no_e), HasSubstr("config.json: num_local_experts: missing"));
  json no_k = c;
  no_k.erase("num_experts_per_tok");
  EXPECT_THAT(error_of(no_k), HasSubstr("config.json: num_experts_per_tok: missing"));
  json no_i = c;
  no_i.erase("intermediate_size");
  EXPECT_THAT(error_of(no_i), HasSubstr("config.json: intermediate_size: missing"));
}

TEST(CountConfig, text_config_nesting_is_followed) {
  json nested = {{"model_type", "qwen3_5"},
                 {"tie_word_embeddings", false},
                 {"text_config",
                  {{"hidden_size", 64},
                   {"vocab_size", 1000},
                   {"num_hidden_layers", 4},
                   {"num_attention_heads", 4},
                   {"num_key_value_heads", 2},
                   {"head_dim", 16},
                   {"intermediate_size", 128},
                   {"layer_types", {"linear_attention", "linear_attention", "linear_attention", "full_attention"}},
                   {"linear_num_key_heads", 2},
                   {"linear_num_value_heads", 4},
                   {"linear_key_head_dim", 8},
                   {"linear_value_head_dim", 8}}}};
  ParamCount pc = count_from_config(nested);
  // full layer: gated q 64×128 + k, v 64×32 + o 64×64 = 16,384; linear: 64 × (2×16 + 2×32 + 2×4) + 32×64 = 8,704.
  EXPECT_EQ(pc.of(ParamClass::attention).active, 16'384 + 3 * 8'704);
  EXPECT_EQ(pc.of(ParamClass::dense_mlp).active, 4 * 3 * 64 * 128);
  EXPECT_FALSE(pc.output_tied);
}

}  // namespace
}  // namespace openrecipes::params
