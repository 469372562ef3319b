// Export of rows to Megatron-LM's indexed dataset (SPEC §1, optional export; format of
// megatron/core/datasets/indexed_dataset.py): PREFIX.bin with the ids and PREFIX.idx with the index, each row one
// sequence and one document.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace openrecipes::rows {

/// Megatron's dtype code for int32 (DType.int32 = 4). Megatron's own preprocessing picks int32 for any vocabulary
/// of 65,500 or more (DType.optimal_dtype), and uint16 (code 8) below; the export always writes int32, which every
/// Megatron reader accepts whatever the vocabulary.
inline constexpr std::uint8_t kMegatronDtypeInt32 = 4;

struct MegatronWriteResult {
  std::uint64_t rows = 0;          ///< sequences (= documents) written
  std::uint32_t row_length = 0;    ///< L
  std::filesystem::path bin, idx;  ///< PREFIX.bin, PREFIX.idx
  std::uint64_t bin_bytes = 0, idx_bytes = 0;
  std::string rows_sha256;  ///< SPEC §1.8 over the rows written (same value as the rows.parquet's)
};

/// Writes PREFIX.bin and PREFIX.idx (".bin"/".idx" appended to the prefix as given).
///
/// .bin: every id as little-endian int32, rows back to back.
/// .idx (little-endian): b"MMIDIDX\x00\x00"; uint64 version 1; uint8 dtype code 4 (int32); uint64 sequence count N;
/// uint64 document count N + 1; int32 sequence lengths (N times L); int64 sequence pointers (byte offset of row i
/// in .bin = i * L * 4); int64 document indices 0, 1, ..., N (document i is sequence i). No sequence modes
/// (not multimodal).
///
/// Both files are written to temp names in the prefix's folder and renamed at commit (.bin first, then .idx, so an
/// .idx never points at a missing .bin). Without commit() (destructor, abort(), SIGINT/SIGTERM) the temp files are
/// removed. Not thread-safe.
class MegatronWriter {
 public:
  /// Throws InputError when the folder does not exist or cannot be written; std::invalid_argument for a bad L.
  MegatronWriter(const std::filesystem::path& prefix, std::uint32_t row_length);
  ~MegatronWriter();
  MegatronWriter(const MegatronWriter&) = delete;
  MegatronWriter& operator=(const MegatronWriter&) = delete;
  /// One row of exactly L ids (std::invalid_argument otherwise). Throws InputError on a write error.
  void append_row(std::span<const std::int32_t> row);
  std::uint64_t rows() const;
  /// Writes the index, fsyncs, renames both files into place. Throws InputError on a write error.
  MegatronWriteResult commit();
  void abort() noexcept;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

/// Exports the first `rows` rows of a rows.parquet (all when nullopt) to PREFIX.bin / PREFIX.idx. Throws
/// InputError for a bad rows file (see RowsParquetReader), fewer rows than asked, `rows` of 0, an output that is
/// the input file (by any path) or a folder, or a write error; the previous PREFIX.bin/.idx pair then stays.
MegatronWriteResult export_megatron(const std::filesystem::path& rows_parquet, const std::filesystem::path& prefix,
                                    std::optional<std::uint64_t> rows = std::nullopt, unsigned threads = 0);

}  // namespace openrecipes::rows
