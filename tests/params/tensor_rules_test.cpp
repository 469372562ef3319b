#include "params/tensor_rules.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using ::testing::HasSubstr;
using json = nlohmann::json;

TensorRules rules_for(json config) { return TensorRules(ModelConfig::from_json(config)); }

json deepseek() {
  return {{"model_type", "deepseek_v32"},
          {"num_hidden_layers", 61},
          {"num_nextn_predict_layers", 1},
          {"n_routed_experts", 256},
          {"num_experts_per_tok", 8}};
}

// Expects `r` to class each tensor name as the class beside it.
void expect_classes(const TensorRules& r, std::initializer_list<std::pair<const char*, ParamClass>> cases) {
  for (const auto& [name, cls] : cases) EXPECT_EQ(r.classify(name).cls, cls) << name;
}

std::string error_of(const TensorRules& r, const std::string& name) {
  return testing::message_of([&] { r.classify(name); });
}

TEST(TensorRules, deepseek_mla_indexer_experts_scales_and_mtp_layer) {
  TensorRules r = rules_for(deepseek());
  expect_classes(r, {{"model.layers.0.self_attn.kv_a_proj_with_mqa.weight", ParamClass::attention},
                     {"model.layers.0.self_attn.kv_a_proj_with_mqa.weight_scale_inv", ParamClass::quantization_scale},
                     {"model.layers.5.self_attn.indexer.weights_proj.weight", ParamClass::attention},
                     {"model.layers.5.self_attn.indexer.k_norm.bias", ParamClass::norm},
                     {"model.layers.1.mlp.down_proj.weight", ParamClass::dense_mlp},
                     {"model.layers.9.mlp.gate.weight", ParamClass::router},
                     {"model.layers.9.mlp.gate.e_score_correction_bias", ParamClass::bias},
                     {"model.layers.9.mlp.shared_experts.up_proj.weight", ParamClass::shared_expert}});
  TensorRole e = r.classify("model.layers.9.mlp.experts.255.up_proj.weight");
  EXPECT_EQ(e.cls, ParamClass::routed_expert);
  EXPECT_EQ(e.layer, 9);
  EXPECT_EQ(e.expert, 255);
  EXPECT_EQ(e.projection, "up_proj");
  expect_classes(r, {{"model.layers.61.eh_proj.weight", ParamClass::mtp},
                     {"model.layers.61.mlp.experts.3.up_proj.weight", ParamClass::mtp},
                     {"model.embed_tokens.weight", ParamClass::embedding},
                     {"model.norm.weight", ParamClass::norm},
                     {"lm_head.weight", ParamClass::output_projection}});
  EXPECT_THAT(error_of(r, "model.layers.62.eh_proj.weight"),
              HasSubstr("layer 62 is past num_hidden_layers 61 + 1 MTP layers"));
}

TEST(TensorRules, a_name_no_rule_classes_is_an_error_naming_it) {
  TensorRules r = rules_for(deepseek());
  std::string e = error_of(r, "model.layers.3.self_attn.mystery_proj.weight");
  EXPECT_THAT(e, HasSubstr("tensor 'model.layers.3.self_attn.mystery_proj.weight'"));
  EXPECT_THAT(e, HasSubstr("no rule for model_type deepseek_v32 classes this tensor"));
  EXPECT_THAT(error_of(r, "transformer.h.0.attn.c_attn.weight"), HasSubstr("transformer.h.0.attn.c_attn.weight"));
  // A scale whose weight no rule knows is not waved through either.
  EXPECT_THAT(error_of(r, "model.layers.3.mlp.mystery.weight_scale_inv"), HasSubstr("no rule"));
  // The indexer exists only where the config declares it (DeepSeek-V3 has none).
  json v3 = deepseek();
  v3["model_type"] = "deepseek_v3";
  EXPECT_THAT(error_of(rules_for(v3), "model.layers.0.self_attn.indexer.wk.weight"), HasSubstr("no rule"));
}

