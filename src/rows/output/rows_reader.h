// rows.parquet reader (SPEC §1.7–1.8): streams the rows of a rows file in order through DuckDB, checking the
// schema (exactly one column `input_ids: list<int32>`) and that every row has the same length L.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>

namespace openrecipes::rows {

/// Reads rows.parquet row by row.
///
/// Errors (InputError naming the file, and the row where it applies, with the fix): a missing file, a file that
/// is not parquet or is damaged, a schema other than one column `input_ids` of type list<int32> (the columns
/// found are listed), a null row or a null id, a row whose length differs from L (the first row's length, or
/// `expected_row_length` when given), a row longer than kMaxRowLength.
class RowsParquetReader {
 public:
  /// Opens `path` and checks its schema. `expected_row_length` 0 means "take L from the first row". `threads`
  /// is DuckDB's thread count (0: all cores). The footer's row count is available at once (row_count()).
  explicit RowsParquetReader(const std::filesystem::path& path, std::uint32_t expected_row_length = 0,
                             unsigned threads = 0);
  ~RowsParquetReader();
  RowsParquetReader(const RowsParquetReader&) = delete;
  RowsParquetReader& operator=(const RowsParquetReader&) = delete;

  /// Rows in the file, from the parquet footer.
  std::uint64_t row_count() const;
  /// L: the expected length, or the first row's length once it was read (0 before that).
  std::uint32_t row_length() const;
  /// Reads the next row into `row` (a view valid until the next call); false at the end of the file.
  bool next(std::span<const std::int32_t>& row);
  /// Rows returned so far.
  std::uint64_t rows_read() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace openrecipes::rows
