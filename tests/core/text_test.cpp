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
  EXPECT_EQ(escape_controls("csi \xc2\x9b"
                            "2J"),
            "csi \\xc2\\x9b2J");                                // U+009B, the 8-bit CSI
  EXPECT_EQ(escape_controls("raw \x9b bad"), "raw \\x9b bad");  // a lone continuation byte
  EXPECT_EQ(escape_controls("caf\xc3\xa9 \xe2\x80\x94 ok"), "caf\xc3\xa9 \xe2\x80\x94 ok");
  EXPECT_EQ(escape_controls(std::string(10, 'x'), 4), "xxxx... (6 more bytes)");
}

TEST(Text, counted_puts_the_noun_in_the_number_of_its_count) {
  EXPECT_EQ(counted(1, "GPU"), "1 GPU");
  EXPECT_EQ(counted(0, "GPU"), "0 GPUs");
  EXPECT_EQ(counted(2, "problem"), "2 problems");
  EXPECT_EQ(counted(-1, "step"), "-1 step");
  EXPECT_EQ(counted(3, "child", "children"), "3 children");
  EXPECT_EQ(counted(1, "child", "children"), "1 child");
}

TEST(Text, with_thousands_groups_integers_by_three_and_keeps_the_sign) {
  EXPECT_EQ(with_thousands(std::int64_t{0}), "0");
  EXPECT_EQ(with_thousands(std::int64_t{999}), "999");
  EXPECT_EQ(with_thousands(std::int64_t{1000}), "1,000");
  EXPECT_EQ(with_thousands(std::int64_t{595984384}), "595,984,384");
  EXPECT_EQ(with_thousands(std::int64_t{-1234567}), "-1,234,567");
  EXPECT_EQ(with_thousands(INT64_MIN), "-9,223,372,036,854,775,808");
}

TEST(TerminalSafe, controls_and_broken_utf8_become_visible_escapes) {
  EXPECT_EQ(terminal_safe("a\x1b[31mb", true), "a\\x1b[31mb");
  EXPECT_EQ(terminal_safe("line\nnext\ttab\x7f", true), "line\\x0anext\\x09tab\\x7f");
  EXPECT_EQ(terminal_safe("csi\xc2\x9b"
                          "2J",
                          true),
            "csi\\u009b2J");                                                       // C1 CSI, U+009B
  EXPECT_EQ(terminal_safe("bad\xff\xc3", true), "bad\\xff\\xc3");                  // not UTF-8
  EXPECT_EQ(terminal_safe("\xed\xa0\x80", true), "\\xed\\xa0\\x80");               // a UTF-16 surrogate
  EXPECT_EQ(terminal_safe("Qwen3 · H200 — é ✓ 😀", true), "Qwen3 · H200 — é ✓ 😀");  // text is untouched
  EXPECT_EQ(terminal_safe("abc\u202e.log", true), "abc\\u202E.log");  // RIGHT-TO-LEFT OVERRIDE would reorder the line
  EXPECT_EQ(terminal_safe("ab\u2028c\u200Bd", true), "ab\\u2028c\\u200Bd");  // a line separator, a zero width space
  EXPECT_EQ(terminal_safe("abc\u202e", false), "abc\u202e");                 // left for a JSON encoder
  EXPECT_EQ(terminal_safe("a\x1b"
                          "b\xc2\x85",
                          false),
            "a\x1b"
            "b\\u0085");  // C0 left to the JSON encoder
}

TEST(Text, with_thousands_of_a_double_keeps_the_decimals_and_groups_the_integer_part) {
  EXPECT_EQ(with_thousands(1234567.891, 2), "1,234,567.89");
  EXPECT_EQ(with_thousands(999.96, 1), "1,000.0");  // rounding carries into a new group of three
  EXPECT_EQ(with_thousands(-12345.67, 1), "-12,345.7");
  EXPECT_EQ(with_thousands(512.0, 0), "512");
}

// Typos a user makes in a field name, each one edit (a swap of neighbours is one), get their field; a word that is
// no typo of any, or near two alike, gets none.
TEST(NearestName, finds_the_field_a_typo_meant_and_nothing_else) {
  const std::vector<std::string> fields = {"id", "model", "steps_per_run", "key", "tp", "pp", "claims", "command"};
  EXPECT_EQ(nearest_name("steps_per_runs", fields), "steps_per_run");  // one insertion
  EXPECT_EQ(nearest_name("kye", fields), "key");                       // one swap
  EXPECT_EQ(nearest_name("Command", fields), "command");               // case
  EXPECT_EQ(nearest_name("claim", fields), "claims");
  EXPECT_EQ(nearest_name("modle", fields), "model");
  EXPECT_EQ(nearest_name("tpp", fields), "");       // one edit from both tp and pp: no guess
  EXPECT_EQ(nearest_name("workload", fields), "");  // no field is near
  EXPECT_EQ(nearest_name("x", fields), "");         // too short to call a typo
}

// wrap_words breaks at spaces within the width; a word longer than the width keeps a line of its own.
TEST(WrapWords, breaks_at_spaces_within_the_width) {
  EXPECT_EQ(wrap_words("aa bb cc dd", 5), (std::vector<std::string>{"aa bb", "cc dd"}));
  EXPECT_EQ(wrap_words("  aa   bb  ", 80), (std::vector<std::string>{"aa bb"}));
  EXPECT_EQ(wrap_words("a abcdefgh b", 4), (std::vector<std::string>{"a", "abcdefgh", "b"}));
  EXPECT_EQ(wrap_words("", 10), std::vector<std::string>{});
}

// A hostile review: plan's JSON wrote "mfu": 0.40740000000000004 (0.4074 / 1e-4 x 1e-4) and an MFU of 0.0000043 as 0.
TEST(Text, round_to_writes_the_decimal_and_round_to_figures_keeps_a_small_figures_digits) {
  EXPECT_EQ(format_double(round_to(0.40740000001, 1e-4)), "0.4074");
  EXPECT_EQ(format_double(round_to(966.1499, 0.1)), "966.1");
  EXPECT_EQ(round_to(1234.0, 5.0), 1235.0);  // a unit that is not 10^-k rounds to its multiples
  EXPECT_EQ(format_double(round_to_figures(0.0000043123, 1e-4, 2)), "4.3e-06");
  EXPECT_EQ(format_double(round_to_figures(1.1849, 0.1, 3)), "1.18");
  EXPECT_EQ(format_double(round_to_figures(966.1499, 0.1, 3)), "966.1");  // the unit keeps more: the unit
  EXPECT_EQ(round_to_figures(0.0, 0.1, 3), 0.0);
}

}  // namespace openrecipes
