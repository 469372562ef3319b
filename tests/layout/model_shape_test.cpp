// Tests for src/layout/model_shape's shape_differences: the run's shape (its argument dump) against its model's
// (config.json), hand-written dumps of the Qwen3-0.6B shape and of a small MoE (SPEC §3, §5; each once verified:
// a run filed under another model, a run without SwiGLU, a MoE run whose layers are mostly dense).
#include "layout/model_shape.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace openrecipes::layout {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const nlohmann::json kQwen3Config = {{"model_type", "qwen3"},    {"architectures", {"Qwen3ForCausalLM"}},
                                     {"hidden_size", 1024},      {"intermediate_size", 3072},
                                     {"num_hidden_layers", 28},  {"num_attention_heads", 16},
                                     {"num_key_value_heads", 8}, {"head_dim", 128},
                                     {"vocab_size", 151936},     {"tie_word_embeddings", true},
                                     {"attention_bias", false}};

std::map<std::string, std::string> qwen3_dump() {
  return {{"num_layers", "28"},          {"hidden_size", "1024"},           {"ffn_hidden_size", "3072"},
          {"num_attention_heads", "16"}, {"group_query_attention", "True"}, {"num_query_groups", "8"},
          {"kv_channels", "128"},        {"padded_vocab_size", "151936"},   {"swiglu", "True"}};
}

TEST(ShapeDifferences, the_models_own_run_has_none_and_each_difference_names_both_values) {
  const auto model = shape_from_config(kQwen3Config, "config");
  EXPECT_THAT(shape_differences(model, shape_from_arguments(qwen3_dump(), "dump"), 128), IsEmpty());
  auto dump = qwen3_dump();
  dump["num_layers"] = "32";
  dump["swiglu"] = "False";
  EXPECT_THAT(shape_differences(model, shape_from_arguments(dump, "dump"), 128),
              ElementsAre("layers (num_layers): the model has 28, the run 32",
                          "gated MLPs (swiglu): the model gates, the run does not",
                          "dense layers (moe_layer_freq): the model has 28, the run 32"));
}

TEST(ShapeDifferences, the_vocabulary_is_compared_as_megatron_pads_it) {
  const auto model = shape_from_config(kQwen3Config, "config");
  auto dump = qwen3_dump();
  dump["padded_vocab_size"] = "152064";  // 151936 padded to a multiple of 128 x TP 3 = 384
  EXPECT_THAT(shape_differences(model, shape_from_arguments(dump, "dump"), 384), IsEmpty());
  dump["padded_vocab_size"] = "151680";  // a tokenizer's 151,669 ids padded to 128: another vocabulary
  EXPECT_THAT(shape_differences(model, shape_from_arguments(dump, "dump"), 128),
              ElementsAre("vocabulary (padded to a multiple of 128): the model has 151936 (151936), the run 151680"));
}

TEST(ShapeDifferences, a_moe_run_with_dense_layers_its_model_does_not_have_differs) {
  // A Qwen3-MoE-style model of 4 layers, each with 8 experts (top 2, width 768).
  nlohmann::json config = kQwen3Config;
  config["model_type"] = "qwen3_moe";
  config["architectures"] = {"Qwen3MoeForCausalLM"};
  config["num_hidden_layers"] = 4;
  config["num_experts"] = 8;
  config["num_experts_per_tok"] = 2;
  config["moe_intermediate_size"] = 768;
  const auto model = shape_from_config(config, "config");
  auto dump = qwen3_dump();
  dump["num_layers"] = "4";
  dump["num_experts"] = "8";
  dump["moe_router_topk"] = "2";
  dump["moe_ffn_hidden_size"] = "768";
  dump["moe_layer_freq"] = "1";
  EXPECT_THAT(shape_differences(model, shape_from_arguments(dump, "dump"), 128), IsEmpty());
  dump["moe_layer_freq"] = "[0, 0, 0, 1]";  // three of the four layers dense
  EXPECT_THAT(shape_differences(model, shape_from_arguments(dump, "dump"), 128),
              ElementsAre("dense layers (moe_layer_freq): the model has 0, the run 3"));
}

}  // namespace
// A hostile review: a config with a vocabulary of 2^40 was planned (tokens/s/GPU printed 0 beside an MFU of 24%). A
// config's dimensions are held to 2^22 as an argument dump's are, naming the field.
TEST(ShapeFromConfig, a_dimension_far_above_any_released_model_is_refused_naming_its_field) {
  for (const char* field : {"vocab_size", "hidden_size", "intermediate_size"}) {
    nlohmann::json c = kQwen3Config;
    c[field] = std::int64_t{1} << 23;
    try {
      (void)shape_from_config(c, "config.json");
      ADD_FAILURE() << field << " of 2^23 was read";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(std::string("config.json: ") + field + ": 8388608 is over 4194304"));
    }
  }
  // A dimension the shape does not hold (here MLA's kv_lora_rank, in a DeepSeek-V3 config) is bounded by the
  // parameters it gives: 61 layers x 128 heads x 2^30 x (128 + 128) is over 10^15.
  nlohmann::json mla = {{"model_type", "deepseek_v3"}, {"hidden_size", 7168},
                        {"intermediate_size", 18432},  {"moe_intermediate_size", 2048},
                        {"num_hidden_layers", 61},     {"num_attention_heads", 128},
                        {"num_key_value_heads", 128},  {"n_routed_experts", 256},
                        {"n_shared_experts", 1},       {"num_experts_per_tok", 8},
                        {"first_k_dense_replace", 3},  {"moe_layer_freq", 1},
                        {"q_lora_rank", 1536},         {"kv_lora_rank", std::int64_t{1} << 30},
                        {"qk_nope_head_dim", 128},     {"qk_rope_head_dim", 64},
                        {"v_head_dim", 128},           {"vocab_size", 129280},
                        {"tie_word_embeddings", false}};
  try {
    (void)shape_from_config(mla, "mla.json");
    ADD_FAILURE() << "a kv_lora_rank of 2^30 was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("mla.json: its dimensions give "));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("parameters, over 10^15"));
  }
  mla["kv_lora_rank"] = 512;  // DeepSeek-V3's own
  EXPECT_GT(shape_from_config(mla, "mla.json").total_params(), 600'000'000'000);
  nlohmann::json c = kQwen3Config;
  c["vocab_size"] = std::int64_t{1} << 22;  // the bound itself is a size
  EXPECT_EQ(shape_from_config(c, "config.json").vocab, std::int64_t{1} << 22);
}

}  // namespace openrecipes::layout
