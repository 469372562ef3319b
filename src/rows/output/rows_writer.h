// rows.parquet writer (SPEC §1.7): one column `input_ids: list<int32>`, every row exactly L ids, rows in order,
// streamed through DuckDB's parquet writer, written atomically (temp file + rename), hashed on the way (§1.8).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace openrecipes::rows {

/// Parquet page compression for rows.parquet.
enum class RowsCompression { zstd, snappy, uncompressed };

/// Parquet format flavour. v1 (DuckDB's default: data pages v1, PLAIN ids) is what every parquet reader takes;
/// v2 (data pages v2, DELTA_BINARY_PACKED ids) writes about twice as fast and a little smaller but needs a
/// reader with v2 support (pyarrow does; some older tools do not).
enum class RowsParquetVersion { v1, v2 };

struct RowsWriterOptions {
  RowsCompression compression = RowsCompression::zstd;
  RowsParquetVersion parquet_version = RowsParquetVersion::v1;
  /// DuckDB threads for encoding (the writer's own in-memory database). Output bytes do not depend on it.
  unsigned threads = 2;
  /// Rows per parquet row group; 0 means RowsParquetWriter::row_group_rows(L).
  std::uint64_t row_group_rows = 0;
};

/// What a finished write produced.
struct RowsWriteResult {
  std::uint64_t rows = 0;        ///< rows written
  std::uint32_t row_length = 0;  ///< L
  std::string rows_sha256;       ///< SPEC §1.8 over all rows written
  std::uint64_t file_bytes = 0;  ///< size of rows.parquet
};

/// Streams rows into `path` (normally rows.parquet).
///
/// Rows are copied into batches (about 8 MiB, at most 2048 rows) that a DuckDB `COPY ... TO <temp> (FORMAT
/// parquet)` on a background thread pulls through a table function, so encoding overlaps with whatever produces
/// the rows and memory stays bounded (four batches at most plus one row group inside DuckDB). The file goes
/// to `.<name>.<random>.tmp` in the same folder and is renamed onto `path` by commit() after an fsync. Destroying
/// the writer without commit() (an exception, a failed check) stops DuckDB and removes the temp file;
/// SIGINT/SIGTERM/SIGHUP remove it too (TempFileGuard). `path` is never left half written, and an existing file at
/// `path` is only ever replaced by a complete one.
///
/// Row groups hold row_group_rows(L) rows unless the options say otherwise (DuckDB closes a group between
/// batches, so a group holds whole batches: exactly that many rows when the batch size divides it, as for every
/// power-of-two L). The bytes written depend only on the rows, L and the options other than `threads`.
/// Throughput (bench/rows_bench.cpp, 16-core Xeon, 8192-id rows): about 72 MB/s of ids with zstd v1, 110 MB/s with
/// snappy v1, 120 MB/s with zstd v2; real token ids compress to about 52% (zstd v1), 73% (snappy v1), 60% (v2).
/// Not thread-safe: call from one thread.
class RowsParquetWriter {
 public:
  /// Opens the writer. `row_length` is L (1..kMaxRowLength). Throws InputError when the folder of `path` does not
  /// exist or is not writable, or the path is not usable by DuckDB; std::invalid_argument for a bad L.
  RowsParquetWriter(const std::filesystem::path& path, std::uint32_t row_length, RowsWriterOptions options = {});
  ~RowsParquetWriter();
  RowsParquetWriter(const RowsParquetWriter&) = delete;
  RowsParquetWriter& operator=(const RowsParquetWriter&) = delete;

  /// Appends one row of exactly L ids (std::invalid_argument otherwise). May block while DuckDB catches up.
  /// Throws InputError if the parquet write failed (disk full, ...), naming the file.
  void append_row(std::span<const std::int32_t> row);
  /// Rows appended so far.
  std::uint64_t rows() const;
  /// Finishes the file, fsyncs it and renames it onto the final path (commit_replacements: refused when the path
  /// is a folder). Throws InputError on a write error (the temp file is removed). Call once; appending afterwards
  /// is a std::logic_error.
  RowsWriteResult commit();
  /// The first half of commit() for a caller that replaces several files at once: finishes and fsyncs the temp
  /// file (temp_path(), still guarded) without renaming it. file_bytes is the temp file's size. Then rename it
  /// (commit_replacements) and call committed(), or let the destructor remove it.
  RowsWriteResult finish();
  const std::filesystem::path& temp_path() const;
  /// After finish() and a successful rename of temp_path(): stops guarding the file.
  void committed();
  /// Abandons the write and removes the temp file (what the destructor does without commit()). Idempotent.
  void abort() noexcept;

  /// Rows per parquet row group for row length L: max(1, 2^23 / L) (8 Mi ids, 32 MiB before compression),
  /// e.g. 1024 rows at L = 8192.
  static std::uint64_t row_group_rows(std::uint32_t row_length);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace openrecipes::rows
