// Unicode character classes used by the tokenizer's pre-tokenizer scanners and added-token rules (SPEC §1
// step 3): \p{L}, \p{N}, \p{M}, \p{P}, \p{S} and \s as Oniguruma (bundled in tokenizers 0.23.2, Unicode 16.0)
// sees them, and Rust regex's \w for single_word added tokens.
#pragma once

#include <cstdint>

namespace openrecipes::rows::tok {

/// Class bits of one code point.
enum CharClass : std::uint8_t {
  kLetter = 1,   ///< \p{L}: Lu Ll Lt Lm Lo
  kNumber = 2,   ///< \p{N}: Nd Nl No (also Rust's char::is_numeric)
  kMark = 4,     ///< \p{M}: Mn Mc Me
  kPunct = 8,    ///< \p{P}: Pc Pd Ps Pe Pi Pf Po
  kSymbol = 16,  ///< \p{S}: Sm Sc Sk So
  kSpace = 32,   ///< \s: the White_Space property (also Rust's char::is_whitespace and regex \s)
  kWord = 64,    ///< Rust regex \w: Alphabetic, M, Nd, Pc, Join_Control
};

namespace detail {
struct ClassTable {
  std::uint16_t stage1[0x110000 >> 8];
  std::uint8_t* blocks;
};
const ClassTable& class_table();
}  // namespace detail

/// Class bits of `c` (0 for unassigned code points and for c > U+10FFFF), from unicode_class_data.cpp, which
/// tests/oracles/tokenize_gen_classes.js generates by asking the oracle's own Oniguruma (Unicode 16.0) about
/// every code point; a test checks every code point of planes 0-3 and 14 in context against the oracle.
inline std::uint8_t char_class(char32_t c) {
  if (c >= 0x110000) return 0;
  const auto& t = detail::class_table();
  return t.blocks[(std::uint32_t(t.stage1[c >> 8]) << 8) | (c & 0xFF)];
}

}  // namespace openrecipes::rows::tok
