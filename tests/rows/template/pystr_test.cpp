// Python str method algorithms on UTF-8 (CPython 3.11 results, computed by hand in each test).
#include "rows/template/pystr.h"

#include <gtest/gtest.h>

namespace openrecipes::rows::template_engine {
namespace {

using Parts = std::vector<std::string_view>;

TEST(PyStr, split_without_separator_splits_on_whitespace_runs) {
  EXPECT_EQ(pystr::split("  a  b\u00a0c\n", nullptr, -1), (Parts{"a", "b", "c"}));
  // maxsplit keeps the rest, leading whitespace of the rest removed
  EXPECT_EQ(pystr::split("  a  b  c  ", nullptr, 1), (Parts{"a", "b  c  "}));
  EXPECT_EQ(pystr::split("   ", nullptr, -1), Parts{});
}

TEST(PyStr, rsplit_without_separator_splits_from_the_right) {
  EXPECT_EQ(pystr::rsplit("  a  b  c  ", nullptr, 1), (Parts{"  a  b", "c"}));
}

TEST(PyStr, split_with_separator_keeps_empty_fields) {
  std::string_view comma = ",";
  EXPECT_EQ(pystr::split("a,b,,c", &comma, -1), (Parts{"a", "b", "", "c"}));
  EXPECT_EQ(pystr::split("", &comma, -1), (Parts{""}));
  EXPECT_EQ(pystr::rsplit("a,b,,c", &comma, 2), (Parts{"a,b", "", "c"}));
}

TEST(PyStr, splitlines_knows_every_python_line_boundary) {
  EXPECT_EQ(pystr::splitlines("a\r\nb\rc\x0b"
                              "d\xc2\x85"
                              "e\xe2\x80\xa8"
                              "f\n",
                              false),
            (Parts{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(pystr::splitlines("a\r\nb", true), (Parts{"a\r\n", "b"}));
}

TEST(PyStr, strip_uses_python_whitespace_or_the_given_characters) {
  EXPECT_EQ(pystr::strip("\u3000 x\u00a0\n", nullptr, true, true), "x");
  std::string_view chars = "ab";
  EXPECT_EQ(pystr::strip("abcba", &chars, true, true), "c");
  EXPECT_EQ(pystr::strip("abcba", &chars, false, true), "abc");
}

TEST(PyStr, replace_with_empty_old_inserts_between_code_points) {
  EXPECT_EQ(pystr::replace("aé", "", "-", -1), "-a-é-");
  EXPECT_EQ(pystr::replace("abc", "", "-", 2), "-a-bc");
  EXPECT_EQ(pystr::replace("aaa", "a", "b", 2), "bba");
}

TEST(PyStr, find_and_count_use_code_point_indexes) {
  EXPECT_EQ(pystr::find("héllo", "l", std::nullopt, std::nullopt, false), 2);
  EXPECT_EQ(pystr::find("hello", "l", -2, std::nullopt, false), 3);
  EXPECT_EQ(pystr::find("abc", "", 3, std::nullopt, false), 3);
  EXPECT_EQ(pystr::find("abc", "", 4, std::nullopt, false), -1);
  EXPECT_EQ(pystr::count("aaa", "", std::nullopt, std::nullopt), 4);
  EXPECT_EQ(pystr::count("aaaa", "aa", std::nullopt, std::nullopt), 2);
}

TEST(PyStr, startswith_honours_start_and_end) {
  EXPECT_TRUE(pystr::startswith("héllo", "l", 2, std::nullopt, false));
  EXPECT_FALSE(pystr::startswith("abc", "", 4, std::nullopt, false));
  EXPECT_TRUE(pystr::startswith("abc", "", 3, std::nullopt, false));
  EXPECT_TRUE(pystr::startswith("hello", "ell", std::nullopt, 4, true));
}

TEST(PyStr, center_puts_the_odd_pad_where_python_does) {
  // left = marg / 2 + (marg & width & 1)
  EXPECT_EQ(pystr::center("x", 4, '*'), "*x**");
  EXPECT_EQ(pystr::center("ab", 5, '*'), "**ab*");
  EXPECT_EQ(pystr::zfill("-42", 5), "-0042");
}

TEST(PyStr, slice_indices_clamp_like_python) {
  std::int64_t start;
  EXPECT_EQ(pystr::slice_indices(5, std::nullopt, std::nullopt, -1, start), 5);
  EXPECT_EQ(start, 4);
  EXPECT_EQ(pystr::slice_indices(5, -100, 2, 1, start), 2);
  EXPECT_EQ(start, 0);
  EXPECT_EQ(pystr::slice_indices(6, 4, 1, -1, start), 3);
  EXPECT_EQ(pystr::slice("héllo", std::nullopt, std::nullopt, -1), "olléh");
  EXPECT_EQ(pystr::slice("hello", std::nullopt, std::nullopt, 2), "hlo");
}

TEST(PyStr, expandtabs_resets_the_column_at_newlines) { EXPECT_EQ(pystr::expandtabs("a\tb\n\tc", 4), "a   b\n    c"); }

}  // namespace
}  // namespace openrecipes::rows::template_engine
