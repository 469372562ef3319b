// rows.parquet writer (SPEC §1.7): a DuckDB COPY on a background thread scans row batches from an Arrow stream and
// encodes them as row groups in parallel; temp file + fsync + rename for atomicity; RowsHasher gives rows_sha256
// (§1.8) on the way.
#include "rows/output/rows_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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
#include "core/core_budget.h"
#include "core/error.h"
#include "db/arrow_abi.h"
#include "db/duckdb_session.h"
#include "rows/output/rows_hash.h"

namespace openrecipes::rows {
namespace fs = std::filesystem;
namespace {

// Most ids one batch (one row group) may hold: 2^26 (256 MiB), far above the default groups of 2^20 ids; a group of
// one row may be longer (L up to kMaxRowLength). Keeps the Arrow offsets in int32.
constexpr std::uint64_t kMaxBatchIds = std::uint64_t{1} << 26;

// A batch of whole rows, back to back: one parquet row group.
struct Batch {
  std::vector<std::int32_t> ids;
  std::size_t rows = 0;
};

// What the producer (append_row) and DuckDB's scan of the Arrow stream share.
struct Feed {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Batch> queue;
  std::size_t max_queued = 2;
  bool finished = false;   // producer: no more batches
  bool aborted = false;    // producer: stop now
  bool copy_done = false;  // the COPY thread ended (success or error)
  std::uint32_t row_length = 0;
  // Buffers of batches DuckDB has released, reused for the next batches: a fresh 4 MiB buffer costs a page fault
  // per 4 KiB page on first touch, which is most of the producer's time otherwise.
  std::vector<std::vector<std::int32_t>> spare;

  void give_back(std::vector<std::int32_t>&& ids) {
    std::lock_guard<std::mutex> lock(mu);
    if (spare.size() < max_queued + 1) {
      ids.clear();
      spare.push_back(std::move(ids));
    }
  }
  // An empty buffer with room for `ids` ids.
  std::vector<std::int32_t> take_buffer(std::size_t ids) {
    std::vector<std::int32_t> b;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!spare.empty()) {
        b = std::move(spare.back());
        spare.pop_back();
      }
    }
    b.reserve(ids);
    return b;
  }
};

// Each compression as DuckDB's COPY ... (COMPRESSION x) names it.
constexpr EnumName<RowsCompression> kDuckdbCompression[] = {{RowsCompression::zstd, "zstd"},
                                                            {RowsCompression::snappy, "snappy"},
                                                            {RowsCompression::uncompressed, "uncompressed"}};

// ---- The Arrow stream DuckDB scans: struct<input_ids: list<int32>>, one array per batch ----

// The schema's nodes live in the stream (which outlives the COPY); release only marks a node released.
struct StreamSchema {
  ArrowSchema item{}, list{};
  ArrowSchema* list_children[1] = {&item};
  ArrowSchema* top_children[1] = {&list};
};

void release_static_schema(ArrowSchema* s) { s->release = nullptr; }

void fill_schema(StreamSchema& nodes, ArrowSchema* out) {
  nodes.item =
      ArrowSchema{"i", "item", nullptr, ARROW_FLAG_NULLABLE, 0, nullptr, nullptr, release_static_schema, nullptr};
  nodes.list = ArrowSchema{"+l",    "input_ids",           nullptr, ARROW_FLAG_NULLABLE, 1, nodes.list_children,
                           nullptr, release_static_schema, nullptr};
  *out = ArrowSchema{"+s", "", nullptr, 0, 1, nodes.top_children, nullptr, release_static_schema, nullptr};
}

// One batch as an Arrow array tree (struct -> list -> int32), owning the ids. The three nodes are released in any
// order (a parent releases its children first, as the C data interface requires); the last release frees it all.
struct ArrayHolder {
  std::shared_ptr<Feed> feed;  // takes the ids back for reuse
  Batch batch;
  std::vector<std::int32_t> offsets;
  const void* top_buffers[1] = {nullptr};
  const void* list_buffers[2] = {nullptr, nullptr};
  const void* item_buffers[2] = {nullptr, nullptr};
  ArrowArray list{}, item{};
  ArrowArray* top_children[1] = {&list};
  ArrowArray* list_children[1] = {&item};
  std::atomic<int> live{3};
  void unref() {
    if (--live != 0) return;
    feed->give_back(std::move(batch.ids));
    delete this;
  }
};

void release_item(ArrowArray* a) {
  auto* h = static_cast<ArrayHolder*>(a->private_data);
  a->release = nullptr;
  h->unref();
}
void release_list(ArrowArray* a) {
  auto* h = static_cast<ArrayHolder*>(a->private_data);
  if (a->children[0]->release) a->children[0]->release(a->children[0]);
  a->release = nullptr;
  h->unref();
}
void release_top(ArrowArray* a) {
  auto* h = static_cast<ArrayHolder*>(a->private_data);
  if (a->children[0]->release) a->children[0]->release(a->children[0]);
  a->release = nullptr;
  h->unref();
}

