// Every architecture in ../shared/fixtures/configs: a checkpoint with the Hugging Face tensor names, dtypes and
// shapes is written (sparse), N is counted from its headers, and checked against the test's own per-layer arithmetic
// (and against count_from_config). Several models, Mixtral-8x22B (tests/params/configs) among them, also get a hand
// calculation with the numbers written out, and gpt-oss its stored totals with the quantization scales apart.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "hf_layouts.h"
#include "params/count.h"
#include "params/report.h"
#include "safetensors_writer.h"
#include "testing/param_name.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;
namespace st = testing::st;
namespace hf = testing::hf;
using json = nlohmann::json;
using I = std::int64_t;

json load_config(const std::string& model) {
  std::ifstream in(testing::fixtures_dir() / "configs" / model / "config.json");
  return json::parse(in);
}

// Configs kept with these tests (tests/params/configs/<model>/config.json, each with its SOURCE.txt).
json load_test_config(const std::string& model) {
  std::ifstream in(testing::source_dir() / "tests/params/configs" / model / "config.json");
  return json::parse(in);
}

// The test's own rule for a quantization scale (SPEC §3: left out of N, and not a parameter): a companion named
// <weight>.weight_scale_inv / .weight_scale / .weight_scale_2 / .input_scale / .k_scale / .v_scale, gpt-oss
// `*_scales`, or any tensor of dtype F8_E8M0 (exponents only).
bool is_scale(const st::Tensor& t) {
  if (t.dtype == "F8_E8M0" || t.name.ends_with("_scales")) return true;
  const std::string last = t.name.substr(t.name.rfind('.') + 1);
  for (const char* s : {"weight_scale_inv", "weight_scale", "weight_scale_2", "input_scale", "k_scale", "v_scale"})
    if (last == s) return true;
  return false;
}

I elements(const st::Tensor& t) {
  I n = 1;
  for (auto dim : t.shape) n *= static_cast<I>(dim);
  return n;
}

// ---- the test's own arithmetic, per architecture (SPEC §3) ----------------------------------------------------------
struct Expected {
  I attention = 0, dense_mlp = 0, shared_expert = 0, routed_all = 0, routed_active = 0, router = 0, output = 0;
  I n() const { return attention + dense_mlp + shared_expert + routed_active + router + output; }
};

I get(const json& c, const char* k) { return c.at(k).get<I>(); }
I get_or(const json& c, const char* k, I fallback) {
  return c.contains(k) && !c[k].is_null() ? c[k].get<I>() : fallback;
}

