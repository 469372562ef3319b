// rows.parquet writer (SPEC §1.7): a DuckDB COPY on a background thread pulls row batches through a table
// function; temp file + fsync + rename for atomicity; RowsHasher gives rows_sha256 (§1.8) on the way.
#include "rows/output/rows_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/atomic_output.h"
#include "core/error.h"
#include "db/duckdb_session.h"
#include "rows/output/rows_hash.h"

namespace openrecipes::rows {
namespace fs = std::filesystem;
namespace {

// A batch of whole rows, back to back.
struct Batch {
  std::vector<std::int32_t> ids;
  std::size_t rows = 0;
};

// What the producer (append_row) and DuckDB's table function share.
struct Feed {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Batch> queue;
  std::size_t max_queued = 2;
  bool finished = false;   // producer: no more batches
  bool aborted = false;    // producer: stop now
  bool copy_done = false;  // the COPY thread ended (success or error)
  std::uint32_t row_length = 0;
};

const char* compression_name(RowsCompression c) {
  switch (c) {
    case RowsCompression::zstd:
      return "zstd";
    case RowsCompression::snappy:
      return "snappy";
    case RowsCompression::uncompressed:
      return "uncompressed";
  }
  return "zstd";
}

void feed_bind(duckdb_bind_info info) {
  db::LogicalType int32(duckdb_create_logical_type(DUCKDB_TYPE_INTEGER));
  db::LogicalType list(duckdb_create_list_type(int32.get()));
  duckdb_bind_add_result_column(info, "input_ids", list.get());
}

void feed_init(duckdb_init_info info) { duckdb_init_set_max_threads(info, 1); }

// DuckDB asks for the next chunk: hand over one batch, or end the table, or fail if the producer aborted.
void feed_function(duckdb_function_info info, duckdb_data_chunk output) {
  auto* feed = static_cast<Feed*>(duckdb_function_get_extra_info(info));
  Batch batch;
  {
    std::unique_lock<std::mutex> lock(feed->mu);
    feed->cv.wait(lock, [&] { return feed->aborted || feed->finished || !feed->queue.empty(); });
    if (feed->aborted) {
      duckdb_function_set_error(info, "the rows build stopped before the file was complete");
      return;
    }
    if (feed->queue.empty()) {  // finished
      duckdb_data_chunk_set_size(output, 0);
      return;
    }
    batch = std::move(feed->queue.front());
    feed->queue.pop_front();
  }
  feed->cv.notify_all();
  duckdb_vector list = duckdb_data_chunk_get_vector(output, 0);
  const std::size_t total = batch.ids.size();
  if (duckdb_list_vector_reserve(list, total) == DuckDBError ||
      duckdb_list_vector_set_size(list, total) == DuckDBError) {
    duckdb_function_set_error(info, "cannot reserve memory for a batch of rows");
    return;
  }
  auto* entries = static_cast<duckdb_list_entry*>(duckdb_vector_get_data(list));
  for (std::size_t r = 0; r < batch.rows; ++r) {
    entries[r].offset = r * feed->row_length;
    entries[r].length = feed->row_length;
  }
  auto* child = static_cast<std::int32_t*>(duckdb_vector_get_data(duckdb_list_vector_get_child(list)));
  std::memcpy(child, batch.ids.data(), total * sizeof(std::int32_t));
  duckdb_data_chunk_set_size(output, batch.rows);
}

void fsync_path(const fs::path& p, bool directory) {
  int fd = ::open(p.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) throw InputError(p.string(), std::string("cannot open to sync: ") + std::strerror(errno));
  int rc = ::fsync(fd);
  int e = errno;
  ::close(fd);
  if (rc != 0 && !directory)
    throw InputError(p.string(), std::string("fsync failed: ") + std::strerror(e), "free disk space");
}

}  // namespace

struct RowsParquetWriter::State {
  fs::path path, temp;
  std::uint32_t row_length = 0;
  std::size_t batch_rows = 0;
  std::unique_ptr<db::DuckDbSession> db;
  Feed feed;
  std::optional<TempFileGuard> guard;
  std::thread copier;
  std::optional<std::string> copy_error;  // set by the COPY thread
  Batch current;
  RowsHasher hasher;
  std::uint64_t rows = 0;
  bool closed = false;
  bool finished = false;  // the COPY is done and the temp file synced; not yet renamed

  explicit State(std::uint32_t l) : row_length(l), hasher(l) {}

  // Hands the current batch to DuckDB, waiting while the queue is full. Throws InputError if the COPY failed.
  void push_current() {
    {
      std::unique_lock<std::mutex> lock(feed.mu);
      feed.cv.wait(lock, [&] { return feed.copy_done || feed.queue.size() < feed.max_queued; });
      if (feed.copy_done) {
        lock.unlock();
        fail_from_copy();
      }
      feed.queue.push_back(std::move(current));
    }
    feed.cv.notify_all();
    current = Batch{};
    current.ids.reserve(batch_rows * row_length);
  }

  [[noreturn]] void fail_from_copy() {
    if (copier.joinable()) copier.join();
    std::string msg = copy_error.value_or("the parquet writer stopped early");
    closed = true;
    guard->remove();
    throw InputError(path.string(), "cannot write rows.parquet: " + msg,
                     "check free disk space and the folder's permissions");
  }

