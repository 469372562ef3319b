// Unicode normalization for the tokenizer's NFC/NFD/NFKC/NFKD normalizers (SPEC §1.3; upstream
// unicode-normalization-alignments 0.1.12, Unicode 9.0). Text is cut at "inert" characters (a starter that
// normalizes to itself and cannot combine with what precedes it); only the stretches between them go through
// utf8proc, so ordinary text is checked, not rewritten.
#include "rows/tokenizer/unicode_norm.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/utf8.h"

namespace openrecipes::rows::tok {
namespace detail {
extern const char32_t kUnicode9Assigned[];
extern const unsigned kUnicode9AssignedSize;
}  // namespace detail

bool assigned_in_unicode9(char32_t c) {
  const char32_t* b = detail::kUnicode9Assigned;
  const char32_t* e = b + detail::kUnicode9AssignedSize;
  return ((std::upper_bound(b, e, c) - b) & 1) != 0;
}

namespace {

int options_of(NormForm f) {
  switch (f) {
    case NormForm::NFC:
      return UTF8PROC_STABLE | UTF8PROC_COMPOSE;
    case NormForm::NFD:
      return UTF8PROC_STABLE | UTF8PROC_DECOMPOSE;
    case NormForm::NFKC:
      return UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
    case NormForm::NFKD:
      return UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  }
  return 0;
}

bool composes(NormForm f) { return f == NormForm::NFC || f == NormForm::NFKC; }

// Characters that are the second part of a canonical composition (they can merge into the starter before
// them): last character of each non-excluded canonical decomposition, plus Hangul medial vowels and finals.
// Marking too many is harmless (it only sends more text through utf8proc).
struct Seconds {
  std::vector<char32_t> sorted;
  bool contains(char32_t c) const { return std::binary_search(sorted.begin(), sorted.end(), c); }
};

const Seconds& seconds() {
  static const Seconds* s = [] {
    auto* out = new Seconds;
    for (char32_t c = 0x80; c < 0x110000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
      if (p->decomp_seqindex == UINT16_MAX || p->decomp_type != 0 || p->comp_exclusion) continue;
      utf8proc_int32_t buf[8];
      int last = 0;
      utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buf, 8,
                                                   static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE), &last);
      if (n >= 2 && n <= 8) out->sorted.push_back(static_cast<char32_t>(buf[n - 1]));
    }
    for (char32_t c = 0x1161; c <= 0x1175; ++c) out->sorted.push_back(c);
    for (char32_t c = 0x11A8; c <= 0x11C2; ++c) out->sorted.push_back(c);
    std::sort(out->sorted.begin(), out->sorted.end());
    out->sorted.erase(std::unique(out->sorted.begin(), out->sorted.end()), out->sorted.end());
    return out;
  }();
  return *s;
}

// Normalizes a UTF-8 buffer with utf8proc (Unicode 15.0 data; only characters assigned in 9.0 reach it).
void utf8proc_normalize(NormForm f, std::string_view in, std::string& out) {
  utf8proc_uint8_t* dst = nullptr;
  utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(in.data()), static_cast<utf8proc_ssize_t>(in.size()), &dst,
                   static_cast<utf8proc_option_t>(options_of(f)));
  if (n < 0 || dst == nullptr) {  // cannot happen for valid UTF-8; keep the text rather than lose it
    out.append(in);
  } else {
    out.append(reinterpret_cast<const char*>(dst), static_cast<std::size_t>(n));
  }
  std::free(dst);
}