TEST(TensorRules, gpt_oss_blocks_scales_sinks_and_biases) {
  TensorRules r = rules_for({{"model_type", "gpt_oss"}, {"num_hidden_layers", 24}});
  TensorRole blocks = r.classify("model.layers.3.mlp.experts.gate_up_proj_blocks");
  EXPECT_EQ(blocks.cls, ParamClass::routed_expert);
  EXPECT_TRUE(blocks.fp4_blocks);
  EXPECT_EQ(blocks.experts, TensorRole::Experts::fused);
  expect_classes(r, {{"model.layers.3.mlp.experts.gate_up_proj_scales", ParamClass::quantization_scale},
                     {"model.layers.3.mlp.experts.down_proj_bias", ParamClass::bias},
                     {"model.layers.3.self_attn.sinks", ParamClass::elementwise},
                     {"model.layers.3.self_attn.q_proj.bias", ParamClass::bias},
                     {"model.layers.3.mlp.router.weight", ParamClass::router}});
  EXPECT_THAT(error_of(r, "model.layers.3.mlp.gate_proj.weight"), HasSubstr("no rule for model_type gpt_oss"));
}

TEST(TensorRules, qwen3_5_text_vision_mtp_linear_attention_and_modelopt_scales) {
  TensorRules r =
      rules_for({{"model_type", "qwen3_5_moe"}, {"text_config", {{"num_hidden_layers", 40}, {"num_experts", 256}}}});
  expect_classes(r, {{"model.language_model.layers.0.linear_attn.in_proj_qkv.weight", ParamClass::attention},
                     {"model.language_model.layers.0.linear_attn.conv1d.weight", ParamClass::elementwise},
                     {"model.language_model.layers.0.linear_attn.A_log", ParamClass::elementwise},
                     {"model.language_model.layers.0.linear_attn.dt_bias", ParamClass::bias}});
  EXPECT_EQ(r.classify("model.language_model.layers.0.mlp.experts.gate_up_proj").experts, TensorRole::Experts::fused);
  expect_classes(r, {{"model.language_model.layers.0.mlp.shared_expert_gate.weight", ParamClass::shared_expert},
                     {"model.language_model.layers.3.self_attn.k_proj.k_scale", ParamClass::quantization_scale},
                     {"model.language_model.layers.3.self_attn.o_proj.weight_scale_2", ParamClass::quantization_scale},
                     {"lm_head.input_scale", ParamClass::quantization_scale},
                     {"model.visual.blocks.0.attn.qkv.weight", ParamClass::vision},
                     {"mtp.layers.0.mlp.experts.gate_up_proj", ParamClass::mtp},
                     {"mtp.fc.weight", ParamClass::mtp}});
  EXPECT_THAT(error_of(r, "model.language_model.layers.40.mlp.gate.weight"),
              HasSubstr("layer 40 is past num_hidden_layers 40"));
}

TEST(TensorRules, scales_inside_mtp_layers_and_the_vision_tower_are_quantization_scales) {
  TensorRules ds = rules_for(deepseek());
  expect_classes(ds, {{"model.layers.61.mlp.experts.3.up_proj.weight_scale_inv", ParamClass::quantization_scale},
                      {"model.layers.61.self_attn.kv_b_proj.weight_scale_inv", ParamClass::quantization_scale},
                      {"model.layers.61.self_attn.kv_b_proj.weight", ParamClass::mtp}});
  TensorRules qwen =
      rules_for({{"model_type", "qwen3_5_moe"}, {"text_config", {{"num_hidden_layers", 40}, {"num_experts", 256}}}});
  expect_classes(qwen, {{"mtp.layers.0.self_attn.q_proj.weight_scale_inv", ParamClass::quantization_scale},
                        {"mtp.layers.0.self_attn.k_proj.k_scale", ParamClass::quantization_scale},
                        {"mtp.layers.0.self_attn.q_proj.weight", ParamClass::mtp},
                        {"model.visual.blocks.0.attn.qkv.weight_scale", ParamClass::quantization_scale},
                        {"model.visual.blocks.0.attn.qkv.bias", ParamClass::vision}});
}

