// Strict UTF-8 validation, lossy decoding and encoding (Unicode Table 3-7; upstream: Rust's from_utf8_lossy).
#include "core/utf8.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes {
namespace {

// Length of the longest prefix of s[i..] that is a valid UTF-8 sequence or a prefix of one (the "maximal
// subpart"), and whether it is complete. Follows Unicode Table 3-7 (well-formed byte sequences).
struct Step {
  std::size_t len;
  bool complete;
};

Step step_at(const unsigned char* s, std::size_t n, std::size_t i) {
  const unsigned char b = s[i];
  if (b < 0x80) return {1, true};
  std::size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    need = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return {1, false};  // C0, C1, F5..FF or a stray continuation byte
  }
  std::size_t k = 1;
  if (i + k >= n || s[i + k] < lo || s[i + k] > hi) return {1, false};
  ++k;
  while (k < need) {
    if (i + k >= n || s[i + k] < 0x80 || s[i + k] > 0xBF) return {k, false};
    ++k;
  }
  return {need, true};
}

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

// The code point of the well-formed UTF-8 sequence at s[i] when inert_text writes it visibly, else 0: a bidi control
// (a 2-byte U+061C, or 3 bytes: U+200E.., U+202A.., U+2066..), a line or paragraph separator (U+2028, U+2029), or an
// invisible character that makes two different texts look the same (U+200B zero width space, U+2060 word joiner,
// U+FEFF zero width no-break space). Zero width (non-)joiners, which scripts and emoji need, are kept.
char32_t inert_char_at(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (i + 1 < s.size() && b(0) == 0xD8 && b(1) == 0x9C) return 0x061C;
  if (i + 2 >= s.size()) return 0;
  if (b(0) == 0xEF && b(1) == 0xBB && b(2) == 0xBF) return 0xFEFF;
  if (b(0) != 0xE2 || (b(1) & 0xC0) != 0x80 || (b(2) & 0xC0) != 0x80) return 0;
  const char32_t cp = 0x2000 | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  if (cp == 0x200B || cp == 0x200E || cp == 0x200F || cp == 0x2028 || cp == 0x2029 || cp == 0x2060 ||
      (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
    return cp;
  return 0;
}

}  // namespace

std::size_t find_invalid_utf8(std::string_view sv) {
  const auto* s = bytes(sv);
  const std::size_t n = sv.size();
  std::size_t i = 0;
  while (i < n) {
    while (i + 8 <= n) {  // ASCII fast path, 8 bytes at a time
      unsigned long long w;
      std::memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    const Step st = step_at(s, n, i);
    if (!st.complete) return i;
    i += st.len;
  }
  return std::string_view::npos;
}

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const Step st = step_at(bytes(s), s.size(), i);
  return st.complete ? st.len : 0;
}

std::string lossy_utf8(std::string_view sv) {
  const auto* s = bytes(sv);
  const std::size_t n = sv.size();
  std::string out;
  out.reserve(n + 16);
  std::size_t i = 0;
  while (i < n) {
    const Step st = step_at(s, n, i);
    if (st.complete)
      out.append(sv.data() + i, st.len);
    else
      out.append("\xEF\xBF\xBD");
    i += st.len;
  }
  return out;
}

std::string describe_invalid_utf8(std::string_view s, std::size_t offset) {
  std::string shown;
  for (std::size_t k = offset; k < s.size() && k < offset + 4; ++k)
    shown += fmt::format("{}0x{:02X}", shown.empty() ? "" : " ", static_cast<unsigned char>(s[k]));
  return fmt::format("byte {} ({})", offset, shown);
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

bool c1_control_at(std::string_view s, std::size_t i) {
  return i + 1 < s.size() && static_cast<unsigned char>(s[i]) == 0xc2 && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9f;
}

std::string inert_text(std::string_view s) {
  // Every character it writes visibly starts with 0xD8, 0xE2 or 0xEF: text without those bytes is kept as it is.
  if (s.find_first_of("\xD8\xE2\xEF") == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (char32_t cp = inert_char_at(s, i)) {
      out += fmt::format("\\u{:04X}", static_cast<std::uint32_t>(cp));
      i += cp == 0x061C ? 1 : 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string display_word(const std::string& w) {
  // Control characters and bidi controls would move the terminal's cursor or reorder the line: shown escaped.
  // C0 and C1 controls (U+0080..U+009F are 0xC2 0x80..0x9F in UTF-8) and every bidi control (inert_text).
  bool control = inert_text(w) != w;
  for (std::size_t i = 0; i < w.size() && !control; ++i) {
    const auto c = static_cast<unsigned char>(w[i]);
    control = c < 0x20 || c == 0x7f || c1_control_at(w, i);
  }
  if (control) return "$" + quote_for_message(w, 4096);
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./:=,@%+-").find(c) != std::string::npos;
  });
  if (plain) return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string display_command(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + display_word(w);
  return out;
}

}  // namespace openrecipes
