// Opens a Hugging Face checkpoint — a folder, its model.safetensors.index.json, or one .safetensors file — and reads
// the headers of every shard it names (SPEC §3: N is counted from the checkpoint's safetensors headers).
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "params/safetensors_header.h"

namespace openrecipes::params {

/// A tensor of a checkpoint: its header entry and the shard it lives in.
struct CheckpointTensor {
  const TensorInfo* info = nullptr;
  std::size_t shard = 0;  // index into Checkpoint::shards
};

/// Every shard header of one checkpoint. Move-only: `tensors` points into `shards`.
struct Checkpoint {
  Checkpoint() = default;
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;
  Checkpoint(Checkpoint&&) = default;
  Checkpoint& operator=(Checkpoint&&) = default;

  std::filesystem::path index;            // the index file read; empty for a single .safetensors file
  std::vector<SafetensorsHeader> shards;  // sorted by file name
  std::vector<CheckpointTensor> tensors;  // every tensor (each once): in shard order, by name within a shard
};

/// Name of the index Hugging Face writes next to sharded checkpoints.
inline constexpr const char* kIndexFileName = "model.safetensors.index.json";

/// Opens `path`:
///  - a folder: its model.safetensors.index.json when present, else its model.safetensors, else its only
///    *.safetensors file;
///  - a .json file: an index (`weight_map`: tensor name -> shard file name in the same folder);
///  - any other file: one .safetensors file.
/// Reads only headers. With an index, every tensor it lists must be in the shard it names and every tensor of
/// every shard must be listed. Throws InputError (naming the file and the tensor) for a missing path, a folder
/// with no safetensors or several without an index, an index that is not JSON or has no weight_map object, a shard
/// name that leaves the folder, a shard that is missing, a tensor missing from its shard or not in the index, a
/// tensor in two shards, and every header error of read_safetensors_header.
Checkpoint open_checkpoint(const std::filesystem::path& path);

}  // namespace openrecipes::params
