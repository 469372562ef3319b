// Quantization scales are neither in N nor in the stored parameter total (SPEC §3: "Left out: ... quantization
// scales"): FP8 block scales in F32, MXFP8-style F8_E8M0 scales, and E8M0 under a weight's name, which is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "hf_layouts.h"
#include "params/count.h"
#include "params/report.h"
#include "safetensors_writer.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using ::testing::HasSubstr;
using testing::TempDir;
namespace st = testing::st;
namespace hf = testing::hf;
using json = nlohmann::json;
using I = std::int64_t;

I elements(const st::Tensor& t) {
  I n = 1;
  for (auto d : t.shape) n *= static_cast<I>(d);
  return n;
}

std::string count_error(const std::filesystem::path& dir, const json& config) {
  return testing::message_of([&] { count_from_checkpoint(dir, config); });
}

TEST(QuantizationScales, qwen3_5_122b_fp8_keeps_its_f32_weight_scale_inv_out_of_the_stored_total) {
  OPENRECIPES_REQUIRE_FIXTURES();
  std::ifstream in(testing::fixtures_dir() / "configs/Qwen3.5-122B-A10B-FP8/config.json");
  const json config = json::parse(in);
  // Hidden 3072; FP8 weights carry one F32 weight_scale_inv per 128×128 block: [ceil(out/128), ceil(in/128)].
  // Per layer: 256 routed experts and the shared expert, gate/up [1024, 3072] -> [8, 24] and down [3072, 1024] ->
  // [24, 8], 192 scales each: (256 + 1) × 3 × 192 = 148,032 in 771 tensors. Router and shared-expert gate stay BF16.
  const I moe = (256 + 1) * 3 * 192;
  // 12 full-attention layers: q [16384, 3072] -> 128 × 24, k, v [512, 3072] -> 4 × 24, o [3072, 8192] -> 24 × 64.
  const I full = 128 * 24 + 2 * 4 * 24 + 24 * 64;
  // 36 gated DeltaNet layers: in_proj_qkv [12288, 3072] -> 96 × 24, in_proj_z [8192, 3072] -> 64 × 24,
  // out_proj [3072, 8192] -> 24 × 64 (in_proj_a, in_proj_b stay BF16).
  const I linear = 96 * 24 + 64 * 24 + 24 * 64;
  // The MTP layer (full attention + MoE) is FP8 too; lm_head, the embedding and the vision tower are BF16.
  const I scale_values = 48 * moe + 12 * full + 36 * linear + (full + moe);
  const I scale_tensors = 48 * 771 + 12 * 4 + 36 * 3 + (4 + 771);
  EXPECT_EQ(scale_values, 7'509'504);
  EXPECT_EQ(scale_tensors, 37'939);

  auto layout = hf::layout_for(config);
  TempDir d;
  st::write_sharded(d.path(), layout, st::split_evenly(layout, 20));
  ParamCount pc = count_from_checkpoint(d.path(), config);
  ASSERT_TRUE(pc.quantization_scales);
  EXPECT_EQ(pc.quantization_scales->values, scale_values);
  EXPECT_EQ(pc.quantization_scales->tensors, scale_tensors);
  // No FP4 here: every stored element is a parameter or a scale, never both.
  I all = 0, scale_inv = 0;
  for (const auto& t : layout) {
    all += elements(t);
    if (t.name.ends_with(".weight_scale_inv")) {
      EXPECT_EQ(t.dtype, "F32") << t.name;
      scale_inv += elements(t);
    }
  }
  EXPECT_EQ(scale_inv, scale_values);
  EXPECT_EQ(*pc.total_params, all - scale_values);
  // The MTP layer's scales are scales, not MTP parameters.
  bool seen = false;
  for (const auto& t : pc.tensor_list) {
    if (t.name != "mtp.layers.0.self_attn.q_proj.weight_scale_inv") continue;
    seen = true;
    EXPECT_EQ(t.cls, ParamClass::quantization_scale);
  }
  EXPECT_TRUE(seen);
  const auto j = to_json(pc, "ckpt");
  EXPECT_EQ(j["quantization_scales"]["values"], scale_values);
  EXPECT_EQ(j["total_params"], all - scale_values);
}

// A small Qwen3 MoE whose projections are FP8 (E4M3) with MXFP8-style scales: one F8_E8M0 exponent per 32 inputs.
json tiny_moe() {
  return {{"model_type", "qwen3_moe"},
          {"hidden_size", 64},
          {"vocab_size", 100},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"head_dim", 16},
          {"intermediate_size", 128},
          {"moe_intermediate_size", 32},
          {"num_experts", 4},
          {"num_experts_per_tok", 2},
          {"tie_word_embeddings", false}};
}

