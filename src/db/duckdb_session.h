// A thin RAII layer over DuckDB's C API (DuckDB 1.4.4, <duckdb.h>), a module of its own so that only the stages that
// read or write parquet link libduckdb (today the rows source reader and rows output): an in-memory database
// that reads and writes parquet (SPEC §1.1, §1.7), results fetched chunk by chunk, and type descriptions for
// error messages. Errors are DuckDbError, which callers turn into InputError with a file.
#pragma once

#include <duckdb.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace openrecipes::db {

/// DuckDB's error message without the SQL it echoes: from the first line starting "LINE " (the statement and
/// the caret under it) on, and trailing blank lines, are cut. The file name and reason stay.
std::string strip_duckdb_sql_echo(std::string_view message);

/// A DuckDB call that failed; what() is DuckDB's own message minus its echo of our SQL (strip_duckdb_sql_echo).
class DuckDbError : public std::runtime_error {
 public:
  explicit DuckDbError(std::string_view message) : std::runtime_error(strip_duckdb_sql_echo(message)) {}
};

/// An owned duckdb_logical_type.
class LogicalType {
 public:
  explicit LogicalType(duckdb_logical_type t) : t_(t) {}
  ~LogicalType() {
    if (t_) duckdb_destroy_logical_type(&t_);
  }
  LogicalType(const LogicalType&) = delete;
  LogicalType& operator=(const LogicalType&) = delete;
  duckdb_logical_type get() const { return t_; }
  duckdb_type id() const { return duckdb_get_type_id(t_); }

 private:
  duckdb_logical_type t_;
};

/// A query result: materialized (query) or streaming (stream). Chunks come in result order.
class QueryResult {
 public:
  QueryResult() = default;
  ~QueryResult();
  QueryResult(QueryResult&& o) noexcept;
  QueryResult& operator=(QueryResult&&) = delete;
  QueryResult(const QueryResult&) = delete;
  duckdb_result* raw() { return &r_; }
  LogicalType column_type(std::size_t col) { return LogicalType(duckdb_column_logical_type(&r_, col)); }
  /// Next chunk, or nullptr at the end. Throws DuckDbError when the query fails while producing it.
  duckdb_data_chunk next_chunk();
  /// Materialized results only: the value at (col, row) as text ("NULL" for null).
  std::string value_text(std::size_t col, std::size_t row);
  std::size_t row_count() { return duckdb_row_count(&r_); }

 private:
  friend class DuckDbSession;
  duckdb_result r_{};
  bool live_ = false;
};

/// An owned duckdb_data_chunk from a result.
class DataChunk {
 public:
  explicit DataChunk(duckdb_data_chunk c) : c_(c) {}
  ~DataChunk() {
    if (c_) duckdb_destroy_data_chunk(&c_);
  }
  DataChunk(const DataChunk&) = delete;
  DataChunk& operator=(const DataChunk&) = delete;
  duckdb_data_chunk get() const { return c_; }
  explicit operator bool() const { return c_ != nullptr; }
  std::size_t size() const { return duckdb_data_chunk_get_size(c_); }
  duckdb_vector vector(std::size_t col) const { return duckdb_data_chunk_get_vector(c_, col); }

 private:
  duckdb_data_chunk c_;
};

/// An in-memory DuckDB database with one connection. `threads` 0 keeps DuckDB's default (all cores).
/// Extension auto-install and auto-load are off (parquet and json are built into the library; nothing is
/// fetched from the network). Not thread-safe: one session per thread.
class DuckDbSession {
 public:
  explicit DuckDbSession(unsigned threads = 0);
  ~DuckDbSession();
  DuckDbSession(const DuckDbSession&) = delete;
  DuckDbSession& operator=(const DuckDbSession&) = delete;

  duckdb_connection connection() const { return con_; }
  /// Runs `sql` to completion (materialized). Throws DuckDbError.
  QueryResult query(const std::string& sql);
  /// Runs `sql` as a streaming query: chunks are produced as next_chunk() asks. Throws DuckDbError.
  QueryResult stream(const std::string& sql);
  /// Asks a running query on this connection to stop (thread-safe; used to cancel a COPY).
  void interrupt() { duckdb_interrupt(con_); }

 private:
  duckdb_database db_ = nullptr;
  duckdb_connection con_ = nullptr;
};

/// `s` as a SQL string literal: '...' with single quotes doubled. Throws DuckDbError on a NUL byte.
std::string sql_literal(std::string_view s);

/// A local file path for read_parquet / COPY TO: absolute, and free of DuckDB glob characters (* ? [) and of
/// NUL, which DuckDB would expand or cut. Throws InputError naming the path and the fix.
std::string duckdb_file_path(const std::filesystem::path& path);

/// A type as DuckDB writes it (e.g. STRUCT(content VARCHAR, role VARCHAR)[]), for error messages.
std::string describe_type(duckdb_logical_type type);

/// Row `row` of a vector is valid (not NULL). `validity` may be nullptr (all valid).
inline bool row_valid(const std::uint64_t* validity, std::size_t row) {
  return validity == nullptr || ((validity[row / 64] >> (row % 64)) & 1u);
}

/// The bytes of a DuckDB string (inlined or not).
inline std::string_view string_view_of(duckdb_string_t& s) {
  return std::string_view(duckdb_string_t_data(&s), duckdb_string_t_length(s));
}

}  // namespace openrecipes::db
