// Test support: the tensor names, dtypes and shapes of the Hugging Face checkpoints of each fixture architecture,
// generated from a config.json (Llama 3.1, Qwen3 dense/MoE, Qwen3-Next, Qwen3.5/3.6 BF16/FP8/NVFP4 with vision tower
// and MTP, DeepSeek-V3/R1/V3.2, Kimi-K2, GLM-4.5/4.7, GLM-5, gpt-oss, Mixtral). The test's own description of those
// layouts, written from the public checkpoints' index files and loaders, independent of src/params' rules.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "safetensors_writer.h"

namespace openrecipes::testing::hf {

using st::Tensor;
using U = std::uint64_t;

/// How a linear layer's weight is stored.
enum class Quant { bf16, fp8_block, modelopt_fp8, modelopt_nvfp4 };

class Builder {
 public:
  std::vector<Tensor> tensors;

  void vec(const std::string& name, U n, const std::string& dtype = "BF16") { tensors.push_back({name, dtype, {n}}); }
  void raw(const std::string& name, const std::string& dtype, std::vector<U> shape) {
    tensors.push_back({name, dtype, std::move(shape)});
  }
  // nn.Linear(in, out): weight [out, in], plus its quantization companions.
  void lin(const std::string& module, U out, U in, Quant q = Quant::bf16, bool bias = false) {
    switch (q) {
      case Quant::bf16:
        raw(module + ".weight", "BF16", {out, in});
        break;
      case Quant::fp8_block:  // DeepSeek/Qwen FP8: 128×128 blocks, scale_inv in F32
        raw(module + ".weight", "F8_E4M3", {out, in});
        raw(module + ".weight_scale_inv", "F32", {(out + 127) / 128, (in + 127) / 128});
        break;
      case Quant::modelopt_fp8:  // per-tensor weight and input scales
        raw(module + ".weight", "F8_E4M3", {out, in});
        raw(module + ".weight_scale", "F32", {});
        raw(module + ".input_scale", "F32", {});
        break;
      case Quant::modelopt_nvfp4:  // two E2M1 values per byte, FP8 scale per 16, global F32 scale
        raw(module + ".weight", "U8", {out, in / 2});
        raw(module + ".weight_scale", "F8_E4M3", {out, in / 16});
        raw(module + ".weight_scale_2", "F32", {});
        break;
    }
    if (bias) vec(module + ".bias", out);
  }
  // A layer's two RMSNorms and its GQA attention (`nh` query heads, `kv` key/value heads of `hd`, hidden H) under
  // prefix `p` ("model.layers.N."), q/k/v/o with biases when `bias`.
  void norms_and_gqa(const std::string& p, U H, U nh, U kv, U hd, bool bias = false) {
    vec(p + "input_layernorm.weight", H);
    vec(p + "post_attention_layernorm.weight", H);
    lin(p + "self_attn.q_proj", nh * hd, H, Quant::bf16, bias);
    lin(p + "self_attn.k_proj", kv * hd, H, Quant::bf16, bias);
    lin(p + "self_attn.v_proj", kv * hd, H, Quant::bf16, bias);
    lin(p + "self_attn.o_proj", H, nh * hd, Quant::bf16, bias);
  }
};

inline U num(const nlohmann::json& c, const char* key) { return c.at(key).get<U>(); }
inline U num_or(const nlohmann::json& c, const char* key, U fallback) {
  return c.contains(key) && !c.at(key).is_null() ? c.at(key).get<U>() : fallback;
}
inline bool flag_or(const nlohmann::json& c, const char* key, bool fallback) {
  return c.contains(key) && !c.at(key).is_null() ? c.at(key).get<bool>() : fallback;
}

// ---- Llama 3.1, Qwen3 (dense and MoE) ----------------------------------------------------------------------------
inline std::vector<Tensor> llama_qwen3(const nlohmann::json& c) {
  const std::string mt = c.at("model_type");
  const U H = num(c, "hidden_size"), V = num(c, "vocab_size"), L = num(c, "num_hidden_layers");
  const U nh = num(c, "num_attention_heads"), kv = num(c, "num_key_value_heads");
  const U hd = num_or(c, "head_dim", H / nh);
  Builder b;
  b.raw("model.embed_tokens.weight", "BF16", {V, H});
  for (U l = 0; l < L; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    b.norms_and_gqa(p, H, nh, kv, hd);
    if (mt != "llama") {
      b.vec(p + "self_attn.q_norm.weight", hd);
      b.vec(p + "self_attn.k_norm.weight", hd);
    }
    if (mt == "qwen3_moe") {
      const U E = num(c, "num_experts"), mI = num(c, "moe_intermediate_size");
      b.lin(p + "mlp.gate", E, H);
      for (U e = 0; e < E; ++e) {
        const std::string x = fmt::format("{}mlp.experts.{}.", p, e);
        b.lin(x + "gate_proj", mI, H);
        b.lin(x + "up_proj", mI, H);
        b.lin(x + "down_proj", H, mI);
      }
    } else {
      const U I = num(c, "intermediate_size");
      b.lin(p + "mlp.gate_proj", I, H);
      b.lin(p + "mlp.up_proj", I, H);
      b.lin(p + "mlp.down_proj", H, I);
    }
  }
  b.vec("model.norm.weight", H);
  if (!flag_or(c, "tie_word_embeddings", true)) b.raw("lm_head.weight", "BF16", {V, H});
  return b.tensors;
}

// ---- Qwen3-Next and Qwen3.5 / Qwen3.6 (gated DeltaNet + gated attention) -----------------------------------------
struct HybridQuant {                    // how each module of a Qwen3.5/3.6 checkpoint is stored
  std::string method;                   // "", "fp8", "modelopt"
  std::set<std::string> not_converted;  // fp8: modules_to_not_convert
  nlohmann::json quantized_layers;      // modelopt: module -> {quant_algo}
  Quant of(const std::string& module) const {
    if (method == "fp8") return not_converted.count(module) ? Quant::bf16 : Quant::fp8_block;
    if (method == "modelopt" && quantized_layers.contains(module)) {
      const std::string algo = quantized_layers.at(module).at("quant_algo");
      return algo.find("NVFP4") != std::string::npos ? Quant::modelopt_nvfp4 : Quant::modelopt_fp8;
    }
    return Quant::bf16;
  }
};

inline std::vector<Tensor> qwen_hybrid(const nlohmann::json& root) {
  const std::string mt = root.at("model_type");
  const bool next = mt == "qwen3_next";
  const nlohmann::json& c = root.contains("text_config") ? root.at("text_config") : root;
  const std::string pre = next ? "model." : "model.language_model.";
  const U H = num(c, "hidden_size"), V = num(c, "vocab_size"), L = num(c, "num_hidden_layers");
  const U nh = num(c, "num_attention_heads"), kv = num(c, "num_key_value_heads"), hd = num(c, "head_dim");
  const U nk = num(c, "linear_num_key_heads"), nv = num(c, "linear_num_value_heads");
  const U dk = num(c, "linear_key_head_dim"), dv = num(c, "linear_value_head_dim");
  const U K = num(c, "linear_conv_kernel_dim");
  const bool moe = c.contains("num_experts");
  HybridQuant hq;
  if (root.contains("quantization_config")) {
    const auto& q = root.at("quantization_config");
    hq.method = q.at("quant_method").get<std::string>();
    if (q.contains("modules_to_not_convert"))
      for (const auto& m : q.at("modules_to_not_convert")) hq.not_converted.insert(m.get<std::string>());
    if (q.contains("quantized_layers")) hq.quantized_layers = q.at("quantized_layers");
  }
  const bool fused_experts = hq.method.empty() && !next;  // Qwen3.5/3.6 BF16 stack experts; FP8 and Qwen3-Next do not
  Builder b;
  auto full_layer = [&](U l) {
    if (c.contains("layer_types")) return c.at("layer_types").at(l).get<std::string>() == "full_attention";
    return (l + 1) % num(c, "full_attention_interval") == 0;
  };
  auto layer = [&](const std::string& p, bool full, bool mtp) {
    auto lin = [&](const std::string& m, U out, U in) { b.lin(p + m, out, in, mtp ? Quant::bf16 : hq.of(p + m)); };
    auto lin_fp8ok = [&](const std::string& m, U out, U in) {  // MTP layers of FP8 checkpoints are FP8 too
      b.lin(p + m, out, in, hq.method == "fp8" ? hq.of(p + m) : (mtp ? Quant::bf16 : hq.of(p + m)));
    };
    b.vec(p + "input_layernorm.weight", H);
    b.vec(p + "post_attention_layernorm.weight", H);
    if (full) {
      lin_fp8ok("self_attn.q_proj", nh * hd * 2, H);  // query and output gate
      lin_fp8ok("self_attn.k_proj", kv * hd, H);
      lin_fp8ok("self_attn.v_proj", kv * hd, H);
      lin_fp8ok("self_attn.o_proj", H, nh * hd);
      b.vec(p + "self_attn.q_norm.weight", hd);
      b.vec(p + "self_attn.k_norm.weight", hd);
      if (hq.method == "modelopt" && !mtp) {  // FP8 KV cache scales
        b.raw(p + "self_attn.k_proj.k_scale", "F32", {});
        b.raw(p + "self_attn.v_proj.v_scale", "F32", {});
      }
    } else {
      if (next) {
        lin("linear_attn.in_proj_qkvz", 2 * nk * dk + 2 * nv * dv, H);
        lin("linear_attn.in_proj_ba", 2 * nv, H);
      } else {
        lin("linear_attn.in_proj_qkv", 2 * nk * dk + nv * dv, H);
        lin("linear_attn.in_proj_z", nv * dv, H);
        lin("linear_attn.in_proj_b", nv, H);
        lin("linear_attn.in_proj_a", nv, H);
      }
      b.raw(p + "linear_attn.conv1d.weight", "BF16", {2 * nk * dk + nv * dv, 1, K});
      b.vec(p + "linear_attn.dt_bias", nv);
      b.vec(p + "linear_attn.A_log", nv, "F32");
      b.vec(p + "linear_attn.norm.weight", dv, "F32");
      lin("linear_attn.out_proj", H, nv * dv);
    }
    if (!moe) {
      const U I = num(c, "intermediate_size");
      lin("mlp.gate_proj", I, H);
      lin("mlp.up_proj", I, H);
      lin("mlp.down_proj", H, I);
      return;
    }
    const U E = num(c, "num_experts"), mI = num(c, "moe_intermediate_size");
    const U sI = num(c, "shared_expert_intermediate_size");
    b.lin(p + "mlp.gate", E, H);
    if (fused_experts) {
      b.raw(p + "mlp.experts.gate_up_proj", "BF16", {E, 2 * mI, H});
      b.raw(p + "mlp.experts.down_proj", "BF16", {E, H, mI});
    } else {
      for (U e = 0; e < E; ++e) {
        const std::string x = fmt::format("mlp.experts.{}.", e);
        lin_fp8ok(x + "gate_proj", mI, H);
        lin_fp8ok(x + "up_proj", mI, H);
        lin_fp8ok(x + "down_proj", H, mI);
      }
    }
    lin_fp8ok("mlp.shared_expert.gate_proj", sI, H);
    lin_fp8ok("mlp.shared_expert.up_proj", sI, H);
    lin_fp8ok("mlp.shared_expert.down_proj", H, sI);
    b.lin(p + "mlp.shared_expert_gate", 1, H);
  };
  b.raw(pre + "embed_tokens.weight", "BF16", {V, H});
  for (U l = 0; l < L; ++l) layer(fmt::format("{}layers.{}.", pre, l), full_layer(l), false);
  b.vec(pre + "norm.weight", H);
  b.lin("lm_head", V, H, hq.of("lm_head"));
  // Multi-token prediction module.
  b.lin("mtp.fc", H, 2 * H);
  b.vec("mtp.pre_fc_norm_embedding.weight", H);
  b.vec("mtp.pre_fc_norm_hidden.weight", H);
  b.vec("mtp.norm.weight", H);
  layer("mtp.layers.0.", true, true);
  // Vision tower (Qwen3.5/3.6 are image-text models).
  if (root.contains("vision_config")) {
    const auto& v = root.at("vision_config");
    const U vh = num(v, "hidden_size"), vi = num(v, "intermediate_size"), depth = num(v, "depth");
    const U patch = num(v, "patch_size"), tp = num(v, "temporal_patch_size"), merge = num(v, "spatial_merge_size");
    const U merged = vh * merge * merge;
    b.raw("model.visual.patch_embed.proj.weight", "BF16", {vh, num(v, "in_channels"), tp, patch, patch});
    b.vec("model.visual.patch_embed.proj.bias", vh);
    b.raw("model.visual.pos_embed.weight", "BF16", {num(v, "num_position_embeddings"), vh});
    for (U d = 0; d < depth; ++d) {
      const std::string p = fmt::format("model.visual.blocks.{}.", d);
      for (const char* n : {"norm1", "norm2"}) {
        b.vec(p + n + ".weight", vh);
        b.vec(p + n + ".bias", vh);
      }
      b.lin(p + "attn.qkv", 3 * vh, vh, Quant::bf16, true);
      b.lin(p + "attn.proj", vh, vh, Quant::bf16, true);
      b.lin(p + "mlp.linear_fc1", vi, vh, Quant::bf16, true);
      b.lin(p + "mlp.linear_fc2", vh, vi, Quant::bf16, true);
    }
    b.vec("model.visual.merger.norm.weight", vh);
    b.vec("model.visual.merger.norm.bias", vh);
    b.lin("model.visual.merger.linear_fc1", merged, merged, Quant::bf16, true);
    b.lin("model.visual.merger.linear_fc2", num(v, "out_hidden_size"), merged, Quant::bf16, true);
  }
  return b.tensors;
}

// ---- DeepSeek-V3 / R1 / V3.2, Kimi-K2, GLM-5 (MLA), GLM-4.5 / 4.7 (GQA) -------------------------------------------
inline std::vector<Tensor> deepseek_glm(const nlohmann::json& c) {
  const std::string mt = c.at("model_type");
  const bool mla = mt != "glm4_moe";
  const bool indexer = mt == "deepseek_v32" || mt == "glm_moe_dsa";
  const Quant q = c.contains("quantization_config") ? Quant::fp8_block : Quant::bf16;
  const U H = num(c, "hidden_size"), V = num(c, "vocab_size"), L = num(c, "num_hidden_layers");
  const U nh = num(c, "num_attention_heads"), I = num(c, "intermediate_size");
  const U E = num(c, "n_routed_experts"), mI = num(c, "moe_intermediate_size");
  const U shared = num_or(c, "n_shared_experts", 0), first_dense = num_or(c, "first_k_dense_replace", 0);
  const U mtp = num_or(c, "num_nextn_predict_layers", 0);
  Builder b;
  b.raw("model.embed_tokens.weight", "BF16", {V, H});
  for (U l = 0; l < L + mtp; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    b.vec(p + "input_layernorm.weight", H);
    b.vec(p + "post_attention_layernorm.weight", H);
    if (mla) {
      const U ql = num(c, "q_lora_rank"), kvl = num(c, "kv_lora_rank");
      const U nope = num(c, "qk_nope_head_dim"), rope = num(c, "qk_rope_head_dim"), vd = num(c, "v_head_dim");
      b.lin(p + "self_attn.q_a_proj", ql, H, q);
      b.vec(p + "self_attn.q_a_layernorm.weight", ql);
      b.lin(p + "self_attn.q_b_proj", nh * (nope + rope), ql, q);
      b.lin(p + "self_attn.kv_a_proj_with_mqa", kvl + rope, H, q);
      b.vec(p + "self_attn.kv_a_layernorm.weight", kvl);
      b.lin(p + "self_attn.kv_b_proj", nh * (nope + vd), kvl, q);
      b.lin(p + "self_attn.o_proj", H, nh * vd, q);
      if (indexer) {
        const U ih = num(c, "index_n_heads"), id = num(c, "index_head_dim");
        b.lin(p + "self_attn.indexer.wq_b", ih * id, ql, q);
        b.lin(p + "self_attn.indexer.wk", id, H, q);
        b.vec(p + "self_attn.indexer.k_norm.weight", id);
        b.vec(p + "self_attn.indexer.k_norm.bias", id);
        b.lin(p + "self_attn.indexer.weights_proj", ih, H);  // kept in BF16
      }
    } else {
      const U kv = num(c, "num_key_value_heads"), hd = num_or(c, "head_dim", H / nh);
      const bool bias = flag_or(c, "attention_bias", true);
      b.lin(p + "self_attn.q_proj", nh * hd, H, q, bias);
      b.lin(p + "self_attn.k_proj", kv * hd, H, q, bias);
      b.lin(p + "self_attn.v_proj", kv * hd, H, q, bias);
      b.lin(p + "self_attn.o_proj", H, nh * hd, q);
      if (flag_or(c, "use_qk_norm", false)) {
        b.vec(p + "self_attn.q_norm.weight", hd);
        b.vec(p + "self_attn.k_norm.weight", hd);
      }
    }
    if (l < first_dense) {
      b.lin(p + "mlp.gate_proj", I, H, q);
      b.lin(p + "mlp.up_proj", I, H, q);
      b.lin(p + "mlp.down_proj", H, I, q);
    } else {
      b.lin(p + "mlp.gate", E, H);  // router stays BF16
      b.vec(p + "mlp.gate.e_score_correction_bias", E, "F32");
      for (U e = 0; e < E; ++e) {
        const std::string x = fmt::format("{}mlp.experts.{}.", p, e);
        b.lin(x + "gate_proj", mI, H, q);
        b.lin(x + "up_proj", mI, H, q);
        b.lin(x + "down_proj", H, mI, q);
      }
      if (shared > 0) {
        b.lin(p + "mlp.shared_experts.gate_proj", shared * mI, H, q);
        b.lin(p + "mlp.shared_experts.up_proj", shared * mI, H, q);
        b.lin(p + "mlp.shared_experts.down_proj", H, shared * mI, q);
      }
    }
    if (l >= L) {  // the MTP module's own parts
      b.vec(p + "enorm.weight", H);
      b.vec(p + "hnorm.weight", H);
      b.lin(p + "eh_proj", H, 2 * H);
      b.vec(p + "shared_head.norm.weight", H);
      if (mla) {
        b.raw(p + "embed_tokens.weight", "BF16", {V, H});
        b.raw(p + "shared_head.head.weight", "BF16", {V, H});
      }
    }
  }
  b.vec("model.norm.weight", H);
  b.raw("lm_head.weight", "BF16", {V, H});
  return b.tensors;
}

// ---- gpt-oss (MXFP4 experts) -------------------------------------------------------------------------------------
inline std::vector<Tensor> gpt_oss(const nlohmann::json& c) {
  const U H = num(c, "hidden_size"), V = num(c, "vocab_size"), L = num(c, "num_hidden_layers");
  const U nh = num(c, "num_attention_heads"), kv = num(c, "num_key_value_heads"), hd = num(c, "head_dim");
  const U E = num(c, "num_local_experts"), I = num(c, "intermediate_size");
  Builder b;
  b.raw("model.embed_tokens.weight", "BF16", {V, H});
  for (U l = 0; l < L; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    b.norms_and_gqa(p, H, nh, kv, hd, true);
    b.vec(p + "self_attn.sinks", nh);
    b.lin(p + "mlp.router", E, H, Quant::bf16, true);
    // MXFP4: 32 values per block, 16 bytes per block, one E8M0 scale byte per block.
    b.raw(p + "mlp.experts.gate_up_proj_blocks", "U8", {E, 2 * I, H / 32, 16});
    b.raw(p + "mlp.experts.gate_up_proj_scales", "U8", {E, 2 * I, H / 32});
    b.raw(p + "mlp.experts.gate_up_proj_bias", "BF16", {E, 2 * I});
    b.raw(p + "mlp.experts.down_proj_blocks", "U8", {E, H, I / 32, 16});
    b.raw(p + "mlp.experts.down_proj_scales", "U8", {E, H, I / 32});
    b.raw(p + "mlp.experts.down_proj_bias", "BF16", {E, H});
  }
  b.vec("model.norm.weight", H);
  b.raw("lm_head.weight", "BF16", {V, H});
  return b.tensors;
}

// ---- Mixtral (every layer sparse: block_sparse_moe router and experts w1, w3, w2; untied lm_head) ----------------
inline std::vector<Tensor> mixtral(const nlohmann::json& c) {
  const U H = num(c, "hidden_size"), V = num(c, "vocab_size"), L = num(c, "num_hidden_layers");
  const U nh = num(c, "num_attention_heads"), kv = num(c, "num_key_value_heads");
  const U hd = num_or(c, "head_dim", H / nh);
  const U E = num(c, "num_local_experts"), I = num(c, "intermediate_size");
  Builder b;
  b.raw("model.embed_tokens.weight", "BF16", {V, H});
  for (U l = 0; l < L; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    b.norms_and_gqa(p, H, nh, kv, hd);
    b.lin(p + "block_sparse_moe.gate", E, H);  // router [E, H]
    for (U e = 0; e < E; ++e) {
      const std::string x = fmt::format("{}block_sparse_moe.experts.{}.", p, e);
      b.lin(x + "w1", I, H);  // gate
      b.lin(x + "w3", I, H);  // up
      b.lin(x + "w2", H, I);  // down
    }
  }
  b.vec("model.norm.weight", H);
  if (!flag_or(c, "tie_word_embeddings", false)) b.raw("lm_head.weight", "BF16", {V, H});  // MixtralConfig: untied
  return b.tensors;
}

/// The checkpoint layout for `config` (dispatch on model_type).
/// A small Qwen3 MoE config.json (2 layers, 4 experts, top-2, untied embeddings) for tests that count N.
inline nlohmann::json tiny_qwen3_moe() {
  return {{"model_type", "qwen3_moe"},
          {"hidden_size", 32},
          {"vocab_size", 100},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"head_dim", 8},
          {"intermediate_size", 64},
          {"moe_intermediate_size", 16},
          {"num_experts", 4},
          {"num_experts_per_tok", 2},
          {"tie_word_embeddings", false}};
}

inline std::vector<Tensor> layout_for(const nlohmann::json& config) {
  const std::string mt = config.at("model_type");
  if (mt == "llama" || mt == "qwen3" || mt == "qwen3_moe") return llama_qwen3(config);
  if (mt == "qwen3_next" || mt.rfind("qwen3_5", 0) == 0) return qwen_hybrid(config);
  if (mt == "gpt_oss") return gpt_oss(config);
  if (mt == "mixtral") return mixtral(config);
  return deepseek_glm(config);
}

}  // namespace openrecipes::testing::hf
