// Tests for src/core/utf8: the well-formed UTF-8 rule of Unicode Table 3-7, checked against Python's strict
// decoder (the oracle) for every lead byte 0x80..0xFF followed by every second byte, and the lossy decoding rules
// (Unicode §3.9 "maximal subparts", as Rust's from_utf8_lossy and Node's Buffer.toString), expected values worked
// out by hand from Table 3-7.
#include "core/utf8.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/support.h"

namespace openrecipes {
namespace {

TEST(Utf8Check, well_formed_text_passes_and_offsets_point_at_the_first_bad_byte) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ASCII text that is longer than eight bytes"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));  // é 中 😀 U+10FFFF
  EXPECT_EQ(find_invalid_utf8("abcdefghij\xFFxyz"), 10u);
  EXPECT_EQ(find_invalid_utf8("ab\xC3"), 2u);              // truncated at the end
  EXPECT_EQ(find_invalid_utf8("ab\xC0\xAF"), 2u);          // overlong '/'
  EXPECT_EQ(find_invalid_utf8("ab\xE0\x80\xAF"), 2u);      // overlong 3-byte
  EXPECT_EQ(find_invalid_utf8("ab\xED\xA0\x80"), 2u);      // surrogate U+D800
  EXPECT_EQ(find_invalid_utf8("ab\xF4\x90\x80\x80"), 2u);  // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("ab\xF0\x9F\x98"), 2u);      // truncated 4-byte
  EXPECT_EQ(find_invalid_utf8("ab\x80"), 2u);              // lone continuation
  EXPECT_EQ(find_invalid_utf8("\xE4\xB8\x41"), 0u);        // bad continuation
  EXPECT_EQ(describe_invalid_utf8("ab\xC3(", 2), "byte 2 (0xC3 0x28)");
}

TEST(Utf8Check, agrees_with_python_strict_decoding_for_every_lead_and_second_byte) {
  // Every lead byte followed by every second byte (and a fixed valid tail), as Python's bytes.decode sees them.
  std::vector<std::string> cases;
  for (int a = 0x80; a <= 0xFF; ++a)
    for (int b = 0x00; b <= 0xFF; ++b)
      cases.push_back(std::string{static_cast<char>(a), static_cast<char>(b), '\x80', '\x80'});
  std::string input;
  for (const auto& c : cases) {
    for (unsigned char ch : c) input += "0123456789abcdef"[ch >> 4], input += "0123456789abcdef"[ch & 15];
    input += '\n';
  }
  const char* script =
      "import sys\n"
      "out = []\n"
      "for line in sys.stdin.read().split():\n"
      "    b = bytes.fromhex(line)\n"
      "    try:\n"
      "        b.decode('utf-8'); out.append('-')\n"
      "    except UnicodeDecodeError as e:\n"
      "        out.append(str(e.start))\n"
      "print(' '.join(out))\n";
  auto r = openrecipes::testing::run_process({openrecipes::testing::oracle_python(), "-c", script}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> expected;
  std::size_t pos = 0;
  std::string out = r.out;
  while (pos < out.size()) {
    std::size_t sp = out.find_first_of(" \n", pos);
    if (sp == std::string::npos) sp = out.size();
    if (sp > pos) expected.push_back(out.substr(pos, sp - pos));
    pos = sp + 1;
  }
  ASSERT_EQ(expected.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::size_t got = find_invalid_utf8(cases[i]);
    EXPECT_EQ(got == std::string_view::npos ? "-" : std::to_string(got), expected[i]) << "case " << i;
  }
}

const std::string R = "\xEF\xBF\xBD";  // U+FFFD

TEST(Utf8, valid_text_is_valid_and_unchanged) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"));
  EXPECT_EQ(lossy_utf8("\xC3\xA9"), "\xC3\xA9");
}

TEST(Utf8, each_maximal_invalid_subpart_becomes_one_replacement_character) {
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_EQ(lossy_utf8("a\xFF"
                       "b"),
            "a" + R + "b");
  EXPECT_EQ(lossy_utf8("\xE2\x82"), R);                      // truncated 3-byte sequence: one subpart
  EXPECT_EQ(lossy_utf8("\xF0\x9F\x98"), R);                  // truncated 4-byte sequence: one subpart
  EXPECT_EQ(lossy_utf8("\xC0\xAF"), R + R);                  // C0 is never valid; AF is a stray continuation
  EXPECT_EQ(lossy_utf8("\xED\xA0\x80"), R + R + R);          // surrogate: ED then A0 out of range (80..9F)
  EXPECT_EQ(lossy_utf8("\xE0\x80\x80"), R + R + R);          // overlong: E0 needs A0..BF
  EXPECT_EQ(lossy_utf8("\xF4\x90\x80\x80"), R + R + R + R);  // above U+10FFFF
  EXPECT_EQ(lossy_utf8("\xE2\x82("), R + "(");
  EXPECT_EQ(lossy_utf8("\x80\x80"), R + R);
}

}  // namespace
}  // namespace openrecipes
