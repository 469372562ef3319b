// Source reader (SPEC §1.1): parquet shards through DuckDB's C API, JSONL in chunks parsed on all threads
// (rows/source/jsonl_line), both checked strictly (schema, nulls, UTF-8, sizes) and delivered in shard-name order,
// rows in file order.
#include "rows/source/source_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <simdjson.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "core/error.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/utf8.h"
#include "db/duckdb_session.h"
#include "rows/source/jsonl_line.h"

namespace openrecipes::rows {
namespace fs = std::filesystem;
namespace {

const char* const kExpectedType = "list<struct<content: string, role: string>>";

std::string row_where(const SourceShard& s, std::uint64_t row) {
  return fmt::format("{}: row {}", s.path.string(), row);
}
std::string line_where(const SourceShard& s, std::uint64_t line) { return fmt::format("{}:{}", s.path.string(), line); }

SourceFormat format_of(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".parquet") return SourceFormat::parquet;
  if (ext == ".jsonl" || ext == ".json") return SourceFormat::jsonl;
  throw InputError(p.string(), "unknown source format '" + ext + "'",
                   "give parquet shards (.parquet) or JSON Lines (.jsonl) with a `messages` list per row");
}

// Raw file reads with a retry on EINTR; used for JSONL lines and for sha256.
class FileReader {
 public:
  explicit FileReader(const fs::path& p) : path_(p) {
    fd_ = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(p.string(), std::string("cannot open: ") + std::strerror(errno), "check the path");
  }
  ~FileReader() { ::close(fd_); }
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;
  // Reads up to `n` bytes at `offset` (any thread); fewer only at the end of the file.
  std::size_t read_at(char* buf, std::size_t n, std::uint64_t offset) const {
    std::size_t done = 0;
    while (done < n) {
      ssize_t got = ::pread(fd_, buf + done, n - done, static_cast<off_t>(offset + done));
      if (got == 0) break;
      if (got < 0) {
        if (errno == EINTR) continue;
        throw InputError(path_.string(), std::string("read failed: ") + std::strerror(errno),
                         "check the disk and the file");
      }
      done += static_cast<std::size_t>(got);
    }
    return done;
  }
  // Reads up to `n` bytes; 0 at the end of the file.
  std::size_t read(char* buf, std::size_t n) {
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno == EINTR) continue;
      throw InputError(path_.string(), std::string("read failed: ") + std::strerror(errno),
                       "check the disk and the file");
    }
  }

 private:
  fs::path path_;
  int fd_ = -1;
};

bool is_blank(std::string_view line) { return trim(line).empty(); }

// Line feeds in `text`.
std::uint64_t count_newlines(std::string_view text) {
  std::uint64_t n = 0;
  for (const char* p = text.data(); (p = static_cast<const char*>(std::memchr(p, '\n', text.data() + text.size() - p)));
       ++p)
    ++n;
  return n;
}

// Lines of `text` (whole lines, the last perhaps without its line feed) that are not blank, as the parser splits
// and skips them (is_blank).
std::uint64_t count_rows(std::string_view text) {
  std::uint64_t rows = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    for (std::size_t i = pos; i < nl; ++i)
      if (!is_ascii_space(text[i])) {
        ++rows;
        break;
      }
    pos = nl + 1;
  }
  return rows;
}

// ---- parquet ----

std::string parquet_fix(const std::string& duckdb_message) {
  if (duckdb_message.find("UTF8") != std::string::npos || duckdb_message.find("UTF-8") != std::string::npos)
    return "the shard holds text that is not valid UTF-8: fix or drop that row and rewrite the shard";
  return "the file is not a complete parquet file: download the shard again and compare its sha256 with the dataset's";
}

