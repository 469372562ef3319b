// The shape of a transformer as the planner needs it (SPEC §7): the dimensions that size activations and the
// parameter totals that size weights, gradients and optimizer state. Read from a Hugging Face config.json (the same
// fields N is counted from, params/count.h) or from a Megatron-LM run's resolved-argument dump.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace openrecipes::layout {

/// Dimensions are element counts; parameter totals are elements over the whole model (every layer, every expert).
struct ModelShape {
  std::string name;  ///< what the shape was read from, for messages
  std::int64_t layers = 0, hidden = 0, vocab = 0;
  std::int64_t heads = 0, query_groups = 0;  ///< attention heads and key/value heads (query groups)
  std::int64_t head_dim = 0;                 ///< query/key channels per head (MLA: nope + rope)
  std::int64_t v_head_dim = 0;               ///< value channels per head (= head_dim but for MLA)
  bool mla = false;                          ///< multi-latent attention (DeepSeek-V3, Kimi-K2)
  bool tied = true;                          ///< output projection tied to the input embedding
  bool gated = true;                         ///< SwiGLU-style MLPs (fc1 doubled)
  std::int64_t ffn_hidden = 0;               ///< the dense layers' FFN width
  std::int64_t moe_layers = 0;               ///< layers with routed experts (the rest are dense)
  std::vector<bool> moe_layer;               ///< per layer, whether it has routed experts (empty: not known)
  std::int64_t experts = 0, top_k = 0, expert_ffn_hidden = 0, shared_ffn_hidden = 0;
  // Parameter totals (elements).
  std::int64_t attention_params = 0, dense_mlp_params = 0, shared_expert_params = 0, router_params = 0;
  std::int64_t expert_params = 0, norm_params = 0, embedding_params = 0;  ///< embedding: vocab × hidden, one copy
  std::int64_t position_params = 0;  ///< learned absolute position embeddings (max positions × hidden), else 0

  std::int64_t dense_layers() const { return layers - moe_layers; }
  /// Every parameter of the model: the embedding twice when the output projection is untied.
  std::int64_t total_params() const;
  /// N (SPEC §3, for MFU): attention, dense and shared-expert MLPs, routers, the output projection (tied or not) and
  /// the routed experts at top-k of the expert count; no input embedding, norms or positions. Throws InputError when
  /// the experts do not split evenly (params::routed_active).
  std::int64_t active_params() const;
};

/// `total` / `count`, 0 when `count` is 0: a parameter class's elements in one of the layers that has it.
inline double per_count(std::int64_t total, std::int64_t count) {
  return count > 0 ? double(total) / double(count) : 0.0;
}

/// Megatron-LM's default --make-vocab-size-divisible-by: the vocabulary is padded to a multiple of it × TP.
inline constexpr std::int64_t kVocabDivisibleBy = 128;

/// Megatron-LM's padded vocabulary (training/tokenizer _vocab_size_with_padding): `vocab` rounded up to a multiple of
/// `multiple` (make_vocab_size_divisible_by × TP; 1 or less: as it is). Padding a padded vocabulary again to a
/// multiple of its own multiple gives what padding the original would.
std::int64_t padded_vocab(std::int64_t vocab, std::int64_t multiple);

/// `m` with a vocabulary of `vocab` rows: its embedding (and untied output layer) grown or shrunk by the rows it gains
/// or loses. A run's dump holds the padded vocabulary; N (SPEC §3) is the model's own: `with_vocab(run, vocab_size)`.
ModelShape with_vocab(const ModelShape& m, std::int64_t vocab);

/// `m` trained at TP `tp`: its vocabulary padded to kVocabDivisibleBy × tp and its embedding (and untied output
/// layer) grown by the padded rows, as a Megatron-LM run holds them. N (active_params) is the model's own, unpadded:
/// take it from `m`.
ModelShape with_padded_vocab(const ModelShape& m, std::int64_t tp);

/// The shape of the Hugging Face config.json `config` (`source` names it in messages): the families params/count.h
/// counts (Llama, Qwen3, Qwen3 MoE, Qwen3-Next and Qwen3.5, DeepSeek-V3 and Kimi-K2, GLM-4.5, gpt-oss, Mixtral).
/// Parameter totals are count_from_config's classes; norms are 2 × hidden per layer plus the final norm. Linear-
/// attention layers (Qwen3-Next, Qwen3.5) are sized as full-attention layers (an upper bound). Throws InputError
/// for every error count_from_config throws.
ModelShape shape_from_config(const nlohmann::json& config, const std::string& source);

/// The shape a Megatron-LM run trained, from its argument dump (name → Python repr): num_layers, hidden_size,
/// ffn_hidden_size, num_attention_heads, num_query_groups (when group_query_attention), kv_channels,
/// padded_vocab_size, untie_embeddings_and_output_weights, swiglu, num_experts, moe_router_topk, moe_ffn_hidden_size,
/// moe_shared_expert_intermediate_size and moe_layer_freq (a number), and the MLA ranks when multi_latent_attention;
/// with position_embedding_type learned_absolute (Megatron's default), max_position_embeddings.
/// Parameter totals as Megatron's own theoretical_memory_usage.py counts them. Throws InputError naming `where` and
/// the argument when one it needs is missing or not a positive whole number.
ModelShape shape_from_arguments(const std::map<std::string, std::string>& args, const std::string& where);

/// Where a run's shape (shape_from_arguments of its argument dump) is not its model's (shape_from_config of the model
/// file's config.json), one sentence per field, naming both values: the layer count, hidden size, attention heads,
/// query groups, channels per head (query/key and value), multi-latent attention (its low ranks are not compared: the
/// config's count of a layer's attention holds what the dump's does not, a linear attention's or an indexer's), gated
/// MLPs, the dense layers (moe_layer_freq) and their FFN width, the routed experts, their top-k and
/// FFN width, the shared expert's width, and the vocabulary, both padded to `vocab_multiple` (Megatron-LM pads to
/// make_vocab_size_divisible_by × TP: a run that trained another vocabulary pads to another size). Empty when they
/// agree (SPEC §3: N and MFU are the model's only when the run trained the model).
std::vector<std::string> shape_differences(const ModelShape& model, const ModelShape& run, std::int64_t vocab_multiple);

}  // namespace openrecipes::layout
