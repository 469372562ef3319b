#include "core/text.h"

#include <cmath>

#include <gtest/gtest.h>

namespace openrecipes {

TEST(Text, parse_double_accepts_megatron_number_forms) {
  EXPECT_DOUBLE_EQ(*parse_double("1.213248E+01"), 12.13248);
  EXPECT_DOUBLE_EQ(*parse_double(" 7179.1 "), 7179.1);
  EXPECT_DOUBLE_EQ(*parse_double("-3e-2"), -0.03);
  EXPECT_TRUE(std::isnan(*parse_double("nan")));
  EXPECT_TRUE(std::isinf(*parse_double("-inf")));
}

TEST(Text, parse_double_rejects_trailing_garbage_and_empty) {
  EXPECT_FALSE(parse_double("1.0x"));
  EXPECT_FALSE(parse_double(""));
  EXPECT_FALSE(parse_double("1,5"));
  EXPECT_FALSE(parse_double("0x10"));
}

TEST(Text, parse_int_is_strict_and_checks_overflow) {
  EXPECT_EQ(*parse_int("  42"), 42);
  EXPECT_EQ(*parse_int("-7"), -7);
  EXPECT_FALSE(parse_int("4.0"));
  EXPECT_FALSE(parse_int("99999999999999999999"));
}

TEST(Text, lines_of_handles_crlf_and_missing_final_newline) {
  auto l = lines_of("a\r\nb\nc");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "a");
  EXPECT_EQ(l[2], "c");
  EXPECT_EQ(lines_of("a\n").size(), 1u);
}

TEST(Text, quote_for_message_escapes_control_bytes) {
  EXPECT_EQ(quote_for_message("a\nb"), "'a\\x0ab'");
  EXPECT_EQ(quote_for_message("abcdef", 3), "'abc...'");
}

TEST(Text, escape_controls_makes_c0_c1_del_and_bad_utf8_visible_and_keeps_other_utf8) {
  EXPECT_EQ(escape_controls("a\x1b[31mred\x07"), "a\\x1b[31mred\\x07");
  EXPECT_EQ(escape_controls("line\nnext\ttab\x7f"), "line\\x0anext\\x09tab\\x7f");
  EXPECT_EQ(escape_controls("csi \xc2\x9b" "2J"), "csi \\xc2\\x9b2J");  // U+009B, the 8-bit CSI
  EXPECT_EQ(escape_controls("raw \x9b bad"), "raw \\x9b bad");           // a lone continuation byte
  EXPECT_EQ(escape_controls("caf\xc3\xa9 \xe2\x80\x94 ok"), "caf\xc3\xa9 \xe2\x80\x94 ok");
  EXPECT_EQ(escape_controls(std::string(10, 'x'), 4), "xxxx... (6 more bytes)");
}

}  // namespace openrecipes