// Checks that `messages` exists and is list<struct<content: string, role: string>>; returns the struct child
// index of content and role. Throws InputError.
std::pair<idx_t, idx_t> check_messages_type(const SourceShard& shard, duckdb_logical_type type) {
  const std::string got = db::describe_type(type);
  const std::string fix = fmt::format(
      "the rows build reads Hugging Face chat shards whose `messages` column is {} (e.g. allenai/tulu-3-sft-mixture)",
      kExpectedType);
  auto wrong = [&]() {
    return InputError(shard.path.string(),
                      fmt::format("column `messages` has type {}, expected {}", got, kExpectedType), fix);
  };
  if (duckdb_get_type_id(type) != DUCKDB_TYPE_LIST) throw wrong();
  db::LogicalType item(duckdb_list_type_child_type(type));
  if (item.id() != DUCKDB_TYPE_STRUCT) throw wrong();
  const idx_t n = duckdb_struct_type_child_count(item.get());
  idx_t content = n, role = n;
  for (idx_t i = 0; i < n; ++i) {
    char* raw = duckdb_struct_type_child_name(item.get(), i);
    std::string name = raw ? raw : "";
    if (raw) duckdb_free(raw);
    db::LogicalType field(duckdb_struct_type_child_type(item.get(), i));
    if (name == "content" || name == "role") {
      if (field.id() != DUCKDB_TYPE_VARCHAR) throw wrong();
      (name == "content" ? content : role) = i;
    } else {
      throw InputError(shard.path.string(),
                       fmt::format("messages carry a field `{}` (type {}); only content and role are read", name, got),
                       "rewrite the shard with messages of exactly {content, role}, or render that field into content");
    }
  }
  if (content == n || role == n) throw wrong();
  return {content, role};
}

void open_parquet(db::DuckDbSession& db, SourceShard& shard) {
  const std::string lit = db::sql_literal(db::duckdb_file_path(shard.path));
  try {
    auto cols = db.query("DESCRIBE SELECT * FROM read_parquet(" + lit + ")");
    bool found = false;
    std::string listing;
    for (std::size_t r = 0; r < cols.row_count(); ++r) {
      std::string name = cols.value_text(0, r);
      if (name == "messages") found = true;
      listing += fmt::format("{}{} {}", r ? ", " : "", name, cols.value_text(1, r));
    }
    if (!found)
      throw InputError(shard.path.string(), fmt::format("no `messages` column (the file has: {})", listing),
                       fmt::format("give chat shards with a `messages` column of type {}", kExpectedType));
    auto probe = db.query("SELECT messages FROM read_parquet(" + lit + ") LIMIT 0");
    db::LogicalType t = probe.column_type(0);
    check_messages_type(shard, t.get());
    auto meta = db.query("SELECT num_rows FROM parquet_file_metadata(" + lit + ")");
    auto rows = parse_int(meta.value_text(0, 0));
    if (!rows || *rows < 0)
      throw InputError(shard.path.string(), "the parquet footer gives no row count", parquet_fix(""));
    shard.conversations = static_cast<std::uint64_t>(*rows);
  } catch (const db::DuckDbError& e) {
    throw InputError(shard.path.string(), std::string("cannot read the parquet file: ") + e.what(),
                     parquet_fix(e.what()));
  }
}

