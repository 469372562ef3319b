// Tests for src/rows/output/rows_writer (SPEC §1.7-1.8): rows.parquet round trip, rows_sha256 against numpy + hashlib,
// deterministic bytes, and the atomic-write guarantee (exception and SIGTERM mid-write leave nothing behind).
#include "rows/output/rows_writer.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "db/duckdb_session.h"
#include "rows/output/formula_rows.h"
#include "rows/output/rows_reader.h"
#include "rows/output/rows_verify.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

namespace fs = std::filesystem;
using openrecipes::testing::TempDir;
using rows::testing::formula_row;
using rows::testing::rows_oracle;
using ::testing::HasSubstr;

RowsWriteResult write_formula(const fs::path& path, std::uint64_t rows, std::uint32_t L, std::uint64_t seed,
                              RowsWriterOptions options = {}) {
  RowsParquetWriter w(path, L, options);
  for (std::uint64_t r = 0; r < rows; ++r) w.append_row(formula_row(r, L, seed));
  EXPECT_EQ(w.rows(), rows);
  return w.commit();
}

TEST(RowsWriter, round_trip_keeps_every_row_in_order_and_hash_matches_numpy) {
  TempDir tmp;
  const std::uint32_t L = 8192;
  const std::uint64_t R = 1100;  // eight row groups of 128 and a partial one of 76
  auto result = write_formula(tmp / "rows.parquet", R, L, 11);
  EXPECT_EQ(result.rows, R);
  EXPECT_EQ(result.row_length, L);
  EXPECT_EQ(result.rows_sha256, rows_oracle({"hash", std::to_string(R), std::to_string(L), "11"}));
  EXPECT_EQ(result.file_bytes, fs::file_size(tmp / "rows.parquet"));
  EXPECT_EQ(openrecipes::testing::file_names_in(tmp.path()), std::vector<std::string>{"rows.parquet"});

  RowsParquetReader reader(tmp / "rows.parquet");
  EXPECT_EQ(reader.row_count(), R);
  std::span<const std::int32_t> row;
  std::uint64_t r = 0;
  while (reader.next(row)) {
    ASSERT_EQ(row.size(), L);
    auto expected = formula_row(r, L, 11);
    ASSERT_TRUE(std::equal(row.begin(), row.end(), expected.begin())) << "row " << r;
    ++r;
  }
  EXPECT_EQ(r, R);
  EXPECT_EQ(reader.row_length(), L);

  // The file as DuckDB sees it: one column input_ids INTEGER[], row groups of 128 rows.
  db::DuckDbSession db(1);
  auto groups =
      db.query("SELECT row_group_num_rows FROM parquet_metadata(" + db::sql_literal((tmp / "rows.parquet").string()) +
               ") GROUP BY row_group_id, row_group_num_rows " + "ORDER BY row_group_id");
  ASSERT_EQ(groups.row_count(), 9u);
  for (std::size_t g = 0; g < 8; ++g) EXPECT_EQ(groups.value_text(0, g), "128");
  EXPECT_EQ(groups.value_text(0, 8), "76");
}

TEST(RowsWriter, bytes_depend_only_on_rows_not_on_thread_count) {
  TempDir tmp;
  for (auto [c, v] : {std::pair{RowsCompression::zstd, RowsParquetVersion::v1},
                      std::pair{RowsCompression::snappy, RowsParquetVersion::v1},
                      std::pair{RowsCompression::uncompressed, RowsParquetVersion::v1},
                      std::pair{RowsCompression::zstd, RowsParquetVersion::v2}}) {
    // 3000 rows of 64 ids in 30 row groups of 100, encoded by one DuckDB thread and by four (batch copy).
    auto a = write_formula(tmp / "a.parquet", 3000, 64, 5, {c, v, 1, 100});
    auto b = write_formula(tmp / "b.parquet", 3000, 64, 5, {c, v, 4, 100});
    EXPECT_EQ(a.rows_sha256, b.rows_sha256);
    db::DuckDbSession db(1);
    EXPECT_EQ(db.query("SELECT num_row_groups FROM parquet_file_metadata(" +
                       db::sql_literal((tmp / "a.parquet").string()) + ")")
                  .value_text(0, 0),
              "30");
    EXPECT_EQ(read_file(tmp / "a.parquet", 1ull << 30), read_file(tmp / "b.parquet", 1ull << 30));
    EXPECT_EQ(hash_rows_file(tmp / "a.parquet").sha256, a.rows_sha256);
  }
}

