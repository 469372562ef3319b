// Fuzz target: a checkpoint's safetensors headers (SPEC §3; params/checkpoint.h, params/count.h), N counted with
// Qwen3-0.6B's config. Input: 8 bytes (little-endian) giving the data region's size, then the header JSON; the file is
// written sparse (the data region is a hole), so headers that claim gigabytes cost nothing. An input that starts with
// '{' is a model.safetensors.index.json instead, over two fixed shards (model-00001/2-of-00002.safetensors).
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "params/count.h"

namespace {

using namespace openrecipes;
namespace fs = std::filesystem;

// A safetensors file: N, the header, and a sparse data region of `data_bytes`.
void write_sparse(const fs::path& path, std::string_view header, std::uint64_t data_bytes) {
  const std::uint64_t n = header.size();
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  fuzz::write_file(path, std::string(len, 8) + std::string(header));
  if (::truncate(path.c_str(), static_cast<off_t>(8 + n + data_bytes)) != 0) fuzz::finding("truncate failed");
}

// Qwen3-0.6B's config.json fields that N needs.
const nlohmann::json& qwen3_config() {
  static const nlohmann::json c =
      nlohmann::json::parse(R"({"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16,
    "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936, "tie_word_embeddings": true})");
  return c;
}

// Two shards for the index inputs: the embedding and layer 0's q_proj in one, the final norm in the other.
const fs::path& shard_folder() {
  static const fs::path dir = [] {
    fs::path d = fuzz::scratch() / "index";
    write_sparse(d / "model-00001-of-00002.safetensors",
                 R"({"model.embed_tokens.weight":{"dtype":"BF16","shape":[151936,1024],"data_offsets":[0,311164928]},)"
                 R"("model.layers.0.self_attn.q_proj.weight":{"dtype":"BF16","shape":[2048,1024],)"
                 R"("data_offsets":[311164928,315359232]}})",
                 315359232);
    write_sparse(d / "model-00002-of-00002.safetensors",
                 R"({"model.norm.weight":{"dtype":"BF16","shape":[1024],"data_offsets":[0,2048]}})", 2048);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 0 && data[0] == '{') {
    const fs::path index = shard_folder() / "model.safetensors.index.json";
    fuzz::write_file(index, fuzz::text(data, size));
    fuzz::expect_input_error_or_success([&] { params::count_from_checkpoint(index, qwen3_config()); });
    return 0;
  }
  if (size < 8) return 0;
  std::uint64_t data_bytes = 0;
  std::memcpy(&data_bytes, data, 8);
  data_bytes &= (std::uint64_t{1} << 40) - 1;  // at most 1 TiB of hole
  const fs::path file = fuzz::scratch() / "model.safetensors";
  write_sparse(file, fuzz::text(data + 8, size - 8), data_bytes);
  fuzz::expect_input_error_or_success([&] { params::count_from_checkpoint(file, qwen3_config()); });
  return 0;
}
