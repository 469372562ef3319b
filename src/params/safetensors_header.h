// Reads the header of one .safetensors file — the 8-byte little-endian length, the JSON table of tensors (dtype,
// shape, data_offsets) and `__metadata__` — without touching tensor data. Validates it as upstream
// huggingface/safetensors `read_metadata` does (SPEC §3: N comes from headers, never tensor data).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "params/dtype.h"

namespace openrecipes::params {

/// Upstream's limit on the JSON header: 100,000,000 bytes (safetensors MAX_HEADER_SIZE).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

/// One tensor as its header describes it.
struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<std::uint64_t> shape;  // row-major dimensions; empty for a scalar
  std::uint64_t elements = 1;        // product of `shape` (1 for a scalar, 0 when a dimension is 0)
  std::uint64_t begin = 0;           // data_offsets[0], bytes from the start of the data region
  std::uint64_t end = 0;             // data_offsets[1] (exclusive)
};

/// The header of one file.
struct SafetensorsHeader {
  std::filesystem::path file;
  std::uint64_t file_bytes = 0;                               // size of the file
  std::uint64_t header_bytes = 0;                             // N, the JSON header's length
  std::uint64_t data_bytes = 0;                               // file_bytes - 8 - N
  std::vector<TensorInfo> tensors;                            // sorted by name
  std::vector<std::pair<std::string, std::string>> metadata;  // `__metadata__`, sorted by key
};

/// Reads and validates the header of `file`. Reads 8 + N bytes, never the data region. Throws InputError naming the
/// file (and the tensor, where one is at fault) when: the file is missing, unreadable or shorter than 8 bytes; N is
/// over kMaxHeaderBytes or runs past the end of the file; the header is not a JSON object (position given); an entry
/// lacks dtype/shape/data_offsets or has other keys; a dtype is unknown; a shape or offset is not a non-negative
/// integer; shape × dtype overflows 64 bits or is not a whole number of bytes; a sub-byte tensor's last dimension
/// does not fill whole bytes (F4: odd; F6_E2M3, F6_E3M2: not a multiple of 4); data_offsets are reversed, out of
/// the data region, overlap another tensor's, leave a gap, or hold a byte count other than shape × dtype; the
/// tensors do not end exactly at the end of the file; `__metadata__` is not an object of strings.
SafetensorsHeader read_safetensors_header(const std::filesystem::path& file);

/// Validates header JSON text for a data region of `data_bytes` bytes, as read_safetensors_header does after reading
/// (messages name `where`). Exposed for tests and for callers holding the bytes already.
SafetensorsHeader parse_safetensors_header(std::string_view json_text, std::uint64_t data_bytes,
                                           const std::string& where);

}  // namespace openrecipes::params
