// Hashing and verifying a rows file (SPEC §1.8): rows_sha256 of the first R rows of a rows.parquet, compared with
// what a recipe records (`rows: {count: R, sha256}`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::rows {

/// rows_sha256 of a prefix of a rows file.
struct RowsDigest {
  std::uint64_t rows = 0;                  ///< rows hashed
  std::uint32_t row_length = 0;            ///< L (0 when no row was hashed)
  std::string sha256;                      ///< SPEC §1.8, 64 lowercase hex
  std::uint64_t rows_in_file = 0;          ///< from the parquet footer
  std::vector<std::string> prefix_sha256;  ///< rows_sha256 of the first prefixes[i] rows, when asked for
};

/// Hashes the first `rows` rows of `path` (all rows when nullopt), reading no further than needed, and in the same
/// read the rows_sha256 of the first `prefixes[i]` rows for each count given (each 1..the rows hashed).
/// `expected_row_length` 0: L is the first row's length. Throws InputError for what RowsParquetReader refuses, and
/// when the file holds fewer than `rows` rows (the message names both counts); std::invalid_argument for a prefix
/// of 0 or more than the rows hashed.
RowsDigest hash_rows_file(const std::filesystem::path& path, std::optional<std::uint64_t> rows = std::nullopt,
                          std::uint32_t expected_row_length = 0, unsigned threads = 0,
                          const std::vector<std::uint64_t>& prefixes = {});

/// The outcome of verify.
struct RowsVerdict {
  bool match = false;
  RowsDigest digest;
  std::string expected_sha256;
  /// One line for the user, e.g. "rows.parquet: the first 128 rows match sha256 3f2a..." or
  /// "rows.parquet: the first 128 rows hash to 3f2a..., expected 9b1c... (the rows differ from the recorded ones:
  /// ...)".
  std::string message;
};

/// Verifies that the first `rows` rows of `path` hash to `expected_sha256` (a mismatch is a verdict, not an error).
/// Throws InputError when `expected_sha256` is not 64 hex characters (upper case is accepted), when `rows` is 0,
/// and for everything hash_rows_file throws, including a file with fewer than `rows` rows.
RowsVerdict verify_rows_file(const std::filesystem::path& path, std::uint64_t rows, std::string_view expected_sha256,
                             std::uint32_t expected_row_length = 0, unsigned threads = 0);

}  // namespace openrecipes::rows