// Inert under `f`: a character that normalizes to itself, has combining class 0, and (for the composing
// forms) cannot compose with a preceding starter. Text may be cut before an inert character.
bool compute_inert(NormForm f, char32_t c) {
  if (c < 0x80) return true;
  if (!assigned_in_unicode9(c)) return true;  // unknown to upstream's Unicode 9.0 tables
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  if (p->combining_class != 0) return false;
  if (composes(f) && seconds().contains(c)) return false;
  if (c >= 0xAC00 && c <= 0xD7A3) return composes(f);  // Hangul syllables: decomposed by NFD/NFKD only
  if (p->decomp_seqindex == UINT16_MAX) return true;
  const bool compat = p->decomp_type != 0;
  if (f == NormForm::NFD) return compat;  // a canonical decomposition changes it
  if (f == NormForm::NFKD) return false;
  if (f == NormForm::NFC && compat) return true;
  // NFC with a canonical decomposition, or NFKC: inert only if it normalizes back to itself.
  std::string one, norm;
  append_utf8(one, c);
  utf8proc_normalize(f, one, norm);
  return norm == one;
}

constexpr std::uint8_t kUnknownBit = 16;  // not assigned in Unicode 9.0

// Inert bits for the BMP, one bit per form (bit k = NormForm k) plus kUnknownBit, built once.
const std::uint8_t* bmp_inert() {
  static const std::uint8_t* table = [] {
    auto* t = new std::uint8_t[0x10000];
    for (char32_t c = 0; c < 0x10000; ++c) {
      std::uint8_t bits = 0;
      if (c < 0xD800 || c > 0xDFFF) {
        for (int k = 0; k < 4; ++k)
          if (compute_inert(static_cast<NormForm>(k), c)) bits |= static_cast<std::uint8_t>(1u << k);
        if (!assigned_in_unicode9(c)) bits |= kUnknownBit;
      }
      t[c] = bits;
    }
    return t;
  }();
  return table;
}

inline bool inert(NormForm f, char32_t c, const std::uint8_t* bmp) {
  if (c < 0x10000) return (bmp[c] >> static_cast<int>(f)) & 1;
  return compute_inert(f, c);
}

inline bool unknown9(char32_t c, const std::uint8_t* bmp) {
  if (c < 0x10000) return bmp[c] & kUnknownBit;
  return !assigned_in_unicode9(c);
}

}  // namespace

bool unicode_normalize(NormForm f, std::string_view in, std::string& out) {
  const char* s = in.data();
  const std::size_t n = in.size();
  // Fast scan: find the first character that is not inert; ASCII is inert under every form.
  std::size_t i = 0;
  std::size_t boundary = 0;  // start of the last inert character seen, or just after the last upstream-unknown one
  const std::uint8_t* bmp = nullptr;
  while (i < n) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      boundary = i;
      ++i;
      continue;
    }
    if (!bmp) bmp = bmp_inert();
    std::size_t len;
    char32_t c = decode_utf8(s + i, len);
    if (!inert(f, c, bmp)) break;
    boundary = unknown9(c, bmp) ? i + len : i;
    i += len;
  }
  if (i >= n) return false;
  out.clear();
  out.reserve(n + n / 8);
  std::size_t copied = 0;  // everything before `copied` is in `out`
  while (i < n) {
    // i is at a non-inert character; the dirty stretch starts at `boundary` and ends before the next inert one.
    out.append(s + copied, boundary - copied);
    std::size_t j = i;
    while (j < n) {
      std::size_t len;
      char32_t c = decode_utf8(s + j, len);
      if (inert(f, c, bmp)) break;
      j += len;
    }
    utf8proc_normalize(f, std::string_view(s + boundary, j - boundary), out);
    copied = j;
    // Continue the clean scan from j.
    i = j;
    boundary = j;
    while (i < n) {
      const auto b = static_cast<unsigned char>(s[i]);
      if (b < 0x80) {
        boundary = i;
        ++i;
        continue;
      }
      std::size_t len;
      char32_t c = decode_utf8(s + i, len);
      if (!inert(f, c, bmp)) break;
      boundary = unknown9(c, bmp) ? i + len : i;
      i += len;
    }
  }
  out.append(s + copied, n - copied);
  return true;
}

}  // namespace openrecipes::rows::tok