void read_parquet(db::DuckDbSession& db, const SourceShard& shard, std::uint64_t& index,
                  const std::function<void(std::uint64_t, ConversationView)>& fn) {
  const std::string lit = db::sql_literal(db::duckdb_file_path(shard.path));
  std::uint64_t row = 0;
  std::vector<MessageView> conv;
  try {
    auto res = db.stream("SELECT file_row_number, messages FROM read_parquet(" + lit + ", file_row_number=true)");
    db::LogicalType t = res.column_type(1);
    auto [content_idx, role_idx] = check_messages_type(shard, t.get());
    for (;;) {
      db::DataChunk chunk(res.next_chunk());
      if (!chunk) break;
      const std::size_t n = chunk.size();
      const auto* rownum = static_cast<const std::int64_t*>(duckdb_vector_get_data(chunk.vector(0)));
      duckdb_vector list = chunk.vector(1);
      const auto* entries = static_cast<const duckdb_list_entry*>(duckdb_vector_get_data(list));
      const std::uint64_t* list_valid = duckdb_vector_get_validity(list);
      duckdb_vector items = duckdb_list_vector_get_child(list);
      const std::uint64_t* item_valid = duckdb_vector_get_validity(items);
      duckdb_vector contents = duckdb_struct_vector_get_child(items, content_idx);
      duckdb_vector roles = duckdb_struct_vector_get_child(items, role_idx);
      auto* content_data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(contents));
      auto* role_data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(roles));
      const std::uint64_t* content_valid = duckdb_vector_get_validity(contents);
      const std::uint64_t* role_valid = duckdb_vector_get_validity(roles);
      for (std::size_t r = 0; r < n; ++r, ++row) {
        if (rownum[r] != static_cast<std::int64_t>(row))
          throw InputError(row_where(shard, row), fmt::format("DuckDB delivered file row {} out of order", rownum[r]),
                           "report this as a bug in the rows build");
        if (row >= shard.conversations)
          throw InputError(shard.path.string(), "the file has more rows than its footer said when it was opened",
                           "do not change the shards while a build runs");
        if (!db::row_valid(list_valid, r))
          throw InputError(row_where(shard, row), "messages is null", "drop the row or give it a list of messages");
        const auto& e = entries[r];
        const auto where = [&] { return row_where(shard, row); };
        check_message_count(where, e.length);
        conv.clear();
        for (std::size_t k = 0; k < e.length; ++k) {
          const std::size_t m = static_cast<std::size_t>(e.offset) + k;
          if (!db::row_valid(item_valid, m))
            throw InputError(row_where(shard, row), fmt::format("messages[{}] is null", k), "drop the null message");
          if (!db::row_valid(role_valid, m))
            throw InputError(row_where(shard, row), fmt::format("messages[{}].role is null", k),
                             "give every message a role (user, assistant, system, ...)");
          if (!db::row_valid(content_valid, m))
            throw InputError(row_where(shard, row), fmt::format("messages[{}].content is null", k),
                             "give every message a string content (\"\" for an empty one)");
          // No UTF-8 check here: DuckDB validates every parquet string as it decodes it (overlong forms, surrogates
          // and code points above U+10FFFF included) and fails the scan, which lands in the catch below.
          MessageView v{db::string_view_of(role_data[m]), db::string_view_of(content_data[m])};
          check_message_sizes(where, k, v.role, v.content);
          conv.push_back(v);
        }
        fn(index++, ConversationView(conv));
      }
    }
  } catch (const db::DuckDbError& e) {
    throw InputError(fmt::format("{}: row {} or later (the rows before it read fine)", shard.path.string(), row),
                     std::string("cannot read the parquet file: ") + e.what(), parquet_fix(e.what()));
  }
  if (row != shard.conversations)
    throw InputError(
        shard.path.string(),
        fmt::format("read {} rows but the footer said {} when the file was opened", row, shard.conversations),
        "do not change the shards while a build runs");
}

// ---- JSONL ----

// Conversations of a JSONL shard are parsed in chunks of whole lines on all threads and delivered in file order.
constexpr std::size_t kJsonlChunkBytes = 8u << 20;

struct JsonlChunk {
  std::uint64_t begin = 0, end = 0;  // its bytes in the file: whole lines (the last one may be unterminated)
  std::string text;                  // those bytes, with simdjson::SIMDJSON_PADDING bytes reserved past size()
  std::uint64_t lines = 0;           // lines in it
  std::uint64_t rows = 0;            // lines that are not blank (counting only)
  ConversationArena parsed;          // its conversations in order, up to the first bad line
  std::exception_ptr error;          // that line's InputError (parse_jsonl_chunk)
  std::exception_ptr failure;        // reading it failed (for_each_jsonl_chunk)
};