Expected hand_arithmetic(const json& root) {
  const std::string mt = root.at("model_type");
  const json& c = root.contains("text_config") ? root.at("text_config") : root;
  const I H = get(c, "hidden_size"), V = get(c, "vocab_size"), L = get(c, "num_hidden_layers");
  const I nh = get(c, "num_attention_heads");
  Expected x;
  x.output = V * H;  // lm_head, or the tied embedding counted once
  if (mt == "llama" || mt == "qwen3" || mt == "qwen3_moe" || mt == "glm4_moe" || mt == "gpt_oss" || mt == "mixtral") {
    // q: H -> heads × head_dim; k, v: H -> kv_heads × head_dim; o: heads × head_dim -> H.
    const I kv = get(c, "num_key_value_heads"), hd = get_or(c, "head_dim", H / nh);
    x.attention = L * (H * nh * hd + 2 * H * kv * hd + nh * hd * H);
  }
  if (mt == "llama" || mt == "qwen3") x.dense_mlp = L * 3 * H * get(c, "intermediate_size");  // gate, up, down
  if (mt == "qwen3_moe") {
    const I E = get(c, "num_experts"), k = get(c, "num_experts_per_tok"), mI = get(c, "moe_intermediate_size");
    x.router = L * E * H;
    x.routed_all = L * E * 3 * H * mI;
    x.routed_active = L * k * 3 * H * mI;
  }
  if (mt == "gpt_oss") {  // experts: gate_up [2I, H] + down [H, I] per expert, MXFP4 unpacked
    const I E = get(c, "num_local_experts"), k = get(c, "num_experts_per_tok"), Ie = get(c, "intermediate_size");
    x.router = L * E * H;
    x.routed_all = L * E * 3 * H * Ie;
    x.routed_active = L * k * 3 * H * Ie;
  }
  if (mt == "mixtral") {  // every layer: router [E, H]; experts w1, w3 [I, H] and w2 [H, I]; no shared experts
    const I E = get(c, "num_local_experts"), k = get(c, "num_experts_per_tok"), Ie = get(c, "intermediate_size");
    x.router = L * E * H;
    x.routed_all = L * E * 3 * H * Ie;
    x.routed_active = L * k * 3 * H * Ie;
  }
  if (mt == "qwen3_next" || mt.rfind("qwen3_5", 0) == 0) {
    // Full-attention layers: gated q (2 × heads × head_dim), k, v, o. Linear (gated DeltaNet) layers: q, k (2 × key
    // heads × key dim), v, z (2 × value heads × value dim), beta and alpha (2 × value heads), out.
    const I kv = get(c, "num_key_value_heads"), hd = get(c, "head_dim");
    const I key = get(c, "linear_num_key_heads") * get(c, "linear_key_head_dim");
    const I value = get(c, "linear_num_value_heads") * get(c, "linear_value_head_dim");
    const I nv = get(c, "linear_num_value_heads");
    I full = 0;
    for (I l = 0; l < L; ++l)
      full += c.contains("layer_types") ? c["layer_types"][l] == "full_attention"
                                        : (l + 1) % get(c, "full_attention_interval") == 0;
    x.attention = full * (H * 2 * nh * hd + 2 * H * kv * hd + nh * hd * H) +
                  (L - full) * (H * (2 * key + 2 * value) + H * 2 * nv + value * H);
    if (c.contains("num_experts")) {
      const I E = get(c, "num_experts"), k = get(c, "num_experts_per_tok"), mI = get(c, "moe_intermediate_size");
      const I sI = get(c, "shared_expert_intermediate_size");
      x.router = L * E * H;
      x.routed_all = L * E * 3 * H * mI;
      x.routed_active = L * k * 3 * H * mI;
      x.shared_expert = L * (3 * H * sI + H);  // shared expert MLP + its sigmoid gate [1, H]
    } else {
      x.dense_mlp = L * 3 * H * get(c, "intermediate_size");
    }
  }
  if (mt == "deepseek_v3" || mt == "kimi_k2" || mt == "deepseek_v32" || mt == "glm_moe_dsa") {
    // MLA: q_a [H -> q_lora], q_b [q_lora -> heads × (nope + rope)], kv_a [H -> kv_lora + rope],
    // kv_b [kv_lora -> heads × (nope + v)], o [heads × v -> H]; indexer: wq_b, wk, weights_proj.
    const I ql = get(c, "q_lora_rank"), kvl = get(c, "kv_lora_rank"), nope = get(c, "qk_nope_head_dim");
    const I rope = get(c, "qk_rope_head_dim"), vd = get(c, "v_head_dim");
    I per_layer = H * ql + ql * nh * (nope + rope) + H * (kvl + rope) + kvl * nh * (nope + vd) + nh * vd * H;
    if (c.contains("index_n_heads"))
      per_layer += ql * get(c, "index_n_heads") * get(c, "index_head_dim") + H * get(c, "index_head_dim") +
                   H * get(c, "index_n_heads");
    x.attention = L * per_layer;
  }
  if (mt == "deepseek_v3" || mt == "kimi_k2" || mt == "deepseek_v32" || mt == "glm_moe_dsa" || mt == "glm4_moe") {
    const I dense = get(c, "first_k_dense_replace"), moe = L - dense;
    const I E = get(c, "n_routed_experts"), k = get(c, "num_experts_per_tok"), mI = get(c, "moe_intermediate_size");
    x.dense_mlp = dense * 3 * H * get(c, "intermediate_size");
    x.router = moe * E * H;
    x.routed_all = moe * E * 3 * H * mI;
    x.routed_active = moe * k * 3 * H * mI;
    x.shared_expert = moe * get(c, "n_shared_experts") * 3 * H * mI;
  }
  return x;
}

