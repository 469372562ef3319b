// rows.parquet writer (SPEC §1.7): one column `input_ids: list<int32>`, every row exactly L ids, rows in order,
// streamed through DuckDB's parquet writer, written atomically (temp file + rename), hashed on the way (§1.8).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "core/enum_names.h"

namespace openrecipes {
class CoreBudget;
}

namespace openrecipes::rows {

/// Parquet page compression for rows.parquet.
enum class RowsCompression { zstd, snappy, uncompressed };

/// Each compression as `rows build --compression` takes it ("none": no compression).
inline constexpr EnumName<RowsCompression> kRowsCompressionFlags[] = {
    {RowsCompression::zstd, "zstd"}, {RowsCompression::snappy, "snappy"}, {RowsCompression::uncompressed, "none"}};

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
  /// Cores shared with the producer's own threads: a DuckDB thread holds one from taking a batch until it asks for
  /// the next (never waiting for it), so producers that acquire() give way while batches are encoded. Optional;
  /// must outlive the writer.
  CoreBudget* budget = nullptr;
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
/// Rows are copied into batches of one row group each, which a DuckDB `COPY ... TO <temp> (FORMAT parquet)` on a
/// background thread scans from an Arrow stream: with more than one thread DuckDB's batch copy encodes the groups on
/// all its threads and writes them in order, so encoding overlaps with whatever produces the rows and memory stays
/// bounded (two batches queued, one per DuckDB thread, and the groups encoded but not yet written). The file goes to
/// `.<name>.<random>.tmp` in the same folder and is renamed onto `path` by commit() after an fsync. Destroying the
/// writer without commit() (an exception, a failed check) stops DuckDB and removes the temp file;
/// SIGINT/SIGTERM/SIGHUP remove it too (TempFileGuard). `path` is never left half written, and an existing file at
/// `path` is only ever replaced by a complete one.
///
/// Row groups hold row_group_rows(L) rows (the last one the rest) unless the options say otherwise. The bytes
/// written depend only on the rows, L and the options other than `threads` and `budget` (checked for 1 to 4
/// threads by the tests).
/// Throughput (bench/rows_bench.cpp, this machine's 2 cores, 8192-id rows): about 30 MB/s of ids per thread with
/// zstd v1; real token ids compress to about 52% (zstd v1), 73% (snappy v1), 60% (v2).
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

  /// Rows per parquet row group for row length L: max(1, 2^20 / L) (1 Mi ids, 4 MiB before compression), e.g.
  /// 128 rows at L = 8192: one optimizer step of the protocol's 128 rows per group (what the slime plugin reads for a
  /// step), and a last group that encodes quickly once the rows end (the build's only serial write).
  static std::uint64_t row_group_rows(std::uint32_t row_length);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace openrecipes::rows