TEST(TensorRules, mixtral_block_sparse_moe_router_and_experts_w1_w3_w2) {
  TensorRules r = rules_for(
      {{"model_type", "mixtral"}, {"num_hidden_layers", 56}, {"num_local_experts", 8}, {"num_experts_per_tok", 2}});
  expect_classes(r, {{"model.layers.0.self_attn.q_proj.weight", ParamClass::attention},
                     {"model.layers.55.self_attn.o_proj.weight", ParamClass::attention},
                     {"model.layers.3.block_sparse_moe.gate.weight", ParamClass::router}});
  for (const char* w : {"w1", "w2", "w3"}) {
    TensorRole role = r.classify(fmt::format("model.layers.3.block_sparse_moe.experts.7.{}.weight", w));
    EXPECT_EQ(role.cls, ParamClass::routed_expert) << w;
    EXPECT_EQ(role.experts, TensorRole::Experts::per_expert);
    EXPECT_EQ(role.expert, 7);
    EXPECT_EQ(role.layer, 3);
    EXPECT_EQ(role.projection, w);
  }
  expect_classes(r, {{"model.layers.3.block_sparse_moe.experts.7.w2.weight_scale", ParamClass::quantization_scale},
                     {"model.layers.3.input_layernorm.weight", ParamClass::norm},
                     {"model.layers.3.post_attention_layernorm.weight", ParamClass::norm},
                     {"model.embed_tokens.weight", ParamClass::embedding},
                     {"model.norm.weight", ParamClass::norm},
                     {"lm_head.weight", ParamClass::output_projection}});
  // No dense MLP, no shared experts, no q/k norms, no other MoE spelling.
  EXPECT_THAT(error_of(r, "model.layers.0.mlp.gate_proj.weight"), HasSubstr("no rule for model_type mixtral"));
  EXPECT_THAT(error_of(r, "model.layers.0.mlp.experts.0.up_proj.weight"), HasSubstr("no rule"));
  EXPECT_THAT(error_of(r, "model.layers.0.block_sparse_moe.experts.0.w4.weight"), HasSubstr("no rule"));
  EXPECT_THAT(error_of(r, "model.layers.0.self_attn.q_norm.weight"), HasSubstr("no rule"));
  EXPECT_THAT(error_of(r, "model.layers.56.block_sparse_moe.gate.weight"), HasSubstr("layer 56 is past"));
}

TEST(TensorRules, llama_has_no_qk_norm_and_qwen3_does) {
  TensorRules llama = rules_for({{"model_type", "llama"}, {"num_hidden_layers", 32}});
  TensorRules qwen = rules_for({{"model_type", "qwen3"}, {"num_hidden_layers", 28}});
  EXPECT_EQ(qwen.classify("model.layers.0.self_attn.q_norm.weight").cls, ParamClass::norm);
  EXPECT_THAT(error_of(llama, "model.layers.0.self_attn.q_norm.weight"), HasSubstr("no rule"));
  EXPECT_EQ(llama.classify("model.layers.0.self_attn.rotary_emb.inv_freq").cls, ParamClass::position_embedding);
  EXPECT_THAT(error_of(qwen, "model.layers.0.mlp.experts.0.up_proj.weight"), HasSubstr("no rule for model_type qwen3"));
}

TEST(TensorRules, an_unknown_model_type_is_an_error_listing_the_known_ones) {
  try {
    rules_for({{"model_type", "mamba"}, {"num_hidden_layers", 4}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("'mamba' has no counting rules (known: llama, qwen3,"));
  }
}

}  // namespace
}  // namespace openrecipes::params
