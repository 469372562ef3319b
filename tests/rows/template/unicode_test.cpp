// UTF-8 helpers and Python's Unicode case rules (full mappings, final sigma, titlecase digraphs), by hand.
#include "rows/template/unicode.h"

#include <gtest/gtest.h>

namespace openrecipes::rows::template_engine {
namespace {

TEST(Unicode, valid_utf8_rejects_overlongs_surrogates_and_truncation) {
  EXPECT_TRUE(valid_utf8("a\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"));
  EXPECT_FALSE(valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));      // U+D800
  EXPECT_FALSE(valid_utf8("\xe4\xb8"));          // truncated
  EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
}

TEST(Unicode, code_points_are_counted_not_bytes) {
  EXPECT_EQ(cp_count("héllo😀"), 6u);
  EXPECT_EQ(cp_offset("héllo", 2), 3u);
}

TEST(Unicode, upper_uses_full_case_mappings) {
  EXPECT_EQ(py_upper("straße ﬁ"), "STRASSE FI");
  EXPECT_EQ(py_lower("İ"), "i\xcc\x87");  // U+0130 lowercases to i + combining dot
}

TEST(Unicode, lower_applies_the_final_sigma_rule) { EXPECT_EQ(py_lower("ΣΑΣ ΣΑ Σ"), "σας σα σ"); }

TEST(Unicode, title_and_capitalize_use_titlecase_for_the_first_letter) {
  EXPECT_EQ(py_title("ǆungla they're"), "ǅungla They'Re");
  EXPECT_EQ(py_capitalize("ǆA"), "ǅa");
  EXPECT_EQ(py_swapcase("aBß"), "AbSS");
}

TEST(Unicode, case_predicates_follow_python) {
  EXPECT_TRUE(py_islower("abc1"));
  EXPECT_FALSE(py_islower("123"));
  EXPECT_TRUE(py_isupper("ABC!"));
  EXPECT_TRUE(py_istitle("Hello World"));
  EXPECT_FALSE(py_istitle("Hello world"));
}

TEST(Unicode, whitespace_is_pythons_isspace) {
  for (char32_t c : {U'\t', U'\n', U'\x0b', U'\x0c', U'\r', U'\x1c', U'\x1f', U' ', U'\x85', U'\xa0', U'\u1680',
                     U'\u2000', U'\u2028', U'\u3000'})
    EXPECT_TRUE(py_isspace(c)) << static_cast<unsigned>(c);
  for (char32_t c : {U'a', U'\u200b', U'\ufeff', U'\x00'}) EXPECT_FALSE(py_isspace(c)) << static_cast<unsigned>(c);
}

TEST(Unicode, printable_matches_str_isprintable) {
  EXPECT_TRUE(py_isprintable(U'é'));
  EXPECT_TRUE(py_isprintable(U' '));
  EXPECT_FALSE(py_isprintable(U'\xa0'));    // Zs other than space
  EXPECT_FALSE(py_isprintable(U'\u200b'));  // Cf
  EXPECT_FALSE(py_isprintable(U'\x7f'));
}

}  // namespace
}  // namespace openrecipes::rows::template_engine
