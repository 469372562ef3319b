// Strict UTF-8 validation (Unicode Table 3-7, well-formed byte sequences), ASCII fast path 8 bytes at a time.
#include "rows/utf8_check.h"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace openrecipes::rows {

std::size_t find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0)
        lo = 0xA0;  // no overlongs
      else if (c == 0xED)
        hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0)
        lo = 0x90;  // no overlongs
      else if (c == 0xF4)
        hi = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;  // 0x80..0xC1 (continuation or overlong lead) and 0xF5..0xFF never start a sequence
    }
    if (i + len > n) return i;
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string describe_invalid_utf8(std::string_view s, std::size_t offset) {
  std::string bytes;
  for (std::size_t k = offset; k < s.size() && k < offset + 4; ++k)
    bytes += fmt::format("{}0x{:02X}", bytes.empty() ? "" : " ", static_cast<unsigned char>(s[k]));
  return fmt::format("byte {} ({})", offset, bytes);
}

}  // namespace openrecipes::rows
