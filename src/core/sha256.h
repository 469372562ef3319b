// SHA-256 through OpenSSL's EVP interface: rows_sha256 (SPEC §1.8), patch and evidence digests.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace openrecipes {

/// Incremental SHA-256. update() any number of byte ranges, then hex() once (lowercase, 64 characters).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  /// Finishes the digest; calling update() afterwards is an error (std::logic_error).
  std::string hex();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// SHA-256 of `bytes` as 64 lowercase hex characters.
std::string sha256_hex(std::string_view bytes);

/// True when `s` is 64 lowercase hex characters.
bool is_sha256_hex(std::string_view s);

}  // namespace openrecipes