// Cuts a shard into chunks of whole lines of about kJsonlChunkBytes: the cut after a chunk is the first line feed at
// or after kJsonlChunkBytes - 1 bytes into it, found by reading small windows there, so that one thread only places
// the cuts and the chunks themselves are read (pread) and parsed on all threads. A chunk that would hold a line of
// more than kMaxJsonlLineBytes ends just past that many bytes of it, for the parser to refuse.
class JsonlSplitter {
 public:
  explicit JsonlSplitter(const SourceShard& shard) : shard_(shard), file_(shard.path) {}
  // The next chunk's byte range, or false at the end of the file.
  bool next(JsonlChunk& chunk) {
    if (pos_ >= shard_.bytes) return false;
    chunk.begin = pos_;
    std::uint64_t cut = shard_.bytes;
    std::uint64_t from = pos_ + kJsonlChunkBytes - 1;
    const std::uint64_t give_up = pos_ + kJsonlChunkBytes + kMaxJsonlLineBytes;
    std::vector<char> window(64u << 10);
    while (from < shard_.bytes) {
      const std::size_t got = file_.read_at(window.data(), window.size(), from);
      if (got == 0)
        throw InputError(shard_.path.string(), "the file is shorter than when it was opened",
                         "do not change the sources while a build runs");
      if (const void* nl = std::memchr(window.data(), '\n', got)) {
        cut = from + static_cast<std::uint64_t>(static_cast<const char*>(nl) - window.data()) + 1;
        break;
      }
      from += got;
      if (from > give_up) {
        cut = std::min<std::uint64_t>(from, shard_.bytes);
        break;
      }
    }
    chunk.end = cut;
    pos_ = cut;
    return true;
  }
  // Reads a chunk's bytes (any thread) into a reused buffer.
  void read(JsonlChunk& chunk) {
    const std::size_t size = static_cast<std::size_t>(chunk.end - chunk.begin);
    chunk.text = take_buffer();
    chunk.text.reserve(size + simdjson::SIMDJSON_PADDING);
    chunk.text.resize(size);
    if (file_.read_at(chunk.text.data(), size, chunk.begin) != size)
      throw InputError(shard_.path.string(), "the file is shorter than when it was opened",
                       "do not change the sources while a build runs");
    chunk.lines = count_newlines(chunk.text) + (chunk.text.empty() || chunk.text.back() == '\n' ? 0 : 1);
  }
  // Takes back a chunk's buffer (any thread): reused buffers cost no page faults.
  void give_back(std::string&& buffer) {
    buffer.clear();
    std::lock_guard<std::mutex> lock(mu_);
    if (spare_.size() < 64) spare_.push_back(std::move(buffer));
  }

 private:
  std::string take_buffer() {
    std::lock_guard<std::mutex> lock(mu_);
    if (spare_.empty()) return {};
    std::string b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }
  const SourceShard& shard_;
  FileReader file_;
  std::uint64_t pos_ = 0;
  std::mutex mu_;
  std::vector<std::string> spare_;
};

// Parses every line of `chunk` into chunk.parsed; the first bad line's error goes to chunk.error, numbering the
// chunk's first line `first_line`.
void parse_jsonl_chunk(const SourceShard& shard, JsonlChunk& chunk, std::uint64_t first_line) {
  thread_local JsonlLineParser parser;
  std::vector<MessageView> conv;
  std::vector<std::pair<std::string, std::string>> owned;
  chunk.parsed = ConversationArena(chunk.text.size());  // the text it holds is shorter than the JSON
  chunk.error = nullptr;
  try {
    std::string_view rest(chunk.text);
    std::uint64_t line_no = first_line;
    while (!rest.empty()) {
      std::size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const std::uint64_t this_line = line_no++;
      if (line.size() > kMaxJsonlLineBytes)
        throw InputError(line_where(shard, this_line),
                         fmt::format("line is over the limit of {} bytes", kMaxJsonlLineBytes),
                         "split the conversation or check that the file is JSON Lines");
      if (is_blank(line)) continue;
      if (!parser.parse_fast(line, conv)) {
        parse_jsonl_line(line_where(shard, this_line), line, owned);
        conv.clear();
        for (const auto& [role, content] : owned) conv.push_back(MessageView{role, content});
      }
      const auto where = [&] { return line_where(shard, this_line); };
      check_message_count(where, conv.size());
      for (std::size_t k = 0; k < conv.size(); ++k) check_message_sizes(where, k, conv[k].role, conv[k].content);
      chunk.parsed.append(ConversationView(conv));
    }
  } catch (const InputError&) {
    chunk.error = std::current_exception();
  }
}

