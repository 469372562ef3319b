// Tests for src/rows/output/megatron_export: the .bin/.idx pair read back by an independent reader written in the
// oracle (numpy.memmap + struct, the way Megatron-LM's _IndexReader reads it), and atomic writes.
#include "rows/output/megatron_export.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "rows/output/formula_rows.h"
#include "rows/output/rows_writer.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

using openrecipes::testing::TempDir;
using rows::testing::formula_row;
using rows::testing::rows_oracle;
using ::testing::HasSubstr;

TEST(MegatronExport, written_rows_read_back_by_a_megatron_style_reader) {
  TempDir tmp;
  const std::uint32_t L = 128;
  const std::uint64_t R = 37;
  MegatronWriter w(tmp / "tulu_text_document", L);
  for (std::uint64_t r = 0; r < R; ++r) w.append_row(formula_row(r, L, 21));
  auto res = w.commit();
  EXPECT_EQ(res.rows, R);
  EXPECT_EQ(res.bin, tmp / "tulu_text_document.bin");
  EXPECT_EQ(res.idx, tmp / "tulu_text_document.idx");
  const std::string sha = rows_oracle({"hash", std::to_string(R), std::to_string(L), "21"});
  EXPECT_EQ(res.rows_sha256, sha);
  EXPECT_EQ(openrecipes::testing::file_names_in(tmp.path()),
            (std::vector<std::string>{"tulu_text_document.bin", "tulu_text_document.idx"}));

  auto j = nlohmann::json::parse(rows_oracle({"megatron", (tmp / "tulu_text_document").string()}));
  EXPECT_TRUE(j["header_ok"].get<bool>());
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["dtype_code"], 4);
  EXPECT_EQ(j["sequence_count"], R);
  EXPECT_EQ(j["document_count"], R + 1);
  EXPECT_EQ(j["lengths"], nlohmann::json::array({L}));
  EXPECT_TRUE(j["pointers_contiguous"].get<bool>());
  EXPECT_EQ(j["document_indices"], nlohmann::json::array({0, 1, 2, 3, 4, R}));
  EXPECT_EQ(j["idx_bytes"], j["idx_expected_bytes"]);
  EXPECT_EQ(j["idx_bytes"], 34 + R * (4 + 8) + (R + 1) * 8);
  EXPECT_EQ(j["bin_bytes"], R * L * 4);
  EXPECT_EQ(j["tokens_sha256"], sha);
  EXPECT_EQ(res.idx_bytes, j["idx_bytes"].get<std::uint64_t>());
}

TEST(MegatronExport, export_from_rows_parquet_takes_the_first_r_rows) {
  TempDir tmp;
  {
    RowsParquetWriter w(tmp / "rows.parquet", 512);
    for (std::uint64_t r = 0; r < 50; ++r) w.append_row(formula_row(r, 512, 6));
    w.commit();
  }
  auto res = export_megatron(tmp / "rows.parquet", tmp / "out", 20);
  EXPECT_EQ(res.rows, 20u);
  EXPECT_EQ(res.row_length, 512u);
  auto j = nlohmann::json::parse(rows_oracle({"megatron", (tmp / "out").string()}));
  EXPECT_EQ(j["sequence_count"], 20);
  EXPECT_EQ(j["tokens_sha256"], rows_oracle({"hash", "20", "512", "6"}));
  try {
    export_megatron(tmp / "rows.parquet", tmp / "more", 51);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the file has 50 rows, fewer than the 51 to export"));
  }
}

TEST(MegatronExport, abandoned_export_leaves_no_files_and_keeps_a_previous_export) {
  TempDir tmp;
  {
    MegatronWriter w(tmp / "d", 4);
    w.append_row(formula_row(0, 4, 0));
    w.commit();
  }
  const std::string bin = read_file(tmp / "d.bin"), idx = read_file(tmp / "d.idx");
  try {
    MegatronWriter w(tmp / "d", 4);
    for (std::uint64_t r = 0; r < 10; ++r) w.append_row(formula_row(r, 4, 1));
    throw std::runtime_error("interrupted");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(openrecipes::testing::file_names_in(tmp.path()), (std::vector<std::string>{"d.bin", "d.idx"}));
  EXPECT_EQ(read_file(tmp / "d.bin"), bin);
  EXPECT_EQ(read_file(tmp / "d.idx"), idx);
  EXPECT_THROW(MegatronWriter(tmp / "nofolder" / "d", 4), InputError);
}

}  // namespace
}  // namespace openrecipes::rows
