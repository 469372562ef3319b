// Lossy UTF-8 decoding rules (src/rows/tokenizer/utf8.h; Unicode §3.9 "maximal subparts", as Rust's
// from_utf8_lossy and Node's Buffer.toString): expected values worked out by hand from Table 3-7.
#include "rows/tokenizer/utf8.h"

#include <gtest/gtest.h>

namespace openrecipes::rows::tok {
namespace {

const std::string R = "\xEF\xBF\xBD";  // U+FFFD

TEST(Utf8, valid_text_is_valid_and_unchanged) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"));
  EXPECT_EQ(lossy_utf8("\xC3\xA9"), "\xC3\xA9");
}

TEST(Utf8, each_maximal_invalid_subpart_becomes_one_replacement_character) {
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_EQ(lossy_utf8("a\xFF" "b"), "a" + R + "b");
  EXPECT_EQ(lossy_utf8("\xE2\x82"), R);             // truncated 3-byte sequence: one subpart
  EXPECT_EQ(lossy_utf8("\xF0\x9F\x98"), R);         // truncated 4-byte sequence: one subpart
  EXPECT_EQ(lossy_utf8("\xC0\xAF"), R + R);         // C0 is never valid; AF is a stray continuation
  EXPECT_EQ(lossy_utf8("\xED\xA0\x80"), R + R + R); // surrogate: ED then A0 out of range (80..9F)
  EXPECT_EQ(lossy_utf8("\xE0\x80\x80"), R + R + R); // overlong: E0 needs A0..BF
  EXPECT_EQ(lossy_utf8("\xF4\x90\x80\x80"), R + R + R + R);  // above U+10FFFF
  EXPECT_EQ(lossy_utf8("\xE2\x82(" ), R + "(");
  EXPECT_EQ(lossy_utf8("\x80\x80"), R + R);
}

}  // namespace
}  // namespace openrecipes::rows::tok
