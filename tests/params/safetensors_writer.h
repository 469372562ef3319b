// Test support: writes real safetensors files (valid headers, 8-byte aligned as upstream pads them) whose data region
// is a hole made with ftruncate, so a 600 GB checkpoint costs one header of disk; plus sharded checkpoints with their
// model.safetensors.index.json. The test's own writer, independent of src/params' reader.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace openrecipes::testing::st {

/// One tensor to write: name, dtype string as in the header, shape.
struct Tensor {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
};

/// Bits per element of a header dtype string (the test's own table of the safetensors format).
inline std::uint64_t bits_of(const std::string& dtype) {
  static const std::map<std::string, std::uint64_t> bits{
      {"BOOL", 8},    {"F4", 4},      {"F6_E2M3", 6},     {"F6_E3M2", 6},    {"U8", 8},   {"I8", 8},
      {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8},     {"I16", 16},       {"U16", 16}, {"F16", 16},
      {"BF16", 16},   {"I32", 32},    {"U32", 32},        {"F32", 32},       {"C64", 64}, {"F64", 64},
      {"I64", 64},    {"U64", 64},    {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}};
  auto it = bits.find(dtype);
  if (it == bits.end()) throw std::runtime_error("test writer: unknown dtype " + dtype);
  return it->second;
}

inline std::uint64_t bytes_of(const Tensor& t) {
  std::uint64_t n = 1;
  for (auto d : t.shape) n *= d;
  return n * bits_of(t.dtype) / 8;
}

/// Writes `bytes` then extends the file to `total` bytes with a hole.
inline void write_sparse(const std::filesystem::path& path, const std::string& bytes, std::uint64_t total) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("test writer: cannot create " + path.string());
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error("test writer: write failed for " + path.string());
    }
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd, static_cast<off_t>(total)) != 0) {
    ::close(fd);
    throw std::runtime_error("test writer: ftruncate failed for " + path.string());
  }
  ::close(fd);
}

/// A file made of an explicit 8-byte length, then `header` text, then `data_bytes` of hole: for malformed headers.
inline void write_raw(const std::filesystem::path& path, std::uint64_t declared_length, const std::string& header,
                      std::uint64_t data_bytes) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((declared_length >> (8 * i)) & 0xff);
  bytes += header;
  write_sparse(path, bytes, bytes.size() + data_bytes);
}

/// The header JSON for `tensors`, offsets laid out contiguously in the given order, padded with spaces to a multiple
/// of 8 bytes (as upstream `serialize` does). Returns {header text, data bytes}.
inline std::pair<std::string, std::uint64_t> header_for(const std::vector<Tensor>& tensors,
                                                        const std::map<std::string, std::string>& metadata) {
  std::string h = "{";
  bool first = true;
  if (!metadata.empty()) {
    h += "\"__metadata__\":" + nlohmann::json(metadata).dump();
    first = false;
  }
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    std::uint64_t n = bytes_of(t);
    std::string shape;
    for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape[i]);
    h += fmt::format("{}{}:{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}", first ? "" : ",",
                     nlohmann::json(t.name).dump(), t.dtype, shape, offset, offset + n);
    first = false;
    offset += n;
  }
  h += "}";
  while (h.size() % 8 != 0) h += ' ';
  return {h, offset};
}

/// Writes one safetensors file holding `tensors` with a sparse data region. Returns the data region's size.
inline std::uint64_t write_safetensors(const std::filesystem::path& path, const std::vector<Tensor>& tensors,
                                       const std::map<std::string, std::string>& metadata = {{"format", "pt"}}) {
  auto [header, data] = header_for(tensors, metadata);
  write_raw(path, header.size(), header, data);
  return data;
}

/// Writes `tensors` into shards following `shard_of` (tensor name -> shard file name) plus
/// model.safetensors.index.json with metadata.total_size. Returns the total data bytes.
inline std::uint64_t write_sharded(const std::filesystem::path& dir, const std::vector<Tensor>& tensors,
                                   const std::map<std::string, std::string>& shard_of) {
  std::filesystem::create_directories(dir);
  std::map<std::string, std::vector<Tensor>> shards;
  for (const auto& t : tensors) shards[shard_of.at(t.name)].push_back(t);
  std::uint64_t total = 0;
  for (const auto& [file, list] : shards) total += write_safetensors(dir / file, list);
  nlohmann::json index;
  index["metadata"]["total_size"] = total;
  index["weight_map"] = shard_of;
  write_sparse(dir / "model.safetensors.index.json", index.dump(2), index.dump(2).size());
  return total;
}

/// Splits `tensors` in order into `shard_count` shards named model-0000i-of-0000n.safetensors.
inline std::map<std::string, std::string> split_evenly(const std::vector<Tensor>& tensors, std::size_t shard_count) {
  std::map<std::string, std::string> out;
  const std::size_t per = (tensors.size() + shard_count - 1) / shard_count;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    out[tensors[i].name] = fmt::format("model-{:05d}-of-{:05d}.safetensors", i / per + 1, shard_count);
  return out;
}

}  // namespace openrecipes::testing::st
