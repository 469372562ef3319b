// Megatron-LM indexed dataset writer (.bin/.idx as megatron/core/datasets/indexed_dataset.py reads them),
// written atomically from rows (SPEC §1, optional export).
#include "rows/output/megatron_export.h"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "core/atomic_output.h"
#include "core/error.h"
#include "rows/output/rows_hash.h"
#include "rows/output/rows_reader.h"

namespace openrecipes::rows {
namespace fs = std::filesystem;
namespace {

// A file written through a 4 MiB buffer; errors name the final path.
class OutFile {
 public:
  OutFile(const fs::path& temp, const fs::path& final_path) : final_(final_path) {
    fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw InputError(final_.string(), std::string("cannot write: ") + std::strerror(errno),
                       "check that the folder exists and is writable");
    buf_.reserve(kBuf);
  }
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  void write(const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    if (buf_.size() + n > kBuf) flush();
    if (n >= kBuf) return write_all(p, n);
    buf_.insert(buf_.end(), p, p + n);
  }
  template <typename T>
  void put_le(T v) {
    unsigned char b[sizeof(T)];
    auto u = static_cast<std::make_unsigned_t<T>>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<unsigned char>(u >> (8 * i));
    write(b, sizeof b);
  }
  void flush() {
    write_all(buf_.data(), buf_.size());
    buf_.clear();
  }
  void close_synced() {
    flush();
    if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
      fd_ = -1;
      throw InputError(final_.string(), std::string("write failed: ") + std::strerror(errno), "free disk space");
    }
    fd_ = -1;
  }

 private:
  static constexpr std::size_t kBuf = 4u << 20;
  void write_all(const char* p, std::size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw InputError(final_.string(), std::string("write failed: ") + std::strerror(errno), "free disk space");
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }
  fs::path final_;
  int fd_ = -1;
  std::vector<char> buf_;
};

fs::path with_suffix(const fs::path& prefix, const char* suffix) { return fs::path(prefix.string() + suffix); }

}  // namespace

struct MegatronWriter::State {
  fs::path bin, idx, bin_temp, idx_temp;
  std::uint32_t row_length = 0;
  std::optional<TempFileGuard> bin_guard, idx_guard;
  std::optional<OutFile> bin_file;
  RowsHasher hasher;
  std::vector<std::int32_t> le;  // byte-swapped copy on big-endian hosts
  std::uint64_t rows = 0;
  bool closed = false;
  explicit State(std::uint32_t l) : row_length(l), hasher(l) {}
};

MegatronWriter::MegatronWriter(const fs::path& prefix, std::uint32_t row_length) {
  if (row_length == 0 || row_length > kMaxRowLength)
    throw std::invalid_argument(fmt::format("row length {} is outside 1..{}", row_length, kMaxRowLength));
  s_ = std::make_unique<State>(row_length);
  s_->bin = with_suffix(prefix, ".bin");
  s_->idx = with_suffix(prefix, ".idx");
  fs::path dir = s_->bin.has_parent_path() ? s_->bin.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(prefix.string(), "the folder " + dir.string() + " does not exist", "create it first");
  for (const fs::path& out : {s_->bin, s_->idx})
    if (fs::is_directory(fs::symlink_status(out, ec)))
      throw InputError(out.string(), "is a folder, so the export cannot write its output there",
                       "remove or rename that folder, or choose another -o prefix");
  s_->bin_temp = temp_path_for(s_->bin);
  s_->idx_temp = temp_path_for(s_->idx);
  s_->bin_guard.emplace(s_->bin_temp);
  s_->bin_file.emplace(s_->bin_temp, s_->bin);
}

MegatronWriter::~MegatronWriter() { abort(); }

void MegatronWriter::abort() noexcept {
  if (!s_ || s_->closed) return;
  s_->closed = true;
  s_->bin_file.reset();
  s_->bin_guard.reset();  // removes the temp file
  s_->idx_guard.reset();
}

std::uint64_t MegatronWriter::rows() const { return s_->rows; }