// Runs `work` (parallel, any thread) on every chunk of a JSONL shard and then `in_order` (one thread, file order),
// on `arena`'s threads. The first exception (from the splitter, `work` or `in_order`) stops the pass and is
// rethrown after the chunks before it went through `in_order`.
void for_each_jsonl_chunk(tbb::task_arena& arena, const SourceShard& shard,
                          const std::function<void(JsonlSplitter&, JsonlChunk&)>& work,
                          const std::function<void(JsonlSplitter&, JsonlChunk&)>& in_order) {
  JsonlSplitter splitter(shard);
  std::exception_ptr failed;
  arena.execute([&] {
    tbb::parallel_pipeline(
        static_cast<std::size_t>(arena.max_concurrency()) * 2,
        tbb::make_filter<void, std::shared_ptr<JsonlChunk>>(tbb::filter_mode::serial_in_order,
                                                            [&](tbb::flow_control& fc) -> std::shared_ptr<JsonlChunk> {
                                                              auto c = std::make_shared<JsonlChunk>();
                                                              try {
                                                                if (!failed && splitter.next(*c)) return c;
                                                              } catch (const InputError&) {
                                                                failed = std::current_exception();
                                                              }
                                                              fc.stop();
                                                              return nullptr;
                                                            }) &
            tbb::make_filter<std::shared_ptr<JsonlChunk>, std::shared_ptr<JsonlChunk>>(
                tbb::filter_mode::parallel,
                [&](std::shared_ptr<JsonlChunk> c) {
                  try {
                    work(splitter, *c);
                  } catch (const InputError&) {
                    c->failure = std::current_exception();
                  }
                  return c;
                }) &
            tbb::make_filter<std::shared_ptr<JsonlChunk>, void>(tbb::filter_mode::serial_in_order,
                                                                [&](std::shared_ptr<JsonlChunk> c) {
                                                                  if (failed) return;
                                                                  if (c->failure) {
                                                                    failed = c->failure;
                                                                    return;
                                                                  }
                                                                  try {
                                                                    in_order(splitter, *c);
                                                                  } catch (...) {
                                                                    failed = std::current_exception();
                                                                  }
                                                                }));
  });
  if (failed) std::rethrow_exception(failed);
}

// The rows of a JSONL shard (its lines that are not blank), counted on `arena`'s threads.
std::uint64_t count_jsonl_rows(tbb::task_arena& arena, const SourceShard& shard) {
  std::uint64_t rows = 0;
  for_each_jsonl_chunk(
      arena, shard,
      [](JsonlSplitter& splitter, JsonlChunk& c) {
        splitter.read(c);
        c.rows = count_rows(c.text);
        splitter.give_back(std::move(c.text));
      },
      [&](JsonlSplitter&, JsonlChunk& c) { rows += c.rows; });
  return rows;
}

// Reads a JSONL shard on `arena`'s threads: chunks are read and parsed in parallel and handed to `deliver` in file
// order (each chunk's conversations as an arena, its first conversation's global index). Throws the first bad line's
// InputError, with its line number, after delivering every conversation before it.
void read_jsonl(tbb::task_arena& arena, const SourceShard& shard, std::uint64_t& index,
                const std::function<void(ConversationArena&&, std::uint64_t first)>& deliver) {
  std::uint64_t rows = 0, lines = 0;
  for_each_jsonl_chunk(
      arena, shard,
      [&](JsonlSplitter& splitter, JsonlChunk& c) {
        splitter.read(c);
        parse_jsonl_chunk(shard, c, 1);  // line numbers only matter for an error, worded again below
        if (!c.error) splitter.give_back(std::move(c.text));
      },
      [&](JsonlSplitter& splitter, JsonlChunk& c) {
        if (c.error) {  // a bad line: parse again, numbering the lines from the file's start
          parse_jsonl_chunk(shard, c, lines + 1);
          splitter.give_back(std::move(c.text));
        }
        lines += c.lines;
        const std::uint64_t n = c.parsed.size();
        if (rows + n > shard.conversations)
          throw InputError(shard.path.string(), "the file has more rows than when it was opened",
                           "do not change the sources while a build runs");
        rows += n;
        const std::uint64_t first = index;
        index += n;
        deliver(std::move(c.parsed), first);
        if (c.error) std::rethrow_exception(c.error);
      });
  if (rows != shard.conversations)
    throw InputError(shard.path.string(),
                     fmt::format("read {} rows but counted {} when the file was opened", rows, shard.conversations),
                     "do not change the sources while a build runs");
}

}  // namespace

