// Source reader (SPEC §1.1): parquet shards through DuckDB's C API, JSONL through nlohmann::json, both checked
// strictly (schema, nulls, UTF-8, sizes) and delivered in shard-name order, rows in file order.
#include "rows/source/source_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/utf8.h"
#include "db/duckdb_session.h"

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

// Splits a file into lines (LF; a trailing CR is dropped) without holding more than one line plus one block.
// Lines are views into the reader's buffer, valid until the next call.
class LineReader {
 public:
  explicit LineReader(const SourceShard& shard) : shard_(shard), file_(shard.path), buf_(1u << 22) {}
  // Next line (without its newline) and its 1-based number; false at the end.
  bool next(std::string_view& line, std::uint64_t& number) {
    for (;;) {
      if (auto nl = pending_.find('\n', scan_from_); nl != std::string::npos) {
        line = std::string_view(pending_).substr(start_, nl - start_);
        start_ = scan_from_ = nl + 1;
        return emit(line, number);
      }
      if (eof_) {
        if (start_ == pending_.size()) return false;
        line = std::string_view(pending_).substr(start_);
        start_ = scan_from_ = pending_.size();
        return emit(line, number);
      }
      pending_.erase(0, start_);  // keep only the unfinished line
      start_ = 0;
      scan_from_ = pending_.size();
      if (pending_.size() > kMaxJsonlLineBytes) too_long();
      const std::size_t got = file_.read(buf_.data(), buf_.size());
      if (got == 0) eof_ = true;
      pending_.append(buf_.data(), got);
    }
  }

 private:
  [[noreturn]] void too_long() const {
    throw InputError(line_where(shard_, line_no_ + 1),
                     fmt::format("line is over the limit of {} bytes", kMaxJsonlLineBytes),
                     "split the conversation or check that the file is JSON Lines");
  }
  bool emit(std::string_view& line, std::uint64_t& number) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxJsonlLineBytes) too_long();
    number = ++line_no_;
    return true;
  }
  const SourceShard& shard_;
  FileReader file_;
  std::vector<char> buf_;
  std::string pending_;
  std::size_t start_ = 0, scan_from_ = 0;
  bool eof_ = false;
  std::uint64_t line_no_ = 0;
};

bool is_blank(std::string_view line) { return trim(line).empty(); }

std::uint64_t count_jsonl_rows(const SourceShard& shard) {
  LineReader lines(shard);
  std::string_view line;
  std::uint64_t number = 0, rows = 0;
  while (lines.next(line, number))
    if (!is_blank(line)) ++rows;
  return rows;
}

// Size bounds; `where` is only called to build a message when a bound is broken.
template <typename Where>
void check_message_sizes(const Where& where, std::size_t k, std::string_view role, std::string_view content) {
  if (content.size() > kMaxMessageBytes) [[unlikely]]
    throw InputError(where(),
                     fmt::format("messages[{}].content is {} bytes, over the limit of {} bytes", k, content.size(),
                                 kMaxMessageBytes),
                     "drop or split that conversation");
  if (role.size() > kMaxRoleBytes) [[unlikely]]
    throw InputError(
        where(),
        fmt::format("messages[{}].role is {} bytes, over the limit of {} bytes", k, role.size(), kMaxRoleBytes),
        "roles are short names such as user, assistant, system");
}

