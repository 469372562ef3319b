// Tests for src/db/duckdb_session: DuckDB's echo of our SQL is cut from its messages, SQL string literals are
// quoted and NUL-free, file paths given to DuckDB are absolute and free of glob characters, and a live session
// runs a query end to end.
#include "db/duckdb_session.h"

#include <string>

#include <gtest/gtest.h>

#include "core/error.h"

namespace openrecipes::db {
namespace {

TEST(DuckDbErrors, the_echo_of_our_sql_is_cut_from_duckdb_messages) {
  // DuckDB's binder errors end with "LINE 1: <our SQL>" and a caret line.
  EXPECT_EQ(strip_duckdb_sql_echo("Binder Error: Referenced column \"messages\" not found\n"
                                  "LINE 1: DESCRIBE SELECT * FROM read_parquet('x.parquet')\n"
                                  "                         ^"),
            "Binder Error: Referenced column \"messages\" not found");
  EXPECT_EQ(strip_duckdb_sql_echo("IO Error: No files found that match the pattern \"x\""),
            "IO Error: No files found that match the pattern \"x\"");
}

TEST(DuckDbSql, a_string_literal_doubles_its_quotes_and_refuses_a_nul_byte) {
  EXPECT_EQ(sql_literal("rows.parquet"), "'rows.parquet'");
  EXPECT_EQ(sql_literal("it's"), "'it''s'");
  EXPECT_EQ(sql_literal("'); DROP TABLE x; --"), "'''); DROP TABLE x; --'");
  EXPECT_THROW(sql_literal(std::string("a\0b", 3)), DuckDbError);
}

TEST(DuckDbSql, file_paths_are_absolute_and_glob_characters_are_refused) {
  EXPECT_EQ(duckdb_file_path("/data/shard-00000.parquet"), "/data/shard-00000.parquet");
  EXPECT_EQ(duckdb_file_path("/data/x/../shard.parquet"), "/data/shard.parquet");
  EXPECT_THROW(duckdb_file_path("/data/*.parquet"), InputError);
  EXPECT_THROW(duckdb_file_path("/data/shard?.parquet"), InputError);
  EXPECT_THROW(duckdb_file_path("/data/[a].parquet"), InputError);
}

TEST(DuckDbSession, a_query_runs_in_the_session_and_its_value_reads_back) {
  DuckDbSession session(1);
  QueryResult r = session.query("SELECT 40 + 2 AS answer");
  EXPECT_EQ(r.row_count(), 1u);
  EXPECT_EQ(r.value_text(0, 0), "42");
  EXPECT_THROW(session.query("SELECT * FROM no_such_table"), DuckDbError);
}

}  // namespace
}  // namespace openrecipes::db