// Moves `batch` into a new array tree written to `out`. Offsets are int32: a batch holds at most
// max(2^26, L) <= 2^31 - 1 ids (the writer's batch bound).
void export_batch(const std::shared_ptr<Feed>& feed, Batch&& batch, ArrowArray* out) {
  const std::uint32_t row_length = feed->row_length;
  auto* h = new ArrayHolder;
  h->feed = feed;
  h->batch = std::move(batch);
  const auto rows = static_cast<std::int64_t>(h->batch.rows);
  h->offsets.resize(h->batch.rows + 1);
  for (std::size_t r = 0; r <= h->batch.rows; ++r) h->offsets[r] = static_cast<std::int32_t>(r * row_length);
  h->list_buffers[1] = h->offsets.data();
  h->item_buffers[1] = h->batch.ids.data();
  h->item = ArrowArray{
      static_cast<std::int64_t>(h->batch.ids.size()), 0, 0, 2, 0, h->item_buffers, nullptr, nullptr, release_item, h};
  h->list = ArrowArray{rows, 0, 0, 2, 1, h->list_buffers, h->list_children, nullptr, release_list, h};
  *out = ArrowArray{rows, 0, 0, 1, 1, h->top_buffers, h->top_children, nullptr, release_top, h};
}

// The stream's private data: the schema nodes and the feed to pull batches from.
struct StreamState {
  StreamSchema schema;
  std::shared_ptr<Feed> feed;
  CoreBudget* budget = nullptr;
  std::string error;
};

// The stream whose batch this thread is encoding (it holds a core of the budget until it asks for the next).
thread_local const StreamState* t_encoding = nullptr;

int stream_get_schema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* st = static_cast<StreamState*>(stream->private_data);
  fill_schema(st->schema, out);
  return 0;
}

// DuckDB asks for the next batch (under its scan lock): hand one over, end the stream, or fail if the producer
// aborted.
int stream_get_next(ArrowArrayStream* stream, ArrowArray* out) {
  auto* st = static_cast<StreamState*>(stream->private_data);
  Feed& feed = *st->feed;
  if (st->budget && t_encoding == st) {  // done with the previous batch
    st->budget->release();
    t_encoding = nullptr;
  }
  Batch batch;
  {
    std::unique_lock<std::mutex> lock(feed.mu);
    if (st->budget && !(feed.aborted || feed.finished || !feed.queue.empty())) {
      st->budget->starving_begin();
      feed.cv.wait(lock, [&] { return feed.aborted || feed.finished || !feed.queue.empty(); });
      st->budget->starving_end();
    }
    feed.cv.wait(lock, [&] { return feed.aborted || feed.finished || !feed.queue.empty(); });
    if (feed.aborted) {
      st->error = "the rows build stopped before the file was complete";
      return EIO;
    }
    if (feed.queue.empty()) {  // finished
      out->release = nullptr;
      return 0;
    }
    batch = std::move(feed.queue.front());
    feed.queue.pop_front();
  }
  feed.cv.notify_all();
  try {
    export_batch(st->feed, std::move(batch), out);
  } catch (const std::bad_alloc&) {
    st->error = "out of memory for a batch of rows";
    return ENOMEM;
  }
  if (st->budget) {
    st->budget->take();
    t_encoding = st;
  }
  return 0;
}

const char* stream_last_error(ArrowArrayStream* stream) {
  return static_cast<StreamState*>(stream->private_data)->error.c_str();
}

void stream_release(ArrowArrayStream* stream) { stream->release = nullptr; }

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
  std::shared_ptr<Feed> feed_owner = std::make_shared<Feed>();
  Feed& feed = *feed_owner;
  StreamState stream_state;
  ArrowArrayStream stream{};
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
    current.ids = feed.take_buffer(batch_rows * row_length);
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
  return std::max<std::uint64_t>(1, (std::uint64_t{1} << 20) / std::max<std::uint32_t>(row_length, 1));
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
  const std::uint64_t group_rows = options.row_group_rows ? options.row_group_rows : row_group_rows(row_length);
  // One batch is one row group: DuckDB's batch copy encodes each batch as a row group of its own, on any of its
  // threads, and writes them in batch order, so the bytes never depend on the thread count.
  if (group_rows * row_length > kMaxBatchIds && group_rows > 1)
    throw std::invalid_argument(fmt::format("row groups of {} rows of {} ids are over the limit of {} ids", group_rows,
                                            row_length, kMaxBatchIds));
  s_->batch_rows = static_cast<std::size_t>(group_rows);
  s_->current.ids.reserve(s_->batch_rows * row_length);
  s_->feed.row_length = row_length;

  try {
    s_->db = std::make_unique<db::DuckDbSession>(options.threads);
  } catch (const db::DuckDbError& e) {
    throw InputError(path.string(), e.what(), "check the DuckDB installation");
  }
  s_->stream_state.feed = s_->feed_owner;
  s_->stream_state.budget = options.budget;
  s_->stream =
      ArrowArrayStream{stream_get_schema, stream_get_next, stream_last_error, stream_release, &s_->stream_state};
  if (duckdb_arrow_scan(s_->db->connection(), "openrecipes_rows_feed",
                        reinterpret_cast<duckdb_arrow_stream>(&s_->stream)) == DuckDBError)
    throw InputError(path.string(), "cannot register the row stream with DuckDB", "report this as a bug");

  s_->guard.emplace(s_->temp);
  const std::string sql = fmt::format(
      "COPY (SELECT input_ids FROM openrecipes_rows_feed) TO {} (FORMAT parquet, COMPRESSION {}, ROW_GROUP_SIZE {}, "
      "PARQUET_VERSION {}, USE_TMP_FILE false)",
      temp_sql, name_of(kDuckdbCompression, options.compression), group_rows,
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
