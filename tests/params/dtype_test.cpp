#include "params/dtype.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace openrecipes::params {

TEST(Dtype, header_names_round_trip_and_widths_follow_the_format) {
  for (const char* name : {"BOOL", "F4",  "F6_E2M3", "F6_E3M2", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16",
                           "U16",  "F16", "BF16",    "I32",     "U32", "F32", "C64",     "F64",     "I64",     "U64"}) {
    auto d = parse_dtype(name);
    ASSERT_TRUE(d) << name;
    EXPECT_EQ(dtype_name(*d), name);
  }
  EXPECT_EQ(dtype_bits(Dtype::F4), 4);
  EXPECT_EQ(dtype_bits(Dtype::F6_E3M2), 6);
  EXPECT_EQ(dtype_bits(Dtype::F8_E4M3), 8);
  EXPECT_EQ(dtype_bits(Dtype::BF16), 16);
  EXPECT_EQ(dtype_bits(Dtype::C64), 64);
  EXPECT_TRUE(dtype_is_integer(Dtype::U8));
  EXPECT_FALSE(dtype_is_integer(Dtype::F8_E4M3));
}

TEST(Dtype, known_dtype_names_lists_every_accepted_dtype_once_in_table_order) {
  // The test's own list of the safetensors dtypes (upstream `Dtype`), FNUZ variants included.
  const std::vector<std::string> every{
      "BOOL", "F4",  "F6_E2M3", "F6_E3M2", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ",
      "I16",  "U16", "F16",     "BF16",    "I32", "U32", "F32",     "C64",     "F64",     "I64",         "U64"};
  std::string joined;
  for (const auto& n : every) {
    ASSERT_TRUE(parse_dtype(n)) << n;
    joined += (joined.empty() ? "" : ", ") + n;
  }
  EXPECT_EQ(known_dtype_names(), joined);
}

TEST(Dtype, other_spellings_are_unknown) {
  EXPECT_FALSE(parse_dtype("bf16"));
  EXPECT_FALSE(parse_dtype("float32"));
  EXPECT_FALSE(parse_dtype(""));
}

}  // namespace openrecipes::params