void expect_matches(const ParamCount& pc, const Expected& x, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(pc.of(ParamClass::attention).active, x.attention);
  EXPECT_EQ(pc.of(ParamClass::dense_mlp).active, x.dense_mlp);
  EXPECT_EQ(pc.of(ParamClass::shared_expert).active, x.shared_expert);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).params, x.routed_all);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).active, x.routed_active);
  EXPECT_EQ(pc.of(ParamClass::router).active, x.router);
  EXPECT_EQ(pc.of(ParamClass::output_projection).active, x.output);
  EXPECT_EQ(pc.n_active, x.n());
}

// Writes `config`'s checkpoint into `dir` (about 2,000 tensors per shard) and counts it.
ParamCount count_written(const json& config, const fs::path& dir) {
  auto tensors = hf::layout_for(config);
  st::write_sharded(dir, tensors, st::split_evenly(tensors, std::max<std::size_t>(1, tensors.size() / 2000)));
  return count_from_checkpoint(dir, config);
}

class EveryFixtureModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryFixtureModel, n_from_headers_matches_hand_arithmetic_and_config_arithmetic) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const json config = load_config(GetParam());
  TempDir d;
  ParamCount headers = count_written(config, d.path());
  expect_matches(headers, hand_arithmetic(config), GetParam() + " from headers");
  ParamCount arithmetic = count_from_config(config);
  expect_matches(arithmetic, hand_arithmetic(config), GetParam() + " from config.json");
  EXPECT_TRUE(compare_counts(headers, arithmetic).empty());
  // Nothing stored is lost or counted twice: the stored total is every non-scale tensor's element count, with FP4
  // (U8 MXFP4 blocks and NVFP4 weights) at two values per byte; the quantization scales (SPEC §3: not parameters)
  // are summed apart, as stored.
  I stored = 0, scale_values = 0, scale_tensors = 0;
  for (const auto& t : hf::layout_for(config)) {
    const I n = elements(t);
    if (is_scale(t)) {
      scale_values += n;
      ++scale_tensors;
      continue;
    }
    const bool fp4 = t.dtype == "U8" && (t.name.ends_with("_blocks") || t.name.ends_with(".weight"));
    stored += fp4 ? 2 * n : n;
  }
  EXPECT_EQ(*headers.total_params, stored);
  ASSERT_TRUE(headers.quantization_scales);
  EXPECT_EQ(headers.quantization_scales->values, scale_values);
  EXPECT_EQ(headers.quantization_scales->tensors, scale_tensors);
  EXPECT_EQ(headers.of(ParamClass::quantization_scale).params, scale_values);
  EXPECT_EQ(headers.of(ParamClass::quantization_scale).tensors, scale_tensors);
  EXPECT_EQ(headers.tensors, static_cast<I>(hf::layout_for(config).size()));
}

INSTANTIATE_TEST_SUITE_P(Configs, EveryFixtureModel,
                         ::testing::Values("Llama-3.1-8B", "Llama-3.1-70B", "Llama-3.1-405B", "Qwen3-0.6B", "Qwen3-8B",
                                           "Qwen3-32B", "Qwen3-30B-A3B", "Qwen3-235B-A22B",
                                           "Qwen3-235B-A22B-Instruct-2507_InferSim", "Qwen3-Next-80B-A3B",
                                           "Qwen3.5-27B", "Qwen3.5-35B-A3B", "Qwen3.5-122B-A10B-FP8",
                                           "Qwen3.5-397B-A17B", "Qwen3.6-27B-NVFP4", "Qwen3.6-35B-A3B", "DeepSeek-V3",
                                           "DeepSeek-R1", "DeepSeek-V3.2", "DeepSeek-V3.2-Exp", "Kimi-K2-Instruct",
                                           "GLM-4.5-Air", "GLM-4.7-FP8_aiconfigurator-trimmed", "GLM-5", "gpt-oss-20b",
                                           "gpt-oss-120b"),
                         testing::param_name);

