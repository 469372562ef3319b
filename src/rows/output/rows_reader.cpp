// rows.parquet reader (SPEC §1.7–1.8): schema check, then rows streamed chunk by chunk from DuckDB in file order.
#include "rows/output/rows_reader.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"
#include "db/duckdb_session.h"
#include "rows/output/rows_hash.h"

namespace openrecipes::rows {
namespace fs = std::filesystem;
namespace {

const char* const kReaderFix =
    "give a rows.parquet written by `openrecipes rows build` (one column input_ids: list<int32>)";

std::string damaged_fix() { return "the file is damaged or incomplete: build the rows again (openrecipes rows build)"; }

}  // namespace

struct RowsParquetReader::State {
  fs::path path;
  std::unique_ptr<db::DuckDbSession> db;
  std::optional<db::QueryResult> result;
  std::unique_ptr<db::DataChunk> chunk;
  std::size_t chunk_row = 0, chunk_size = 0;
  std::uint64_t row_count = 0, rows_read = 0;
  std::uint32_t row_length = 0;
  bool done = false;

  std::string where_row(std::uint64_t row) const { return fmt::format("{}: row {}", path.string(), row); }
};

RowsParquetReader::RowsParquetReader(const fs::path& path, std::uint32_t expected_row_length, unsigned threads)
    : s_(std::make_unique<State>()) {
  s_->path = path;
  s_->row_length = expected_row_length;
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path.string(), "file not found", "check the path");
  if (!fs::is_regular_file(st)) throw InputError(path.string(), "not a regular file", "give the rows.parquet file");
  if (expected_row_length > kMaxRowLength)
    throw InputError(path.string(),
                     fmt::format("row length {} is over the limit of {}", expected_row_length, kMaxRowLength),
                     fmt::format("use a row length of at most {}", kMaxRowLength));
  const std::string lit = db::sql_literal(db::duckdb_file_path(path));
  try {
    s_->db = std::make_unique<db::DuckDbSession>(threads);
    auto cols = s_->db->query("DESCRIBE SELECT * FROM read_parquet(" + lit + ")");
    std::string listing;
    for (std::size_t r = 0; r < cols.row_count(); ++r)
      listing += fmt::format("{}{} {}", r ? ", " : "", cols.value_text(0, r), cols.value_text(1, r));
    if (cols.row_count() != 1 || cols.value_text(0, 0) != "input_ids")
      throw InputError(path.string(),
                       fmt::format("expected one column input_ids: list<int32>, the file has: {}", listing),
                       kReaderFix);
    auto probe = s_->db->query("SELECT input_ids FROM read_parquet(" + lit + ") LIMIT 0");
    db::LogicalType t = probe.column_type(0);
    bool ok = t.id() == DUCKDB_TYPE_LIST;
    if (ok) {
      db::LogicalType child(duckdb_list_type_child_type(t.get()));
      ok = child.id() == DUCKDB_TYPE_INTEGER;
    }
    if (!ok)
      throw InputError(
          path.string(),
          fmt::format("column input_ids has type {}, expected list<int32> (INTEGER[])", db::describe_type(t.get())),
          kReaderFix);
    auto meta = s_->db->query("SELECT num_rows FROM parquet_file_metadata(" + lit + ")");
    auto n = parse_int(meta.value_text(0, 0));
    if (!n || *n < 0) throw InputError(path.string(), "the parquet footer gives no row count", damaged_fix());
    s_->row_count = static_cast<std::uint64_t>(*n);
    s_->result.emplace(
        s_->db->stream("SELECT file_row_number, input_ids FROM read_parquet(" + lit + ", file_row_number=true)"));
  } catch (const db::DuckDbError& e) {
    throw InputError(path.string(), std::string("cannot read the parquet file: ") + e.what(), damaged_fix());
  }
}

RowsParquetReader::~RowsParquetReader() = default;

std::uint64_t RowsParquetReader::row_count() const { return s_->row_count; }
std::uint32_t RowsParquetReader::row_length() const { return s_->row_length; }
std::uint64_t RowsParquetReader::rows_read() const { return s_->rows_read; }

bool RowsParquetReader::next(std::span<const std::int32_t>& row) {
  State& s = *s_;
  if (s.done) return false;
  if (!s.chunk || s.chunk_row == s.chunk_size) {
    s.chunk.reset();
    try {
      duckdb_data_chunk c = s.result->next_chunk();
      if (!c) {
        s.done = true;
        if (s.rows_read != s.row_count)
          throw InputError(s.path.string(),
                           fmt::format("read {} rows but the footer says {}", s.rows_read, s.row_count), damaged_fix());
        return false;
      }
      s.chunk = std::make_unique<db::DataChunk>(c);
    } catch (const db::DuckDbError& e) {
      throw InputError(fmt::format("{}: row {} or later", s.path.string(), s.rows_read),
                       std::string("cannot read the parquet file: ") + e.what(), damaged_fix());
    }
    s.chunk_row = 0;
    s.chunk_size = s.chunk->size();
    if (s.chunk_size == 0) return next(row);
  }
  const std::size_t r = s.chunk_row++;
  const std::uint64_t index = s.rows_read;
  const auto* rownum = static_cast<const std::int64_t*>(duckdb_vector_get_data(s.chunk->vector(0)));
  if (rownum[r] != static_cast<std::int64_t>(index))
    throw InputError(s.where_row(index), fmt::format("DuckDB delivered file row {} out of order", rownum[r]),
                     "report this as a bug in the rows reader");
  duckdb_vector list = s.chunk->vector(1);
  if (!db::row_valid(duckdb_vector_get_validity(list), r))
    throw InputError(s.where_row(index), "input_ids is null", damaged_fix());
  const auto& e = static_cast<const duckdb_list_entry*>(duckdb_vector_get_data(list))[r];
  if (e.length > kMaxRowLength)
    throw InputError(s.where_row(index), fmt::format("row has {} ids, over the limit of {}", e.length, kMaxRowLength),
                     kReaderFix);
  if (s.row_length == 0) {
    if (e.length == 0) throw InputError(s.where_row(index), "row has no ids", kReaderFix);
    s.row_length = static_cast<std::uint32_t>(e.length);
  }
  if (e.length != s.row_length)
    throw InputError(s.where_row(index),
                     fmt::format("row has {} ids, expected {} (every row has length L)", e.length, s.row_length),
                     kReaderFix);
  duckdb_vector child = duckdb_list_vector_get_child(list);
  if (const std::uint64_t* valid = duckdb_vector_get_validity(child)) {
    for (std::uint64_t k = 0; k < e.length; ++k)
      if (!db::row_valid(valid, static_cast<std::size_t>(e.offset + k)))
        throw InputError(s.where_row(index), fmt::format("input_ids[{}] is null", k), damaged_fix());
  }
  const auto* ids = static_cast<const std::int32_t*>(duckdb_vector_get_data(child));
  row = std::span<const std::int32_t>(ids + e.offset, static_cast<std::size_t>(e.length));
  ++s.rows_read;
  return true;
}

}  // namespace openrecipes::rows
