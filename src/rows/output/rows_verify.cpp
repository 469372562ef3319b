// rows verify (SPEC §1.8): stream the first R rows of rows.parquet through RowsHasher and compare with a recipe.
#include "rows/output/rows_verify.h"

#include <algorithm>
#include <cctype>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sha256.h"
#include "rows/output/rows_hash.h"
#include "rows/output/rows_reader.h"

namespace openrecipes::rows {

RowsDigest hash_rows_file(const std::filesystem::path& path, std::optional<std::uint64_t> rows,
                          std::uint32_t expected_row_length, unsigned threads,
                          const std::vector<std::uint64_t>& prefixes) {
  RowsParquetReader reader(path, expected_row_length, threads);
  RowsDigest d;
  d.rows_in_file = reader.row_count();
  const std::uint64_t want = rows.value_or(reader.row_count());
  if (want > reader.row_count())
    throw InputError(
        path.string(), fmt::format("the file has {} rows, fewer than the {} to verify", reader.row_count(), want),
        "build at least that many rows (openrecipes rows build --rows R), or check the recipe's rows.count");
  for (auto p : prefixes)
    if (p == 0 || p > want) throw std::invalid_argument("hash_rows_file: a prefix must be 1..the rows hashed");
  std::optional<RowsHasher> hasher;
  std::vector<std::optional<RowsHasher>> prefix_hashers(prefixes.size());  // one per prefix, fed while it lasts
  std::span<const std::int32_t> row;
  while (d.rows < want && reader.next(row)) {
    if (!hasher) hasher.emplace(reader.row_length());
    hasher->add_row(row);
    for (std::size_t k = 0; k < prefixes.size(); ++k) {
      if (d.rows >= prefixes[k]) continue;
      if (!prefix_hashers[k]) prefix_hashers[k].emplace(reader.row_length());
      prefix_hashers[k]->add_row(row);
    }
    ++d.rows;
  }
  if (d.rows < want)
    throw InputError(path.string(), fmt::format("the file has {} rows, fewer than the {} to verify", d.rows, want),
                     "build the rows again");
  d.row_length = reader.row_length();
  d.sha256 = hasher ? hasher->hex() : sha256_hex("");
  for (auto& h : prefix_hashers) d.prefix_sha256.push_back(h->hex());
  return d;
}

RowsVerdict verify_rows_file(const std::filesystem::path& path, std::uint64_t rows, std::string_view expected_sha256,
                             std::uint32_t expected_row_length, unsigned threads) {
  std::string expected(expected_sha256);
  std::transform(expected.begin(), expected.end(), expected.begin(), [](unsigned char c) { return std::tolower(c); });
  if (!is_sha256_hex(expected))
    throw InputError("--sha256", fmt::format("'{}' is not a SHA-256 (64 hex characters)", expected_sha256),
                     "copy rows.sha256 from the recipe");
  if (rows == 0) throw InputError("--rows", "the row count is 0", "give the recipe's rows.count (at least 1)");
  RowsVerdict v;
  v.expected_sha256 = expected;
  v.digest = hash_rows_file(path, rows, expected_row_length, threads);
  v.match = v.digest.sha256 == expected;
  v.message = v.match ? fmt::format("{}: the first {} rows (L = {}) match sha256 {}", path.string(), rows,
                                    v.digest.row_length, expected)
                      : fmt::format(
                            "{}: the first {} rows (L = {}) hash to {}, expected {} (the rows differ from the "
                            "recorded ones: rebuild them with the recorded tokenizer, seed and row length)",
                            path.string(), rows, v.digest.row_length, v.digest.sha256, expected);
  return v;
}

}  // namespace openrecipes::rows