template <typename Where>
void check_message_count(const Where& where, std::uint64_t count) {
  if (count > kMaxMessagesPerConversation) [[unlikely]]
    throw InputError(
        where(),
        fmt::format("the conversation has {} messages, over the limit of {}", count, kMaxMessagesPerConversation),
        "drop or split that conversation");
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

// Parses one JSONL line into `owned` (role, content pairs). Throws InputError naming the line.
void parse_jsonl_line(const SourceShard& shard, std::uint64_t line_no, std::string_view line,
                      std::vector<std::pair<std::string, std::string>>& owned) {
  const std::string where = line_where(shard, line_no);
  if (auto bad = find_invalid_utf8(line); bad != std::string_view::npos)
    throw InputError(where, "not valid UTF-8 at " + describe_invalid_utf8(line, bad),
                     "re-encode the file as UTF-8 (or fix that line)");
  nlohmann::json row;
  try {
    // The callback bounds nesting: a line of a million '[' would otherwise cost memory for nothing.
    row = nlohmann::json::parse(line, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > static_cast<int>(kMaxJsonDepth))
        throw InputError(where, fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth),
                         "each line is {\"messages\": [{\"role\": ..., \"content\": ...}, ...], ...}");
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, std::string("not valid JSON: ") + e.what(), "each line must be one JSON object");
  }
  if (!row.is_object())
    throw InputError(where, std::string("the line is a JSON ") + row.type_name() + ", not an object",
                     "each line must be one JSON object with a `messages` list");
  auto it = row.find("messages");
  if (it == row.end())
    throw InputError(where, "no `messages` key",
                     "each line needs \"messages\": [{\"role\": ..., \"content\": ...}, ...]");
  if (it->is_null()) throw InputError(where, "messages is null", "drop the row or give it a list of messages");
  if (!it->is_array())
    throw InputError(where, std::string("messages is a JSON ") + it->type_name() + ", expected a list",
                     "messages must be a list of {\"role\", \"content\"} objects");
  const auto where_fn = [&] { return where; };
  check_message_count(where_fn, it->size());
  owned.clear();
  std::size_t k = 0;
  for (auto& m : *it) {
    if (m.is_null()) throw InputError(where, fmt::format("messages[{}] is null", k), "drop the null message");
    if (!m.is_object())
      throw InputError(where, fmt::format("messages[{}] is a JSON {}, expected an object", k, m.type_name()),
                       "each message is {\"role\": ..., \"content\": ...}");
    for (auto f = m.begin(); f != m.end(); ++f)
      if (f.key() != "role" && f.key() != "content")
        throw InputError(where,
                         fmt::format("messages[{}] has a field `{}`; only content and role are read", k, f.key()),
                         "give messages of exactly {content, role}, or render that field into content");
    for (const char* field : {"role", "content"}) {
      auto v = m.find(field);
      if (v == m.end() || v->is_null())
        throw InputError(where, fmt::format("messages[{}].{} is {}", k, field, v == m.end() ? "missing" : "null"),
                         std::string(field) == "role" ? "give every message a role (user, assistant, system, ...)"
                                                      : "give every message a string content (\"\" for an empty one)");
      if (!v->is_string())
        throw InputError(where,
                         fmt::format("messages[{}].{} is a JSON {}, expected a string", k, field, v->type_name()),
                         "content and role are strings");
    }
    owned.emplace_back(std::move(m["role"].get_ref<std::string&>()), std::move(m["content"].get_ref<std::string&>()));
    check_message_sizes(where_fn, k, owned.back().first, owned.back().second);
    ++k;
  }
}

void read_jsonl(const SourceShard& shard, std::uint64_t& index,
                const std::function<void(std::uint64_t, ConversationView)>& fn) {
  LineReader lines(shard);
  std::string_view line;
  std::uint64_t line_no = 0, rows = 0;
  std::vector<std::pair<std::string, std::string>> owned;
  std::vector<MessageView> conv;
  while (lines.next(line, line_no)) {
    if (is_blank(line)) continue;
    if (rows >= shard.conversations)
      throw InputError(shard.path.string(), "the file has more rows than when it was opened",
                       "do not change the sources while a build runs");
    parse_jsonl_line(shard, line_no, line, owned);
    conv.clear();
    for (const auto& [role, content] : owned) conv.push_back(MessageView{role, content});
    ++rows;
    fn(index++, ConversationView(conv));
  }
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
  for (auto& s : set.shards_) {
    if (s.format == SourceFormat::parquet) {
      if (!db) db = std::make_unique<db::DuckDbSession>(threads);
      open_parquet(*db, s);
    } else {
      s.conversations = count_jsonl_rows(s);
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

void SourceSet::read_each(const std::function<void(std::uint64_t, ConversationView)>& fn) const {
  std::unique_ptr<db::DuckDbSession> db;
  std::uint64_t index = 0;
  for (const auto& s : shards_) {
    if (s.format == SourceFormat::parquet) {
      if (!db) db = std::make_unique<db::DuckDbSession>(threads_);
      read_parquet(*db, s, index, fn);
    } else {
      read_jsonl(s, index, fn);
    }
  }
}

ConversationArena SourceSet::load_all() const {
  ConversationArena arena;
  read_each([&](std::uint64_t, ConversationView c) { arena.append(c); });
  return arena;
}

}  // namespace openrecipes::rows
