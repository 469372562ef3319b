// rows_sha256 (SPEC §1.8): little-endian int32 bytes of every id, rows in order, through OpenSSL SHA-256.
#include "rows/output/rows_hash.h"

#include <bit>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace openrecipes::rows {

RowsHasher::RowsHasher(std::uint32_t row_length) : row_length_(row_length) {
  if (row_length == 0 || row_length > kMaxRowLength)
    throw std::invalid_argument(fmt::format("RowsHasher: row length {} is outside 1..{}", row_length, kMaxRowLength));
}

void RowsHasher::update(std::span<const std::int32_t> ids) {
  if (done_) throw std::logic_error("RowsHasher: rows added after hex()");
  if constexpr (std::endian::native == std::endian::little) {
    sha_.update(ids.data(), ids.size_bytes());
  } else {
    std::vector<unsigned char> le(ids.size() * 4);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const auto v = static_cast<std::uint32_t>(ids[i]);
      for (int b = 0; b < 4; ++b) le[4 * i + b] = static_cast<unsigned char>(v >> (8 * b));
    }
    sha_.update(le.data(), le.size());
  }
}

void RowsHasher::add_row(std::span<const std::int32_t> row) {
  if (row.size() != row_length_)
    throw std::invalid_argument(fmt::format("RowsHasher: a row of {} ids, expected {}", row.size(), row_length_));
  update(row);
  ++rows_;
}

void RowsHasher::add_rows(std::span<const std::int32_t> ids) {
  if (ids.size() % row_length_ != 0)
    throw std::invalid_argument(
        fmt::format("RowsHasher: {} ids is not a whole number of rows of {}", ids.size(), row_length_));
  update(ids);
  rows_ += ids.size() / row_length_;
}

std::string RowsHasher::hex() {
  done_ = true;
  return sha_.hex();
}

}  // namespace openrecipes::rows
