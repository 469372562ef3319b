// RAII wrappers over DuckDB's C API used by the source reader and the rows.parquet writer/reader (SPEC §1.1, §1.7).
#include "db/duckdb_session.h"

#include <utility>

#include <fmt/format.h>

#include "core/error.h"

namespace openrecipes::db {

QueryResult::~QueryResult() {
  if (live_) duckdb_destroy_result(&r_);
}

QueryResult::QueryResult(QueryResult&& o) noexcept : r_(o.r_), live_(o.live_) { o.live_ = false; }

duckdb_data_chunk QueryResult::next_chunk() {
  duckdb_data_chunk c = duckdb_fetch_chunk(r_);
  if (!c) {
    const char* err = duckdb_result_error(&r_);
    if (err && *err) throw DuckDbError(err);
  }
  return c;
}

std::string QueryResult::value_text(std::size_t col, std::size_t row) {
  char* v = duckdb_value_varchar(&r_, col, row);
  if (!v) return "NULL";
  std::string s(v);
  duckdb_free(v);
  return s;
}

DuckDbSession::DuckDbSession(unsigned threads) {
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) == DuckDBError) {
    duckdb_destroy_config(&config);
    throw DuckDbError("cannot create a DuckDB configuration");
  }
  duckdb_set_config(config, "autoinstall_known_extensions", "false");
  duckdb_set_config(config, "autoload_known_extensions", "false");
  if (threads > 0) duckdb_set_config(config, "threads", std::to_string(threads).c_str());
  char* error = nullptr;
  duckdb_state st = duckdb_open_ext(nullptr, &db_, config, &error);
  duckdb_destroy_config(&config);
  if (st == DuckDBError) {
    std::string msg = error ? error : "unknown error";
    if (error) duckdb_free(error);
    throw DuckDbError("cannot open DuckDB: " + msg);
  }
  if (duckdb_connect(db_, &con_) == DuckDBError) {
    duckdb_close(&db_);
    throw DuckDbError("cannot connect to DuckDB");
  }
}

DuckDbSession::~DuckDbSession() {
  // Stop DuckDB's worker threads while the connection still exists. A worker can still be finishing a task of a
  // query we abandoned (an error mid-stream) when the connection goes; DuckDB 1.4.4 then touches the freed client
  // context from that worker and the database's shutdown waits on it forever (seen as a hang of `rows verify`
  // after a short read). `SET threads = 1` joins the workers before it returns (checked: 4 threads, then 1).
  if (con_) {
    duckdb_result r{};
    duckdb_query(con_, "SET threads = 1", &r);
    duckdb_destroy_result(&r);
    duckdb_disconnect(&con_);
  }
  if (db_) duckdb_close(&db_);
}

QueryResult DuckDbSession::query(const std::string& sql) {
  QueryResult r;
  duckdb_state st = duckdb_query(con_, sql.c_str(), &r.r_);
  r.live_ = true;
  if (st == DuckDBError) {
    const char* err = duckdb_result_error(&r.r_);
    throw DuckDbError(err ? err : "query failed");
  }
  return r;
}

QueryResult DuckDbSession::stream(const std::string& sql) {
  duckdb_prepared_statement stmt = nullptr;
  if (duckdb_prepare(con_, sql.c_str(), &stmt) == DuckDBError) {
    std::string msg = duckdb_prepare_error(stmt) ? duckdb_prepare_error(stmt) : "prepare failed";
    duckdb_destroy_prepare(&stmt);
    throw DuckDbError(msg);
  }
  QueryResult r;
  duckdb_state st = duckdb_execute_prepared_streaming(stmt, &r.r_);
  duckdb_destroy_prepare(&stmt);
  r.live_ = true;
  if (st == DuckDBError) {
    const char* err = duckdb_result_error(&r.r_);
    throw DuckDbError(err ? err : "query failed");
  }
  return r;
}

std::string strip_duckdb_sql_echo(std::string_view message) {
  std::string out(message);
  for (std::size_t pos = 0; pos < out.size();) {
    if (out.compare(pos, 5, "LINE ") == 0 && (pos == 0 || out[pos - 1] == '\n')) {
      out.resize(pos);
      break;
    }
    const std::size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\r')) out.pop_back();
  return out.empty() ? std::string(message) : out;
}

std::string sql_literal(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\0') throw DuckDbError("a SQL string may not contain a NUL byte");
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
  return out;
}

std::string duckdb_file_path(const std::filesystem::path& path) {
  std::string s = std::filesystem::absolute(path).lexically_normal().string();
  if (s.find_first_of(std::string("*?[\0", 4)) != std::string::npos)
    throw InputError(path.string(), "the path contains * ? [ or a NUL byte, which DuckDB reads as a file pattern",
                     "rename the file (or its folder) without those characters");
  return s;
}

std::string describe_type(duckdb_logical_type type) {
  switch (duckdb_get_type_id(type)) {
    case DUCKDB_TYPE_BOOLEAN:
      return "BOOLEAN";
    case DUCKDB_TYPE_TINYINT:
      return "TINYINT";
    case DUCKDB_TYPE_SMALLINT:
      return "SMALLINT";
    case DUCKDB_TYPE_INTEGER:
      return "INTEGER";
    case DUCKDB_TYPE_BIGINT:
      return "BIGINT";
    case DUCKDB_TYPE_UTINYINT:
      return "UTINYINT";
    case DUCKDB_TYPE_USMALLINT:
      return "USMALLINT";
    case DUCKDB_TYPE_UINTEGER:
      return "UINTEGER";
    case DUCKDB_TYPE_UBIGINT:
      return "UBIGINT";
    case DUCKDB_TYPE_HUGEINT:
      return "HUGEINT";
    case DUCKDB_TYPE_FLOAT:
      return "FLOAT";
    case DUCKDB_TYPE_DOUBLE:
      return "DOUBLE";
    case DUCKDB_TYPE_VARCHAR:
      return "VARCHAR";
    case DUCKDB_TYPE_BLOB:
      return "BLOB";
    case DUCKDB_TYPE_DATE:
      return "DATE";
    case DUCKDB_TYPE_TIMESTAMP:
      return "TIMESTAMP";
    case DUCKDB_TYPE_DECIMAL:
      return "DECIMAL";
    case DUCKDB_TYPE_LIST: {
      LogicalType child(duckdb_list_type_child_type(type));
      return describe_type(child.get()) + "[]";
    }
    case DUCKDB_TYPE_ARRAY: {
      LogicalType child(duckdb_array_type_child_type(type));
      return fmt::format("{}[{}]", describe_type(child.get()), duckdb_array_type_array_size(type));
    }
    case DUCKDB_TYPE_STRUCT: {
      std::string s = "STRUCT(";
      const idx_t n = duckdb_struct_type_child_count(type);
      for (idx_t i = 0; i < n; ++i) {
        char* name = duckdb_struct_type_child_name(type, i);
        LogicalType child(duckdb_struct_type_child_type(type, i));
        s += fmt::format("{}{} {}", i ? ", " : "", name ? name : "?", describe_type(child.get()));
        if (name) duckdb_free(name);
      }
      return s + ")";
    }
    case DUCKDB_TYPE_MAP:
      return "MAP";
    default:
      return fmt::format("DuckDB type #{}", static_cast<int>(duckdb_get_type_id(type)));
  }
}

}  // namespace openrecipes::db
