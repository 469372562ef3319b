// Tests for src/rows/output/rows_hash: rows_sha256 = SHA-256 of the rows' ids as little-endian int32, row-major (SPEC
// §1.8).
#include "rows/output/rows_hash.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/sha256.h"
#include "rows/output/formula_rows.h"

namespace openrecipes::rows {
namespace {

TEST(RowsHash, two_hand_built_rows_hash_as_their_little_endian_bytes) {
  RowsHasher h(2);
  const std::vector<std::int32_t> a{1, 2}, b{0x01020304, -1};
  h.add_row(a);
  h.add_row(b);
  EXPECT_EQ(h.rows(), 2u);
  // 1, 2, 0x01020304, -1 written out by hand as little-endian int32.
  const std::string bytes("\x01\x00\x00\x00\x02\x00\x00\x00\x04\x03\x02\x01\xff\xff\xff\xff", 16);
  EXPECT_EQ(h.hex(), sha256_hex(bytes));
}

TEST(RowsHash, formula_rows_match_numpy_and_hashlib) {
  const std::uint32_t L = 64;
  RowsHasher one_by_one(L), all_at_once(L);
  std::vector<std::int32_t> flat;
  for (std::uint64_t r = 0; r < 50; ++r) {
    auto row = testing::formula_row(r, L, 3);
    one_by_one.add_row(row);
    flat.insert(flat.end(), row.begin(), row.end());
  }
  all_at_once.add_rows(flat);
  const std::string expected = testing::rows_oracle({"hash", "50", "64", "3"});
  EXPECT_EQ(one_by_one.hex(), expected);
  EXPECT_EQ(all_at_once.rows(), 50u);
  EXPECT_EQ(all_at_once.hex(), expected);
}

TEST(RowsHash, no_rows_hash_to_the_empty_string_digest) {
  RowsHasher h(8192);
  EXPECT_EQ(h.hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(RowsHash, rows_of_another_length_and_bad_lengths_are_refused) {
  EXPECT_THROW(RowsHasher(0), std::invalid_argument);
  EXPECT_THROW(RowsHasher(kMaxRowLength + 1), std::invalid_argument);
  RowsHasher h(3);
  const std::vector<std::int32_t> two{1, 2}, four{1, 2, 3, 4};
  EXPECT_THROW(h.add_row(two), std::invalid_argument);
  EXPECT_THROW(h.add_rows(four), std::invalid_argument);
  h.hex();
  const std::vector<std::int32_t> three{1, 2, 3};
  EXPECT_THROW(h.add_row(three), std::logic_error);
}

}  // namespace
}  // namespace openrecipes::rows
