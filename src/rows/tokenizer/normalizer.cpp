// Normalizer chain (SPEC §1.3; upstream normalizers/{unicode,utils,replace,prepend,strip}.rs and
// NormalizedString::{lowercase,replace,prepend,lrstrip}).
#include "rows/tokenizer/normalizer.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/error.h"
#include "core/utf8.h"
#include "rows/tokenizer/unicode_class.h"

namespace openrecipes::rows::tok {
namespace detail {
extern const std::uint32_t kLowercase[][4];  // lowercase_data.cpp: {code point, lowercase..., 0}, sorted
extern const unsigned kLowercaseSize;
}  // namespace detail
namespace {

// Rust char::to_lowercase (full mapping; only U+0130 gives two characters), from the generated table.
void lowercase(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size();) {
    const auto b = static_cast<unsigned char>(in[i]);
    if (b < 0x80) {
      out.push_back(b >= 'A' && b <= 'Z' ? static_cast<char>(b + 32) : static_cast<char>(b));
      ++i;
      continue;
    }
    std::size_t len;
    char32_t c = decode_utf8(in.data() + i, len);
    i += len;
    const auto* lo = detail::kLowercase;
    const auto* hi = lo + detail::kLowercaseSize;
    const auto* it = std::lower_bound(lo, hi, c, [](const std::uint32_t(&row)[4], char32_t v) { return row[0] < v; });
    if (it == hi || (*it)[0] != c) {
      append_utf8(out, c);
    } else {
      for (int k = 1; k < 4 && (*it)[k] != 0; ++k) append_utf8(out, static_cast<char32_t>((*it)[k]));
    }
  }
}

[[noreturn]] void normalized_too_long() {
  throw InputError(
      "the text to encode",
      fmt::format("the tokenizer's normalizer grows this text past the limit of {} bytes", kMaxNormalizedBytes),
      "split that text, or use a tokenizer whose normalizer does not expand text this much");
}

void replace(const NormalizerStep& st, std::string_view in, std::string& out) {
  out.clear();
  std::size_t last = 0;
  auto put = [&](std::string_view before) {
    if (out.size() + before.size() + st.content.size() > kMaxNormalizedBytes) normalized_too_long();
    out.append(before);
    out.append(st.content);
  };
  if (st.regex) {
    std::vector<Span> matches;
    st.regex->find_all(in, matches);
    for (const auto& [s, e] : matches) {
      put(in.substr(last, s - last));
      last = e;
    }
  } else {
    for (std::size_t pos = in.find(st.literal); pos != std::string_view::npos; pos = in.find(st.literal, last)) {
      put(in.substr(last, pos - last));
      last = pos + st.literal.size();
    }
  }
  out.append(in.substr(last));
}

// Strip: removes leading and/or trailing White_Space characters.
std::string_view strip(std::string_view in, bool left, bool right) {
  std::size_t b = 0, e = in.size();
  if (left) {
    while (b < e) {
      std::size_t len;
      char32_t c = decode_utf8(in.data() + b, len);
      if (!(char_class(c) & kSpace)) break;
      b += len;
    }
  }
  if (right) {
    while (e > b) {
      std::size_t k = e - 1;
      while (k > b && (static_cast<unsigned char>(in[k]) & 0xC0) == 0x80) --k;
      std::size_t len;
      char32_t c = decode_utf8(in.data() + k, len);
      if (!(char_class(c) & kSpace)) break;
      e = k;
    }
  }
  return in.substr(b, e - b);
}

}  // namespace

std::string_view NormalizerChain::apply(std::string_view in, std::string& buffer) const {
  std::string_view cur = in;
  std::string tmp;
  for (const NormalizerStep& st : steps_) {
    if (cur.empty()) break;  // upstream: every normalizer leaves an empty string empty
    switch (st.kind) {
      case NormalizerStep::Kind::unicode:
        if (!unicode_normalize(st.form, cur, tmp)) continue;
        break;
      case NormalizerStep::Kind::lowercase:
        lowercase(cur, tmp);
        break;
      case NormalizerStep::Kind::replace:
        replace(st, cur, tmp);
        break;
      case NormalizerStep::Kind::prepend:
        tmp.assign(st.content);
        tmp.append(cur);
        break;
      case NormalizerStep::Kind::strip:
        cur = strip(cur, st.strip_left, st.strip_right);  // a sub-view: nothing to copy
        continue;
    }
    if (tmp.size() > kMaxNormalizedBytes) normalized_too_long();
    buffer.swap(tmp);
    cur = buffer;
  }
  return cur;
}

std::string NormalizerChain::describe() const {
  std::string s;
  for (const NormalizerStep& st : steps_) {
    if (!s.empty()) s += ", ";
    switch (st.kind) {
      case NormalizerStep::Kind::unicode:
        s += name_of(kNormFormNames, st.form);
        break;
      case NormalizerStep::Kind::lowercase:
        s += "Lowercase";
        break;
      case NormalizerStep::Kind::replace:
        s += "Replace";
        break;
      case NormalizerStep::Kind::prepend:
        s += "Prepend";
        break;
      case NormalizerStep::Kind::strip:
        s += "Strip";
        break;
    }
  }
  if (steps_.size() > 1) return "Sequence[" + s + "]";
  return s.empty() ? "none" : s;
}

}  // namespace openrecipes::rows::tok
