// Tests for src/rows/output/rows_reader (SPEC §1.7): only one column input_ids: list<int32> with rows of one length L
// is a rows file; every other shape, a damaged file and a missing file are input errors naming the file (and row).
#include "rows/output/rows_reader.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "db/duckdb_session.h"
#include "rows/output/formula_rows.h"
#include "rows/output/rows_writer.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

namespace fs = std::filesystem;
using openrecipes::testing::TempDir;
using ::testing::HasSubstr;

fs::path from_sql(const TempDir& tmp, const std::string& name, const std::string& select) {
  db::DuckDbSession db(1);
  fs::path p = tmp / name;
  db.query(fmt::format("COPY ({}) TO {} (FORMAT parquet)", select, db::sql_literal(p.string())));
  return p;
}

// Reads every row.
void read_all(const fs::path& p, std::uint32_t L = 0) {
  RowsParquetReader r(p, L);
  std::span<const std::int32_t> row;
  while (r.next(row)) {
  }
}

// Reads every row; returns the InputError's message (openrecipes::testing::message_of).
std::string read_error(const fs::path& p, std::uint32_t L = 0) {
  return openrecipes::testing::message_of([&] { read_all(p, L); });
}

TEST(RowsReader, sql_written_list_int32_rows_read_back_with_inferred_length) {
  TempDir tmp;
  auto p =
      from_sql(tmp, "r.parquet",
               "SELECT input_ids FROM (VALUES (0, [1, 2, 3]::INTEGER[]), (1, [4, 5, 6]), (2, [-7, 8, 2147483647])) "
               "v(i, input_ids) ORDER BY i");
  RowsParquetReader r(p);
  EXPECT_EQ(r.row_count(), 3u);
  EXPECT_EQ(r.row_length(), 0u);
  std::vector<std::vector<std::int32_t>> got;
  std::span<const std::int32_t> row;
  while (r.next(row)) got.emplace_back(row.begin(), row.end());
  EXPECT_EQ(got, (std::vector<std::vector<std::int32_t>>{{1, 2, 3}, {4, 5, 6}, {-7, 8, 2147483647}}));
  EXPECT_EQ(r.row_length(), 3u);
  EXPECT_EQ(r.rows_read(), 3u);
}

TEST(RowsReader, wrong_schemas_are_refused_with_what_the_file_has) {
  TempDir tmp;
  struct Case {
    std::string name, select, expect;
  };
  for (const auto& c : std::vector<Case>{
           {"two.parquet", "SELECT [1]::INTEGER[] AS input_ids, 1 AS x",
            "expected one column input_ids: list<int32>, the file has: input_ids INTEGER[], x INTEGER"},
           {"named.parquet", "SELECT [1]::INTEGER[] AS tokens",
            "expected one column input_ids: list<int32>, the file has: tokens INTEGER[]"},
           {"bigint.parquet", "SELECT [1]::BIGINT[] AS input_ids",
            "column input_ids has type BIGINT[], expected list<int32>"},
           {"scalar.parquet", "SELECT 1 AS input_ids", "column input_ids has type INTEGER, expected list<int32>"},
       }) {
    auto e = read_error(from_sql(tmp, c.name, c.select));
    EXPECT_THAT(e, HasSubstr(c.name + ": " + c.expect)) << e;
  }
}

TEST(RowsReader, null_rows_null_ids_and_unequal_lengths_name_the_row) {
  TempDir tmp;
  auto rows3 = [](const std::string& third) {
    return fmt::format(
        "SELECT input_ids FROM (VALUES (0, [1, 2]::INTEGER[]), (1, [3, 4]), (2, {})) v(i, input_ids) "
        "ORDER BY i",
        third);
  };
  EXPECT_THAT(read_error(from_sql(tmp, "nullrow.parquet", rows3("NULL"))),
              HasSubstr("nullrow.parquet: row 2: input_ids is null"));
  EXPECT_THAT(read_error(from_sql(tmp, "nullid.parquet", rows3("[5, NULL]"))),
              HasSubstr("nullid.parquet: row 2: input_ids[1] is null"));
  EXPECT_THAT(read_error(from_sql(tmp, "short.parquet", rows3("[5]"))),
              HasSubstr("short.parquet: row 2: row has 1 ids, expected 2 (every row has length L)"));
  // With L given, the first row is checked too.
  EXPECT_THAT(read_error(from_sql(tmp, "ok.parquet", rows3("[5, 6]")), 3),
              HasSubstr("ok.parquet: row 0: row has 2 ids, expected 3"));
  EXPECT_NO_THROW(read_all(tmp / "ok.parquet", 2));
}

TEST(RowsReader, missing_garbage_and_truncated_files_are_input_errors) {
  TempDir tmp;
  EXPECT_THAT(read_error(tmp / "none.parquet"), HasSubstr("none.parquet: file not found"));
  auto g = tmp.write("garbage.parquet", std::string(100, '\x07'));
  EXPECT_THAT(read_error(g), HasSubstr("garbage.parquet: cannot read the parquet file"));
  {
    RowsParquetWriter w(tmp / "full.parquet", 1024);
    for (std::uint64_t r = 0; r < 200; ++r) w.append_row(testing::formula_row(r, 1024, 0));
    w.commit();
  }
  std::string bytes = read_file(tmp / "full.parquet", 1ull << 30);
  auto t = tmp.write("truncated.parquet", bytes.substr(0, bytes.size() - 100));
  EXPECT_THAT(read_error(t), HasSubstr("truncated.parquet: cannot read the parquet file"));
  // Damage inside the data pages, footer intact.
  std::string mid = bytes;
  for (std::size_t i = 100; i < mid.size() / 2; i += 3) mid[i] = static_cast<char>(mid[i] ^ 0x5a);
  auto m = tmp.write("mangled.parquet", mid);
  EXPECT_THAT(read_error(m), HasSubstr("mangled.parquet"));  // read_error fails the test when nothing is thrown
}

}  // namespace
}  // namespace openrecipes::rows