TEST(RowsWriter, default_row_groups_are_identical_bytes_for_one_to_three_threads) {
  // L = 3000 (not a power of two): groups of 2^20 / 3000 = 349 rows; 1500 rows give four of 349 and one of 104.
  TempDir tmp;
  std::string first;
  for (unsigned threads : {1u, 2u, 3u}) {
    RowsWriterOptions options;
    options.threads = threads;
    auto r = write_formula(tmp / "rows.parquet", 1500, 3000, 8, options);
    EXPECT_EQ(r.rows_sha256, rows_oracle({"hash", "1500", "3000", "8"}));
    const std::string bytes = read_file(tmp / "rows.parquet", 1ull << 30);
    if (first.empty()) first = bytes;
    EXPECT_EQ(bytes, first) << threads << " threads";
  }
  db::DuckDbSession db(1);
  auto groups =
      db.query("SELECT row_group_num_rows FROM parquet_metadata(" + db::sql_literal((tmp / "rows.parquet").string()) +
               ") GROUP BY row_group_id, row_group_num_rows ORDER BY row_group_id");
  ASSERT_EQ(groups.row_count(), 5u);
  for (std::size_t g = 0; g < 4; ++g) EXPECT_EQ(groups.value_text(0, g), "349");
  EXPECT_EQ(groups.value_text(0, 4), "104");
}

TEST(RowsWriter, zero_rows_commit_to_an_empty_but_valid_file) {
  TempDir tmp;
  RowsParquetWriter w(tmp / "rows.parquet", 16);
  auto r = w.commit();
  EXPECT_EQ(r.rows, 0u);
  EXPECT_EQ(r.rows_sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  RowsParquetReader reader(tmp / "rows.parquet", 16);
  std::span<const std::int32_t> row;
  EXPECT_FALSE(reader.next(row));
  EXPECT_EQ(reader.row_count(), 0u);
}

TEST(RowsWriter, exception_after_k_rows_leaves_no_rows_file_and_no_temp_file) {
  TempDir tmp;
  try {
    RowsParquetWriter w(tmp / "rows.parquet", 8192);
    for (std::uint64_t r = 0; r < 700; ++r) {
      if (r == 600) throw std::runtime_error("tokenizer failed");
      w.append_row(formula_row(r, 8192, 1));
    }
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(openrecipes::testing::file_names_in(tmp.path()).empty());
}

TEST(RowsWriter, aborted_rewrite_keeps_the_previous_complete_file) {
  TempDir tmp;
  auto first = write_formula(tmp / "rows.parquet", 10, 64, 2);
  const std::string before = read_file(tmp / "rows.parquet");
  {
    RowsParquetWriter w(tmp / "rows.parquet", 64);
    for (std::uint64_t r = 0; r < 5; ++r) w.append_row(formula_row(r, 64, 99));
    w.abort();
    EXPECT_THROW(w.append_row(formula_row(5, 64, 99)), std::logic_error);
  }
  EXPECT_EQ(read_file(tmp / "rows.parquet"), before);
  EXPECT_EQ(openrecipes::testing::file_names_in(tmp.path()), std::vector<std::string>{"rows.parquet"});
  EXPECT_EQ(hash_rows_file(tmp / "rows.parquet").sha256, first.rows_sha256);
}

TEST(RowsWriter, sigterm_mid_write_removes_the_temp_file) {
  TempDir tmp;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: write 600 rows (several batches handed to DuckDB), tell the parent, then wait to be killed.
    close(ready[0]);
    try {
      RowsParquetWriter w(tmp / "rows.parquet", 8192);
      for (std::uint64_t r = 0; r < 600; ++r) w.append_row(formula_row(r, 8192, 4));
      char c = 'k';
      if (write(ready[1], &c, 1) != 1) _exit(3);
      for (;;) pause();
    } catch (...) {
      _exit(2);
    }
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  // The temp file exists while the child writes.
  auto during = openrecipes::testing::file_names_in(tmp.path());
  ASSERT_EQ(during.size(), 1u);
  EXPECT_THAT(during[0], ::testing::StartsWith(".rows.parquet."));
  EXPECT_THAT(during[0], ::testing::EndsWith(".tmp"));
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(openrecipes::testing::file_names_in(tmp.path()).empty());
}

TEST(RowsWriter, bad_row_lengths_and_missing_folder_are_refused) {
  TempDir tmp;
  EXPECT_THROW(RowsParquetWriter(tmp / "r.parquet", 0), std::invalid_argument);
  try {
    RowsParquetWriter w(tmp / "no" / "such" / "r.parquet", 8);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("does not exist"));
  }
  RowsParquetWriter w(tmp / "r.parquet", 8);
  EXPECT_THROW(w.append_row(formula_row(0, 7, 0)), std::invalid_argument);
  w.abort();
  EXPECT_TRUE(openrecipes::testing::file_names_in(tmp.path()).empty());
}

}  // namespace
}  // namespace openrecipes::rows
