// Tests for src/rows/output/rows_verify (SPEC §1.8): the first R rows of a rows file against a recorded sha256.
#include "rows/output/rows_verify.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "rows/output/formula_rows.h"
#include "rows/output/rows_writer.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

using openrecipes::testing::TempDir;
using rows::testing::formula_row;
using rows::testing::rows_oracle;
using ::testing::HasSubstr;

class RowsVerify : public ::testing::Test {
 protected:
  void SetUp() override {
    RowsParquetWriter w(path(), 256);
    for (std::uint64_t r = 0; r < 40; ++r) w.append_row(formula_row(r, 256, 8));
    w.commit();
  }
  std::filesystem::path path() const { return tmp_ / "rows.parquet"; }
  TempDir tmp_;
};

TEST_F(RowsVerify, first_r_rows_match_the_numpy_hash_of_those_rows) {
  const std::string sha30 = rows_oracle({"hash", "30", "256", "8"});
  auto v = verify_rows_file(path(), 30, sha30);
  EXPECT_TRUE(v.match);
  EXPECT_EQ(v.digest.rows, 30u);
  EXPECT_EQ(v.digest.rows_in_file, 40u);
  EXPECT_EQ(v.digest.row_length, 256u);
  EXPECT_THAT(v.message, HasSubstr("the first 30 rows (L = 256) match sha256 " + sha30));
  // Upper-case hex is the same digest.
  std::string upper = sha30;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(verify_rows_file(path(), 30, upper).match);
  EXPECT_EQ(hash_rows_file(path()).sha256, rows_oracle({"hash", "40", "256", "8"}));
}

TEST_F(RowsVerify, prefix_digests_in_the_same_read_match_the_numpy_hash_of_each_prefix) {
  const auto d = hash_rows_file(path(), std::nullopt, 0, 0, {1, 17, 30});
  EXPECT_EQ(d.sha256, rows_oracle({"hash", "40", "256", "8"}));
  ASSERT_EQ(d.prefix_sha256.size(), 3u);
  EXPECT_EQ(d.prefix_sha256[0], rows_oracle({"hash", "1", "256", "8"}));
  EXPECT_EQ(d.prefix_sha256[1], rows_oracle({"hash", "17", "256", "8"}));
  EXPECT_EQ(d.prefix_sha256[2], rows_oracle({"hash", "30", "256", "8"}));
  EXPECT_THROW(hash_rows_file(path(), 20, 0, 0, {21}), std::invalid_argument);
  EXPECT_THROW(hash_rows_file(path(), std::nullopt, 0, 0, {0}), std::invalid_argument);
}

TEST_F(RowsVerify, wrong_sha_is_a_mismatch_with_both_digests_in_the_message) {
  const std::string other = rows_oracle({"hash", "30", "256", "9"});
  auto v = verify_rows_file(path(), 30, other);
  EXPECT_FALSE(v.match);
  EXPECT_THAT(v.message, HasSubstr("hash to " + rows_oracle({"hash", "30", "256", "8"}) + ", expected " + other));
}

TEST_F(RowsVerify, fewer_rows_than_r_is_an_error_naming_both_counts) {
  try {
    verify_rows_file(path(), 41, std::string(64, 'a'));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the file has 40 rows, fewer than the 41 to verify"));
  }
}

TEST_F(RowsVerify, malformed_sha_zero_rows_and_wrong_length_are_input_errors) {
  EXPECT_THROW(verify_rows_file(path(), 10, "abc"), InputError);
  EXPECT_THROW(verify_rows_file(path(), 10, std::string(64, 'g')), InputError);
  EXPECT_THROW(verify_rows_file(path(), 0, std::string(64, 'a')), InputError);
  try {
    verify_rows_file(path(), 10, std::string(64, 'a'), 512);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("row 0: row has 256 ids, expected 512"));
  }
}

}  // namespace
}  // namespace openrecipes::rows