std::vector<st::Tensor> with_e8m0_scales(const std::vector<st::Tensor>& bf16) {
  std::vector<st::Tensor> out;
  for (const auto& t : bf16) {
    if (!t.name.ends_with("_proj.weight")) {
      out.push_back(t);
      continue;
    }
    out.push_back({t.name, "F8_E4M3", t.shape});
    out.push_back({t.name + "_scale", "F8_E8M0", {t.shape[0], t.shape[1] / 32}});
  }
  return out;
}

TEST(QuantizationScales, f8_e8m0_scales_are_reported_apart_and_leave_n_and_the_total_unchanged) {
  const auto bf16 = hf::layout_for(tiny_moe());
  const auto mx = with_e8m0_scales(bf16);
  TempDir d;
  st::write_sharded(d / "bf16", bf16, st::split_evenly(bf16, 1));
  st::write_sharded(d / "mx", mx, st::split_evenly(mx, 2));
  ParamCount plain = count_from_checkpoint(d / "bf16", tiny_moe());
  ParamCount quantized = count_from_checkpoint(d / "mx", tiny_moe());
  // Per layer: q [64, 64], k, v [32, 64], o [64, 64], 4 experts × (gate, up [32, 64] + down [64, 32]): inputs of 64
  // give 2 scales per row, inputs of 32 give 1. q, o: 64 × 2 each; k, v: 32 × 2 each; experts: 4 × (2 × 32 × 2 + 64).
  const I per_layer = 2 * 64 * 2 + 2 * 32 * 2 + 4 * (2 * 32 * 2 + 64 * 1);
  EXPECT_EQ(per_layer, 1'152);
  ASSERT_TRUE(quantized.quantization_scales);
  EXPECT_EQ(quantized.quantization_scales->values, 2 * per_layer);
  EXPECT_EQ(quantized.quantization_scales->tensors, 2 * (4 + 4 * 3));
  EXPECT_EQ(plain.quantization_scales->tensors, 0);
  EXPECT_EQ(*quantized.total_params, *plain.total_params);  // the scales add nothing to the stored parameters
  EXPECT_EQ(quantized.n_active, plain.n_active);
  EXPECT_TRUE(compare_counts(quantized, count_from_config(tiny_moe())).empty());
  const std::string table = format_table(quantized, "mx");
  EXPECT_THAT(table, HasSubstr("quantization scales: 2,304 values in 32 tensors (not parameters"));
  EXPECT_THAT(format_table(plain, "bf16"), ::testing::Not(HasSubstr("quantization scales:")));
}

TEST(QuantizationScales, an_f8_e8m0_tensor_named_as_a_counted_weight_is_an_error) {
  auto tensors = hf::layout_for(tiny_moe());
  for (auto& t : tensors)
    if (t.name == "model.layers.1.mlp.experts.2.up_proj.weight") t.dtype = "F8_E8M0";
  TempDir d;
  st::write_sharded(d.path(), tensors, st::split_evenly(tensors, 1));
  const std::string e = count_error(d.path(), tiny_moe());
  EXPECT_THAT(e, HasSubstr("tensor 'model.layers.1.mlp.experts.2.up_proj.weight'"));
  EXPECT_THAT(e, HasSubstr("is F8_E8M0, but its name makes it a routed_expert weight"));
  EXPECT_THAT(e, HasSubstr("E8M0 holds exponents only"));
}

TEST(QuantizationScales, an_f8_e8m0_tensor_among_the_excluded_parts_is_still_a_scale) {
  // E8M0 can hold only powers of two: wherever it sits outside the counted weights it is a scale, so it leaves the
  // stored total (here under a norm's name).
  auto tensors = hf::layout_for(tiny_moe());
  for (auto& t : tensors)
    if (t.name == "model.norm.weight") t.dtype = "F8_E8M0";
  TempDir d;
  st::write_sharded(d.path(), tensors, st::split_evenly(tensors, 1));
  ParamCount pc = count_from_checkpoint(d.path(), tiny_moe());
  EXPECT_EQ(pc.quantization_scales->tensors, 1);
  EXPECT_EQ(pc.quantization_scales->values, 64);
  EXPECT_EQ(pc.of(ParamClass::norm).tensors, 2 * 4);  // the layers' norms (2 + q_norm, k_norm), not the final one
  I all = 0;
  for (const auto& t : tensors) all += elements(t);
  EXPECT_EQ(*pc.total_params, all - 64);
}

}  // namespace
}  // namespace openrecipes::params