  void stop() noexcept {
    {
      std::lock_guard<std::mutex> lock(feed.mu);
      feed.aborted = true;
    }
    feed.cv.notify_all();
    if (db) db->interrupt();
    if (copier.joinable()) copier.join();
    closed = true;
    if (guard) guard->remove();
  }
};

std::uint64_t RowsParquetWriter::row_group_rows(std::uint32_t row_length) {
  return std::max<std::uint64_t>(1, (std::uint64_t{1} << 23) / std::max<std::uint32_t>(row_length, 1));
}

RowsParquetWriter::RowsParquetWriter(const fs::path& path, std::uint32_t row_length, RowsWriterOptions options) {
  if (row_length == 0 || row_length > kMaxRowLength)
    throw std::invalid_argument(fmt::format("row length {} is outside 1..{}", row_length, kMaxRowLength));
  s_ = std::make_unique<State>(row_length);
  s_->path = path;
  fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(path.string(), "the folder " + dir.string() + " does not exist", "create it first");
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(path.string(), "the folder " + dir.string() + " is not writable", "choose a folder you can write");
  s_->temp = temp_path_for(path);
  const std::string temp_sql = db::sql_literal(db::duckdb_file_path(s_->temp));
  const std::size_t vector_rows = duckdb_vector_size();
  const std::uint64_t group_rows = options.row_group_rows ? options.row_group_rows : row_group_rows(row_length);
  // DuckDB closes a row group only between chunks: batches no larger than a row group keep groups near their size
  // (exact when the batch size divides it, as with every power-of-two L).
  s_->batch_rows = static_cast<std::size_t>(std::min<std::uint64_t>(
      std::clamp<std::size_t>((std::size_t{1} << 21) / row_length, 1, vector_rows), group_rows));
  s_->current.ids.reserve(s_->batch_rows * row_length);
  s_->feed.row_length = row_length;

  try {
    s_->db = std::make_unique<db::DuckDbSession>(options.threads);
  } catch (const db::DuckDbError& e) {
    throw InputError(path.string(), e.what(), "check the DuckDB installation");
  }
  duckdb_table_function tf = duckdb_create_table_function();
  duckdb_table_function_set_name(tf, "openrecipes_rows_feed");
  duckdb_table_function_set_extra_info(tf, &s_->feed, nullptr);
  duckdb_table_function_set_bind(tf, feed_bind);
  duckdb_table_function_set_init(tf, feed_init);
  duckdb_table_function_set_function(tf, feed_function);
  duckdb_state st = duckdb_register_table_function(s_->db->connection(), tf);
  duckdb_destroy_table_function(&tf);
  if (st == DuckDBError) throw InputError(path.string(), "cannot register the DuckDB row feed", "report this as a bug");

  s_->guard.emplace(s_->temp);
  const std::string sql = fmt::format(
      "COPY (SELECT input_ids FROM openrecipes_rows_feed()) TO {} (FORMAT parquet, COMPRESSION {}, ROW_GROUP_SIZE {}, "
      "PARQUET_VERSION {}, USE_TMP_FILE false)",
      temp_sql, compression_name(options.compression), group_rows,
      options.parquet_version == RowsParquetVersion::v2 ? "V2" : "V1");
  State* s = s_.get();
  s_->copier = std::thread([s, sql] {
    try {
      s->db->query(sql);
    } catch (const db::DuckDbError& e) {
      s->copy_error = e.what();
    } catch (const std::exception& e) {
      s->copy_error = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(s->feed.mu);
      s->feed.copy_done = true;
    }
    s->feed.cv.notify_all();
  });
}

RowsParquetWriter::~RowsParquetWriter() { abort(); }

void RowsParquetWriter::abort() noexcept {
  if (s_ && !s_->closed) s_->stop();
}

std::uint64_t RowsParquetWriter::rows() const { return s_->rows; }

void RowsParquetWriter::append_row(std::span<const std::int32_t> row) {
  if (s_->closed || s_->finished) throw std::logic_error("RowsParquetWriter: append_row after commit, finish or abort");
  if (row.size() != s_->row_length)
    throw std::invalid_argument(
        fmt::format("RowsParquetWriter: a row of {} ids, expected {}", row.size(), s_->row_length));
  s_->hasher.add_row(row);
  s_->current.ids.insert(s_->current.ids.end(), row.begin(), row.end());
  ++s_->current.rows;
  ++s_->rows;
  if (s_->current.rows == s_->batch_rows) s_->push_current();
}

RowsWriteResult RowsParquetWriter::finish() {
  if (s_->closed || s_->finished) throw std::logic_error("RowsParquetWriter: finish after commit, finish or abort");
  if (s_->current.rows > 0) s_->push_current();
  {
    std::lock_guard<std::mutex> lock(s_->feed.mu);
    s_->feed.finished = true;
  }
  s_->feed.cv.notify_all();
  s_->copier.join();
  if (s_->copy_error) s_->fail_from_copy();
  try {
    fsync_path(s_->temp, false);
  } catch (...) {
    s_->closed = true;
    s_->guard->remove();
    throw;
  }
  s_->finished = true;
  RowsWriteResult r;
  r.rows = s_->rows;
  r.row_length = s_->row_length;
  r.rows_sha256 = s_->hasher.hex();
  std::error_code ec;
  r.file_bytes = fs::file_size(s_->temp, ec);
  return r;
}

const fs::path& RowsParquetWriter::temp_path() const { return s_->temp; }

void RowsParquetWriter::committed() {
  if (!s_->finished) throw std::logic_error("RowsParquetWriter: committed() before finish()");
  s_->guard->release();
  s_->closed = true;
}

RowsWriteResult RowsParquetWriter::commit() {
  RowsWriteResult r = finish();
  const Replacement one[] = {{s_->temp, s_->path}};
  commit_replacements(one);  // on failure the temp file stays guarded: abort() (the destructor) removes it
  committed();
  return r;
}

}  // namespace openrecipes::rows
