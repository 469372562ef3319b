// The parts of a Hugging Face config.json that counting N needs: the architecture family (by model_type), the text
// model's fields (nested under text_config in multimodal configs), MoE top-k and expert count, MTP layout, tied
// output and FP4 packing (SPEC §3: "plus config.json (top-k, expert count, MTP layout)").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace openrecipes::params {

/// Architecture families with counting rules. Each covers the model_type values listed.
enum class Family {
  llama,        // llama (Llama 3.1)
  qwen3,        // qwen3 (dense)
  qwen3_moe,    // qwen3_moe
  qwen3_next,   // qwen3_next (gated DeltaNet linear attention + gated attention, MoE, mtp.*)
  qwen3_5,      // qwen3_5, qwen3_5_moe, qwen3_5_text, qwen3_5_moe_text (Qwen3.5, Qwen3.6; text_config, visual, mtp.*)
  deepseek_v3,  // deepseek_v3, kimi_k2; with the sparse-attention indexer: deepseek_v32, glm_moe_dsa (GLM-5)
  glm4_moe,     // glm4_moe (GLM-4.5, GLM-4.6, GLM-4.7)
  gpt_oss,      // gpt_oss
  mixtral,      // mixtral (Mixtral 8x7B, 8x22B: GQA, block_sparse_moe experts w1/w3/w2, no shared experts)
};

/// Bounds on the counts config.json gives, far above any released model (the deepest has 126 layers, the widest
/// MoE 512 experts): counting loops over the layers and keeps a bit per expert of each layer's projections, so a
/// hostile count must stop before it costs hours or gigabytes (docs/limits.md).
inline constexpr std::int64_t kMaxLayers = 4096;
inline constexpr std::int64_t kMaxExperts = 65536;

/// A parsed config.json. Field reads throw InputError naming `source` and the field.
class ModelConfig {
 public:
  /// Reads `config` (the parsed config.json; `source` names it in messages). Throws InputError when it is not an
  /// object, has no model_type, or its model_type has no counting rules (the message lists the known ones).
  static ModelConfig from_json(const nlohmann::json& config, std::string source = "config.json");

  const std::string& source() const { return source_; }
  const std::string& model_type() const { return model_type_; }
  Family family() const { return family_; }
  /// True for DeepSeek-V3.2 and GLM-5 (index_n_heads, index_head_dim: the sparse-attention indexer).
  bool has_indexer() const { return indexer_; }
  /// True when the model has routed experts (Qwen3 MoE, Qwen3-Next, Qwen3.5/3.6 MoE, DeepSeek, Kimi, GLM, gpt-oss,
  /// Mixtral).
  bool has_experts() const { return experts_; }

  /// The text model's fields: text_config when present (Qwen3.5/3.6), else the root.
  const nlohmann::json& text() const;
  /// Integer field of text(), falling back to the root. Throws InputError when missing, null, not an integer, negative
  /// or over 2^40 (no architecture field is that large).
  std::int64_t require_int(std::string_view key) const;
  /// As require_int, but nullopt when missing or null.
  std::optional<std::int64_t> find_int(std::string_view key) const;
  /// Boolean field of text() or the root; `fallback` when missing or null. Throws InputError for another type.
  bool find_bool(std::string_view key, bool fallback) const;

  /// num_hidden_layers; throws InputError naming the field when over kMaxLayers.
  std::int64_t num_layers() const;
  /// MTP layers: num_nextn_predict_layers (DeepSeek, Kimi, GLM) or mtp_num_hidden_layers (Qwen3.5); 0 when absent;
  /// throws InputError when over kMaxLayers.
  std::int64_t mtp_layers() const;
  /// tie_word_embeddings (text_config, then root; transformers' default true when absent).
  bool tie_word_embeddings() const { return find_bool("tie_word_embeddings", true); }
  /// True when quantization_config declares 4-bit float weights stored two per byte in U8 tensors: quant_method
  /// mxfp4 (gpt-oss), NVIDIA ModelOpt NVFP4 (quant_algo or quantized_layers naming FP4, or a 4-bit float config
  /// group), or compressed-tensors nvfp4-pack-quantized.
  bool fp4_two_per_byte() const;

  /// Name of the expert-count field for this family: num_experts (Qwen), n_routed_experts (DeepSeek, Kimi, GLM),
  /// num_local_experts (gpt-oss, Mixtral).
  std::string_view experts_field() const;
  /// Routed experts per MoE layer; throws InputError naming the field when missing (with a hint for configs that
  /// renamed it, e.g. InferSim's num_routed_experts), 0 or over kMaxExperts.
  std::int64_t num_experts() const;
  /// True when layer `i` (0-based) has routed experts rather than a dense MLP: Qwen3 MoE, Qwen3-Next and Qwen3.5
  /// every decoder_sparse_step-th layer not in mlp_only_layers; DeepSeek and GLM from first_k_dense_replace on, every
  /// moe_layer_freq-th; gpt-oss and Mixtral every layer; false for every layer of a model without experts.
  bool is_moe_layer(std::int64_t i) const;
  /// Top-k: num_experts_per_tok (gpt-oss also experts_per_token); throws InputError when missing or > num_experts.
  std::int64_t top_k() const;

 private:
  /// Refuses hidden_size, num_hidden_layers, num_attention_heads or num_key_value_heads of 0, and key/value heads
  /// that are more than, or do not divide, the attention heads (InputError naming the field).
  void check_shape() const;
  nlohmann::json json_;
  std::string source_;
  std::string model_type_;
  Family family_ = Family::llama;
  bool indexer_ = false;
  bool experts_ = false;
  bool nested_ = false;
};

}  // namespace openrecipes::params