// ---- hand calculations with the numbers written out -----------------------------------------------------------------

TEST(ModelsByHand, qwen3_0_6b_is_595_984_384_with_the_tied_output_counted_once) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 28 layers × (q 1024→16×128 + k, v 1024→8×128 + o 2048→1024 + MLP 3 × 1024 × 3072) + output 151936 × 1024 (tied).
  const I layer = 1024 * 2048 + 2 * 1024 * 1024 + 2048 * 1024 + 3 * 1024 * 3072;
  const I n = 28 * layer + 151936 * 1024;
  EXPECT_EQ(n, 595'984'384);
  TempDir d;
  ParamCount pc = count_written(load_config("Qwen3-0.6B"), d.path());
  EXPECT_EQ(pc.n_active, n);
  EXPECT_TRUE(pc.output_tied);
  EXPECT_EQ(pc.of(ParamClass::output_projection).tensors, 0);  // no lm_head.weight in a tied checkpoint
  EXPECT_EQ(pc.of(ParamClass::embedding).params, 151936 * 1024);
  EXPECT_EQ(pc.of(ParamClass::norm).params, 28 * (2 * 1024 + 2 * 128) + 1024);  // excluded
}

TEST(ModelsByHand, qwen3_30b_a3b_counts_8_of_128_experts) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 48 layers. Attention: q 2048→32×128, k,v 2048→4×128, o 4096→2048. Router 128×2048.
  // Experts: 8 of 128, each gate, up 2048→768 and down 768→2048. Output 151936×2048 (untied).
  const I attention = 48 * (2048 * 4096 + 2 * 2048 * 512 + 4096 * 2048);
  const I router = 48 * 128 * 2048;
  const I experts = I{48} * 8 * (3 * 2048 * 768);
  const I output = 151936 * 2048;
  EXPECT_EQ(attention, 905'969'664);
  EXPECT_EQ(experts, 1'811'939'328);
  TempDir d;
  ParamCount pc = count_written(load_config("Qwen3-30B-A3B"), d.path());
  EXPECT_EQ(pc.of(ParamClass::attention).active, attention);
  EXPECT_EQ(pc.of(ParamClass::router).active, router);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).active, experts);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).params, I{48} * 128 * (3 * 2048 * 768));
  EXPECT_EQ(pc.of(ParamClass::output_projection).active, output);
  EXPECT_EQ(pc.n_active, 3'041'656'832);
  EXPECT_EQ(pc.n_active, attention + router + experts + output);
  // Qwen's "30.5B in total": every stored parameter — all 128 experts, the embedding 151936×2048 and the norms
  // (48 × (2 × 2048 + q_norm, k_norm 2 × 128) + final 2048) on top of the counted classes.
  const I stored =
      attention + router + I{48} * 128 * (3 * 2048 * 768) + output + 151936 * 2048 + 48 * (2 * 2048 + 2 * 128) + 2048;
  EXPECT_EQ(stored, 30'532'122'624);
  EXPECT_EQ(*pc.total_params, stored);
}

TEST(ModelsByHand, deepseek_v3_counts_mla_dense_shared_and_8_of_256_experts_without_mtp) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 61 layers of MLA: q_a 7168→1536, q_b 1536→128×192, kv_a 7168→576, kv_b 512→128×256, o 128×128→7168.
  const I mla = 7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168;
  // 3 dense layers (3 × 7168 × 18432); 58 MoE layers: router 256×7168, 1 shared + 8 of 256 routed experts of
  // 3 × 7168 × 2048. Output 129280 × 7168. Layer 61 (MTP) is left out.
  const I dense = I{3} * 3 * 7168 * 18432;
  const I router = 58 * 256 * 7168;
  const I shared = I{58} * 3 * 7168 * 2048;
  const I routed = I{58} * 8 * 3 * 7168 * 2048;
  const I output = 129280 * 7168;
  TempDir d;
  ParamCount pc = count_written(load_config("DeepSeek-V3"), d.path());
  EXPECT_EQ(pc.of(ParamClass::attention).active, 61 * mla);
  EXPECT_EQ(pc.of(ParamClass::dense_mlp).active, dense);
  EXPECT_EQ(pc.of(ParamClass::router).active, router);
  EXPECT_EQ(pc.of(ParamClass::shared_expert).active, shared);
  EXPECT_EQ(pc.of(ParamClass::routed_expert).active, routed);
  EXPECT_EQ(pc.of(ParamClass::output_projection).active, output);
  EXPECT_EQ(pc.n_active, 61 * mla + dense + router + shared + routed + output);
  EXPECT_EQ(pc.n_active, 36'624'596'992);
  EXPECT_GT(pc.of(ParamClass::mtp).params, 0);
  EXPECT_GT(pc.of(ParamClass::quantization_scale).tensors, 0);  // FP8 weight_scale_inv companions, left out
}

TEST(ModelsByHand, qwen3_next_counts_linear_attention_gated_attention_and_10_of_512_experts) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 48 layers, every 4th full attention (12): q 2048→2×16×256 (gated), k,v 2048→2×256, o 4096→2048.
  const I full = 2048 * 8192 + 2 * 2048 * 512 + 4096 * 2048;
  // 36 gated DeltaNet layers: qkvz 2048→(2×16×128 + 2×32×128), ba 2048→64, out 4096→2048 (conv1d left out).
  const I linear = 2048 * 12288 + 2048 * 64 + 4096 * 2048;
  // MoE on every layer: router 512×2048; 10 of 512 experts of 3×2048×512; shared expert 3×2048×512 + gate 2048.
  const I router = I{48} * 512 * 2048, routed = I{48} * 10 * 3 * 2048 * 512, shared = I{48} * (3 * 2048 * 512 + 2048);
  const I output = 151936 * 2048;
  TempDir d;
  ParamCount pc = count_written(load_config("Qwen3-Next-80B-A3B"), d.path());
  EXPECT_EQ(pc.of(ParamClass::attention).active, 12 * full + 36 * linear);
  EXPECT_EQ(pc.n_active, 12 * full + 36 * linear + router + routed + shared + output);
  EXPECT_EQ(pc.n_active, 3'562'373'120);
  EXPECT_EQ(pc.of(ParamClass::elementwise).params, 36 * (8192 * 4 + 32));  // conv1d and A_log
}

TEST(ModelsByHand, gpt_oss_120b_unpacks_mxfp4_and_counts_4_of_128_experts) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 36 layers: q 2880→64×64, k,v 2880→8×64, o 4096→2880; router 128×2880;
  // 4 of 128 experts, each gate_up 2880→2×2880 and down 2880→2880 (MXFP4 blocks: 2 values per byte); output
  // 201088×2880.
  const I attention = 36 * (2880 * 4096 + 2 * 2880 * 512 + 4096 * 2880);
  const I router = 36 * 128 * 2880;
  const I routed = I{36} * 4 * (2880 * 5760 + 2880 * 2880);
  const I output = 201088 * 2880;
  TempDir d;
  ParamCount pc = count_written(load_config("gpt-oss-120b"), d.path());
  EXPECT_EQ(pc.n_active, attention + router + routed + output);
  EXPECT_EQ(pc.n_active, 5'131'100'160);
  // Sinks (64 per layer) are elementwise; q/k/v/o, router and expert biases are biases.
  EXPECT_EQ(pc.of(ParamClass::elementwise).params, 36 * 64);
  EXPECT_EQ(pc.of(ParamClass::bias).params, 36 * (4096 + 512 + 512 + 2880 + 128 + 128 * 5760 + 128 * 2880));
}

TEST(ModelsByHand, gpt_oss_20b_real_index_gives_3_6_b_and_its_total_size) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const fs::path dir = testing::fixtures_dir() / "configs" / "gpt-oss-20b";
  const json config = load_config("gpt-oss-20b");
  json index = json::parse(std::ifstream(dir / "model.safetensors.index.json"));
  std::map<std::string, std::string> shard_of = index.at("weight_map").get<std::map<std::string, std::string>>();
  auto tensors = hf::layout_for(config);
  ASSERT_EQ(tensors.size(), shard_of.size());  // the real index lists exactly the layout's 459 tensors
  for (const auto& t : tensors) ASSERT_TRUE(shard_of.count(t.name)) << t.name;
  TempDir d;
  const std::uint64_t bytes = st::write_sharded(d.path(), tensors, shard_of);
  EXPECT_EQ(bytes, index.at("metadata").at("total_size").get<std::uint64_t>());  // 13,761,264,768
  ParamCount pc = count_from_checkpoint(d.path(), config);
  EXPECT_EQ(pc.shards, 3);
  // 24 × (attention 2880×4096 + 2×2880×512 + 4096×2880 + router 32×2880 + 4 × (2880×5760 + 2880×2880)) + 201088×2880
  const I n = I{24} * (2880 * 4096 + 2 * 2880 * 512 + 4096 * 2880 + 32 * 2880 + 4 * (2880 * 5760 + 2880 * 2880)) +
              201088 * 2880;
  EXPECT_EQ(pc.n_active, n);
  EXPECT_EQ(pc.n_active, 3'607'142'400);
}

// gpt-oss stored parameters by hand, for L layers of E experts (hidden 2880; 64 query and 8 KV heads of 64; vocab
// 201088). Per layer: q [4096, 2880], k, v [512, 2880], o [2880, 4096] and their biases 4096 + 2 × 512 + 2880; sinks
// 64; two norms 2 × 2880; router [E, 2880] and its bias E; experts as MXFP4 blocks, U8 at two FP4 values per byte:
// gate_up [E, 5760, 90, 16] -> E × 5760 × 2880 values and down [E, 2880, 90, 16] -> E × 2880 × 2880, with biases
// [E, 5760] and [E, 2880]. Then the embedding and lm_head [201088, 2880] and the final norm 2880.
I gpt_oss_stored(I L, I E) {
  const I attention = 4096 * 2880 + 2 * 512 * 2880 + 2880 * 4096 + (4096 + 2 * 512 + 2880);
  const I experts = E * 5760 * 90 * 16 * 2 + E * 2880 * 90 * 16 * 2 + E * 5760 + E * 2880;
  const I layer = attention + 64 + 2 * 2880 + E * 2880 + E + experts;
  return L * layer + 2 * I{201088} * 2880 + 2880;
}
// Its quantization scales: one E8M0 exponent (stored as U8) per block of 32 values, gate_up [E, 5760, 90] and down
// [E, 2880, 90] per layer. Not parameters.
I gpt_oss_scales(I L, I E) { return L * (E * 5760 * 90 + E * 2880 * 90); }

TEST(ModelsByHand, gpt_oss_20b_stores_20_914_757_184_parameters_and_597_196_800_scale_values) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 24 layers of 32 experts. huggingface.js's safetensors parser gives the same 20,914,757,184; counting the scales
  // too would give 21,511,953,984.
  const I stored = gpt_oss_stored(24, 32), scales = gpt_oss_scales(24, 32);
  EXPECT_EQ(stored, 20'914'757'184);
  EXPECT_EQ(scales, 597'196'800);
  EXPECT_EQ(stored + scales, 21'511'953'984);
  TempDir d;
  ParamCount pc = count_written(load_config("gpt-oss-20b"), d.path());
  EXPECT_EQ(*pc.total_params, stored);
  ASSERT_TRUE(pc.quantization_scales);
  EXPECT_EQ(pc.quantization_scales->values, scales);
  EXPECT_EQ(pc.quantization_scales->tensors, 24 * 2);  // gate_up_proj_scales and down_proj_scales per layer
  const auto j = to_json(pc, "ckpt");
  EXPECT_EQ(j["total_params"], stored);
  EXPECT_EQ(j["quantization_scales"]["values"], scales);
  EXPECT_EQ(j["quantization_scales"]["tensors"], 48);
  const std::string table = format_table(pc, "ckpt");
  EXPECT_THAT(table, ::testing::HasSubstr("stored parameters (FP4 unpacked): 20,914,757,184 (20.91 B)"));
  EXPECT_THAT(table, ::testing::HasSubstr("quantization scales: 597,196,800 values in 48 tensors (not parameters"));
}

TEST(ModelsByHand, gpt_oss_120b_stores_116_829_156_672_parameters_and_3_583_180_800_scale_values) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 36 layers of 128 experts (counting the scales too would give 120,412,337,472).
  const I stored = gpt_oss_stored(36, 128), scales = gpt_oss_scales(36, 128);
  EXPECT_EQ(stored, 116'829'156'672);
  EXPECT_EQ(scales, 3'583'180'800);
  EXPECT_EQ(stored + scales, 120'412'337'472);
  TempDir d;
  ParamCount pc = count_written(load_config("gpt-oss-120b"), d.path());
  EXPECT_EQ(*pc.total_params, stored);
  ASSERT_TRUE(pc.quantization_scales);
  EXPECT_EQ(pc.quantization_scales->values, scales);
  EXPECT_EQ(pc.quantization_scales->tensors, 36 * 2);
}

TEST(ModelsByHand, mixtral_8x22b_counts_2_of_8_experts_from_headers_and_config_alike) {
  // 56 layers. Attention (GQA, head_dim 6144 / 48 = 128): q 6144×6144, k, v 6144→8×128 = 6144×1024 each,
  // o 6144×6144. Router 8×6144. Experts: 2 of 8, each w1, w3 [16384, 6144] and w2 [6144, 16384] = 3×6144×16384.
  // No shared experts, no dense MLP. Output lm_head 32768×6144, untied (the embedding is left out).
  const I attention = 6144 * 6144 + 2 * 6144 * 1024 + 6144 * 6144;
  const I router = 8 * 6144;
  const I expert = 3 * 6144 * 16384;
  const I output = 32768 * 6144;
  EXPECT_EQ(attention, 88'080'384);
  EXPECT_EQ(expert, 301'989'888);
  const I n = 56 * (attention + router + 2 * expert) + output;
  // N = 56 × 692,109,312 + 201,326,592 = 38,959,448,064 (published: ~39B active).
  EXPECT_EQ(n, 38'959'448'064);
  // Stored: every expert, the embedding 32768×6144, two norms per layer and the final norm (published: ~141B).
  const I stored = 56 * (attention + router + 8 * expert + 2 * 6144) + 2 * output + 6144;
  EXPECT_EQ(stored, 140'630'071'296);

  const json config = load_test_config("Mixtral-8x22B");
  TempDir d;
  ParamCount headers = count_written(config, d.path());
  ParamCount arithmetic = count_from_config(config);
  for (const ParamCount* pc : {&headers, &arithmetic}) {
    SCOPED_TRACE(pc->source);
    EXPECT_EQ(pc->n_active, n);
    EXPECT_EQ(pc->of(ParamClass::attention).active, 56 * attention);
    EXPECT_EQ(pc->of(ParamClass::router).active, 56 * router);
    EXPECT_EQ(pc->of(ParamClass::routed_expert).params, 56 * 8 * expert);
    EXPECT_EQ(pc->of(ParamClass::routed_expert).active, 56 * 2 * expert);
    EXPECT_EQ(pc->of(ParamClass::shared_expert).params, 0);
    EXPECT_EQ(pc->of(ParamClass::dense_mlp).params, 0);
    EXPECT_EQ(pc->of(ParamClass::output_projection).active, output);
    EXPECT_FALSE(pc->output_tied);
    EXPECT_EQ(*pc->top_k, 2);
    EXPECT_EQ(*pc->num_experts, 8);
  }
  expect_matches(headers, hand_arithmetic(config), "Mixtral-8x22B from headers");
  EXPECT_TRUE(compare_counts(headers, arithmetic).empty());
  EXPECT_EQ(*headers.total_params, stored);
  EXPECT_EQ(headers.quantization_scales->tensors, 0);
  EXPECT_EQ(headers.tensors, 56 * (2 + 4 + 1 + 8 * 3) + 3);
  EXPECT_EQ(headers.of(ParamClass::routed_expert).example, "model.layers.0.block_sparse_moe.experts.0.w1.weight");
}

// ---- configs that cannot count a MoE checkpoint ---------------------------------------------------------------------

std::string count_error(const fs::path& dir, const json& config) {
  return testing::message_of([&] { count_from_checkpoint(dir, config); });
}

TEST(ModelsMoeFields, a_config_without_the_moe_fields_a_moe_checkpoint_needs_is_an_error) {
  OPENRECIPES_REQUIRE_FIXTURES();
  json config = load_config("Qwen3-30B-A3B");
  TempDir d;
  auto tensors = hf::layout_for(config);
  st::write_sharded(d.path(), tensors, st::split_evenly(tensors, 4));
  json no_k = config;
  no_k.erase("num_experts_per_tok");
  EXPECT_THAT(count_error(d.path(), no_k),
              ::testing::AllOf(::testing::HasSubstr("config.json: num_experts_per_tok: missing"),
                               ::testing::HasSubstr("model.layers.0.mlp.experts.0.down_proj.weight")));
  json no_e = config;
  no_e.erase("num_experts");
  EXPECT_THAT(count_error(d.path(), no_e), ::testing::HasSubstr("config.json: num_experts: missing"));
  json fewer = config;
  fewer["num_experts"] = 64;
  EXPECT_THAT(count_error(d.path(), fewer),
              ::testing::HasSubstr("expert index 100 is past config.json num_experts 64"));
  json dense = config;
  dense["model_type"] = "qwen3";
  EXPECT_THAT(count_error(d.path(), dense), ::testing::HasSubstr("no rule for model_type qwen3 classes this tensor"));
}

TEST(ModelsMoeFields, infersim_renamed_deepseek_config_is_refused_with_the_reason) {
  OPENRECIPES_REQUIRE_FIXTURES();
  try {
    count_from_config(load_config("DeepSeek-V3_InferSim-modified"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr("n_routed_experts: missing"));
    EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr("num_routed_experts (InferSim renames"));
  }
}

TEST(ModelsMoeFields, a_layer_missing_experts_is_an_error_naming_it) {
  OPENRECIPES_REQUIRE_FIXTURES();
  json config = load_config("Qwen3-30B-A3B");
  auto tensors = hf::layout_for(config);
  std::erase_if(tensors, [](const st::Tensor& t) { return t.name.rfind("model.layers.7.mlp.experts.5.", 0) == 0; });
  TempDir d;
  st::write_sharded(d.path(), tensors, st::split_evenly(tensors, 2));
  EXPECT_THAT(count_error(d.path(), config),
              ::testing::HasSubstr("layer 7 down_proj: has 127 of the 128 routed experts"));
}

TEST(ModelsMoeFields, a_mixtral_checkpoint_missing_an_expert_or_its_lm_head_is_an_error) {
  const json config = load_test_config("Mixtral-8x22B");
  json small = config;  // same names, small shapes
  small["hidden_size"] = 64;
  small["intermediate_size"] = 32;
  small["num_attention_heads"] = 8;
  small["num_hidden_layers"] = 2;
  small["vocab_size"] = 100;
  auto tensors = hf::layout_for(small);
  auto no_expert = tensors;
  std::erase_if(no_expert, [](const st::Tensor& t) {
    return t.name.starts_with("model.layers.1.block_sparse_moe.experts.3.w2.");
  });
  TempDir d;
  st::write_sharded(d / "a", no_expert, st::split_evenly(no_expert, 1));
  EXPECT_THAT(count_error(d / "a", small), ::testing::HasSubstr("layer 1 w2: has 7 of the 8 routed experts"));
  auto no_head = tensors;
  std::erase_if(no_head, [](const st::Tensor& t) { return t.name == "lm_head.weight"; });
  st::write_sharded(d / "b", no_head, st::split_evenly(no_head, 1));
  EXPECT_THAT(count_error(d / "b", small), ::testing::HasSubstr("tie_word_embeddings is false"));
}

}  // namespace
}  // namespace openrecipes::params
