// rows_sha256 (SPEC §1.8): SHA-256 of the row-major concatenation of rows' token ids as little-endian int32,
// computed incrementally so the writer reports it without re-reading and verify streams it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/protocol.h"
#include "core/sha256.h"

namespace openrecipes::rows {

/// Longest row any rows file may have (core/protocol.h).
using protocol::kMaxRowLength;

/// Incremental rows_sha256 over rows of one length L. Feed rows in order, then hex() once.
class RowsHasher {
 public:
  /// `row_length` is L (1..kMaxRowLength; std::invalid_argument otherwise).
  explicit RowsHasher(std::uint32_t row_length);
  /// Adds one row (exactly L ids; std::invalid_argument otherwise).
  void add_row(std::span<const std::int32_t> row);
  /// Adds `ids.size() / L` whole rows given back to back (the size must be a multiple of L).
  void add_rows(std::span<const std::int32_t> ids);
  std::uint64_t rows() const { return rows_; }
  std::uint32_t row_length() const { return row_length_; }
  /// The digest, 64 lowercase hex characters. Finishes the hasher (add_row afterwards throws std::logic_error).
  std::string hex();

 private:
  void update(std::span<const std::int32_t> ids);
  Sha256 sha_;
  std::uint32_t row_length_;
  std::uint64_t rows_ = 0;
  bool done_ = false;
};

}  // namespace openrecipes::rows