void MegatronWriter::append_row(std::span<const std::int32_t> row) {
  if (s_->closed) throw std::logic_error("MegatronWriter: append_row after commit or abort");
  if (row.size() != s_->row_length)
    throw std::invalid_argument(
        fmt::format("MegatronWriter: a row of {} ids, expected {}", row.size(), s_->row_length));
  s_->hasher.add_row(row);
  if constexpr (std::endian::native == std::endian::little) {
    s_->bin_file->write(row.data(), row.size_bytes());
  } else {
    for (std::int32_t v : row) s_->bin_file->put_le(v);
  }
  ++s_->rows;
}

MegatronWriteResult MegatronWriter::commit() {
  if (s_->closed) throw std::logic_error("MegatronWriter: commit after commit or abort");
  State& s = *s_;
  try {
    s.bin_file->close_synced();
    s.idx_guard.emplace(s.idx_temp);
    OutFile idx(s.idx_temp, s.idx);
    static const char kMagic[9] = {'M', 'M', 'I', 'D', 'I', 'D', 'X', 0, 0};
    idx.write(kMagic, sizeof kMagic);
    idx.put_le<std::uint64_t>(1);  // version
    idx.put_le<std::uint8_t>(kMegatronDtypeInt32);
    idx.put_le<std::uint64_t>(s.rows);      // sequence count
    idx.put_le<std::uint64_t>(s.rows + 1);  // document count: document_indices has N + 1 entries
    for (std::uint64_t i = 0; i < s.rows; ++i) idx.put_le<std::int32_t>(static_cast<std::int32_t>(s.row_length));
    const std::uint64_t row_bytes = std::uint64_t{s.row_length} * 4;
    for (std::uint64_t i = 0; i < s.rows; ++i) idx.put_le<std::int64_t>(static_cast<std::int64_t>(i * row_bytes));
    for (std::uint64_t i = 0; i <= s.rows; ++i) idx.put_le<std::int64_t>(static_cast<std::int64_t>(i));
    idx.close_synced();
    // Both or neither (signals held meanwhile): a .bin never pairs with another run's .idx, and a failure leaves
    // the previous pair as it was.
    const Replacement pair[] = {{s.bin_temp, s.bin}, {s.idx_temp, s.idx}};
    commit_replacements(pair);
  } catch (...) {
    abort();
    throw;
  }
  s.bin_guard->release();
  s.idx_guard->release();
  s.closed = true;
  MegatronWriteResult r;
  r.rows = s.rows;
  r.row_length = s.row_length;
  r.bin = s.bin;
  r.idx = s.idx;
  std::error_code ec;
  r.bin_bytes = fs::file_size(s.bin, ec);
  r.idx_bytes = fs::file_size(s.idx, ec);
  r.rows_sha256 = s.hasher.hex();
  return r;
}

MegatronWriteResult export_megatron(const fs::path& rows_parquet, const fs::path& prefix,
                                    std::optional<std::uint64_t> rows, unsigned threads) {
  if (rows && *rows == 0)
    throw InputError("--rows", "the row count must be at least 1", "leave --rows out to export all the rows");
  for (const char* suffix : {".bin", ".idx"}) {
    std::error_code ec;
    if (fs::equivalent(rows_parquet, with_suffix(prefix, suffix), ec))
      throw InputError(with_suffix(prefix, suffix).string(),
                       "is the input " + rows_parquet.string() + "; the export would overwrite it",
                       "choose another -o prefix");
  }
  RowsParquetReader reader(rows_parquet, 0, threads);
  const std::uint64_t want = rows.value_or(reader.row_count());
  if (want > reader.row_count())
    throw InputError(rows_parquet.string(),
                     fmt::format("the file has {} rows, fewer than the {} to export", reader.row_count(), want),
                     "export at most the rows the file has");
  std::optional<MegatronWriter> writer;
  std::span<const std::int32_t> row;
  std::uint64_t done = 0;
  while (done < want && reader.next(row)) {
    if (!writer) writer.emplace(prefix, reader.row_length());
    writer->append_row(row);
    ++done;
  }
  if (!writer) {
    // No rows: an empty dataset of L = 1 is still a valid pair of files.
    writer.emplace(prefix, reader.row_length() ? reader.row_length() : 1);
  }
  return writer->commit();
}

}  // namespace openrecipes::rows
