// Strict UTF-8, written once for every layer (RFC 3629 / Unicode Table 3-7): validation with an ASCII fast path,
// sequence length, decoding and encoding, lossy conversion and the error description. The source reader
// (SPEC §1.1), the chat-template engine (§1.2), the tokenizer (§1.3), the manifest (§1.8) and terminal-safe
// messages all call this module.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes {

/// Byte offset of the first byte that does not start a well-formed UTF-8 sequence in `s` (no overlong forms, no
/// surrogates U+D800..U+DFFF, nothing above U+10FFFF, no truncated sequence), or std::string_view::npos when all
/// of `s` is valid. The same rule as Python's and Rust's strict decoders. ASCII runs are skipped 8 bytes at a time.
std::size_t find_invalid_utf8(std::string_view s);

/// True when `s` is well-formed UTF-8 (find_invalid_utf8(s) == npos).
inline bool is_valid_utf8(std::string_view s) { return find_invalid_utf8(s) == std::string_view::npos; }

/// Length in bytes (1..4) of the well-formed UTF-8 sequence starting at s[i], or 0 when the byte at `i` does not
/// start one (a truncated sequence is not one). Requires i < s.size().
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

/// Replaces each maximal invalid subpart of `s` by U+FFFD (Unicode §3.9 "U+FFFD substitution of maximal
/// subparts", the practice of Rust's String::from_utf8_lossy, Python's decode('utf-8','replace') and Node's
/// Buffer.toString('utf8')). Valid sequences are copied unchanged.
std::string lossy_utf8(std::string_view s);

/// For messages: "byte N (0xAB 0xCD ...)" showing up to 4 bytes of `s` from `offset`.
std::string describe_invalid_utf8(std::string_view s, std::size_t offset);

/// Length in bytes of the UTF-8 sequence that starts with lead byte `b` (valid input assumed; 1 for ASCII).
inline std::size_t utf8_len(unsigned char b) { return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4; }

/// Decodes the code point at `p` (valid UTF-8 assumed); stores its length in bytes in `len`.
inline char32_t decode_utf8(const char* p, std::size_t& len) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  if (u[0] < 0x80) {
    len = 1;
    return u[0];
  }
  if (u[0] < 0xE0) {
    len = 2;
    return (char32_t(u[0] & 0x1F) << 6) | (u[1] & 0x3F);
  }
  if (u[0] < 0xF0) {
    len = 3;
    return (char32_t(u[0] & 0x0F) << 12) | (char32_t(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
  }
  len = 4;
  return (char32_t(u[0] & 0x07) << 18) | (char32_t(u[1] & 0x3F) << 12) | (char32_t(u[2] & 0x3F) << 6) | (u[3] & 0x3F);
}

/// Appends the UTF-8 encoding (1..4 bytes) of `c`, a Unicode scalar value, to `out`.
void append_utf8(std::string& out, char32_t c);

/// True when `s` holds a C1 control (U+0080..U+009F, the two bytes 0xC2 0x80..0x9F in UTF-8) at byte `i`.
bool c1_control_at(std::string_view s, std::size_t i);

/// `text` with every Unicode bidirectional control (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), the
/// line and paragraph separators (U+2028, U+2029) and the invisible characters that make two texts look alike (U+200B,
/// U+2060, U+FEFF) written as visible text ("\u202E"), so a stranger's field cannot reorder, break or disguise what a
/// page or terminal shows around it. Other bytes are kept (the site writes controls visibly too: site/html.h).
std::string inert_text(std::string_view text);

/// A word as a POSIX shell would need it quoted, for display only (run --dry-run, the site's Reproduce box, messages):
/// never run through a shell. Control and bidirectional characters come out escaped ($'…' form).
std::string display_word(const std::string& word);
/// Words joined with display_word.
std::string display_command(const std::vector<std::string>& words);

}  // namespace openrecipes