SourceSet SourceSet::open(const std::vector<fs::path>& files, unsigned threads) {
  if (files.empty()) throw InputError("--source", "no source files given", "give one or more .parquet or .jsonl files");
  SourceSet set;
  set.threads_ = threads;
  std::set<std::string> names;
  for (const auto& p : files) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) throw InputError(p.string(), "file not found", "check the path");
    if (!fs::is_regular_file(st)) throw InputError(p.string(), "not a regular file", "give the shard files themselves");
    SourceShard s;
    s.path = p;
    s.name = p.filename().string();
    s.format = format_of(p);
    s.bytes = fs::file_size(p, ec);
    if (ec) throw InputError(p.string(), "cannot read the file size: " + ec.message(), "check the file");
    if (!names.insert(s.name).second)
      throw InputError(p.string(), "two sources have the file name '" + s.name + "'",
                       "shards are ordered and recorded by file name: give each a distinct name");
    set.shards_.push_back(std::move(s));
  }
  std::sort(set.shards_.begin(), set.shards_.end(),
            [](const SourceShard& a, const SourceShard& b) { return a.name < b.name; });
  std::unique_ptr<db::DuckDbSession> db;
  tbb::task_arena arena(threads ? static_cast<int>(threads) : tbb::task_arena::automatic);
  for (auto& s : set.shards_) {
    if (s.format == SourceFormat::parquet) {
      if (!db) db = std::make_unique<db::DuckDbSession>(threads);
      open_parquet(*db, s);
    } else {
      s.conversations = count_jsonl_rows(arena, s);
    }
    s.first_index = set.total_;
    set.total_ += s.conversations;
    if (set.total_ > kMaxConversations)
      throw InputError(s.path.string(), fmt::format("the sources hold more than {} conversations", kMaxConversations),
                       "build from fewer shards");
  }
  return set;
}

void SourceSet::compute_sha256() {
  tbb::parallel_for(std::size_t{0}, shards_.size(), [&](std::size_t i) {
    FileReader f(shards_[i].path);
    Sha256 h;
    std::vector<char> buf(1u << 20);
    std::uint64_t total = 0;
    while (std::size_t got = f.read(buf.data(), buf.size())) {
      h.update(buf.data(), got);
      total += got;
    }
    if (total != shards_[i].bytes)
      throw InputError(shards_[i].path.string(),
                       fmt::format("the file is {} bytes but was {} when it was opened", total, shards_[i].bytes),
                       "do not change the sources while a build runs");
    shards_[i].sha256 = h.hex();
  });
}

namespace {

// Every shard in order: parquet through DuckDB (one conversation at a time), JSONL in parallel chunks. `each` gets
// every conversation (or, with `whole` set, `whole` gets each JSONL chunk as an arena, to take over).
void read_shards(const std::vector<SourceShard>& shards, unsigned threads,
                 const std::function<void(std::uint64_t, ConversationView)>& each,
                 const std::function<void(ConversationArena&&, std::uint64_t)>& whole) {
  std::unique_ptr<db::DuckDbSession> db;
  tbb::task_arena arena(threads ? static_cast<int>(threads) : tbb::task_arena::automatic);
  std::uint64_t index = 0;
  for (const auto& s : shards) {
    if (s.format == SourceFormat::parquet) {
      if (!db) db = std::make_unique<db::DuckDbSession>(threads);
      read_parquet(*db, s, index, each);
    } else if (whole) {
      read_jsonl(arena, s, index, whole);
    } else {
      read_jsonl(arena, s, index, [&](ConversationArena&& chunk, std::uint64_t first) {
        for (std::size_t i = 0; i < chunk.size(); ++i) each(first + i, chunk[i]);
      });
    }
  }
}

}  // namespace

void SourceSet::read_each(const std::function<void(std::uint64_t, ConversationView)>& fn) const {
  read_shards(shards_, threads_, fn, nullptr);
}

ConversationArena SourceSet::load_all() const {
  ConversationArena arena;
  read_shards(
      shards_, threads_, [&](std::uint64_t, ConversationView c) { arena.append(c); },
      [&](ConversationArena&& chunk, std::uint64_t) { arena.absorb(std::move(chunk)); });
  return arena;
}

}  // namespace openrecipes::rows
