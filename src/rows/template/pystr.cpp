// CPython 3.11 str method algorithms (Objects/unicodeobject.c, stringlib) over UTF-8 with code point indices.
#include "rows/template/pystr.h"

#include <algorithm>

#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine::pystr {

namespace {

bool contains_cp(std::string_view chars, char32_t c) {
  for (std::size_t i = 0; i < chars.size();)
    if (next_cp(chars, i) == c) return true;
  return false;
}

bool strip_match(const std::string_view* chars, char32_t c) {
  return chars == nullptr ? py_isspace(c) : contains_cp(*chars, c);
}

// Python's line boundaries for splitlines.
bool is_linebreak(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 ||
         c == 0x2028 || c == 0x2029;
}

}  // namespace

std::string_view strip(std::string_view s, const std::string_view* chars, bool left, bool right) {
  std::size_t b = 0, e = s.size();
  if (left) {
    while (b < e) {
      std::size_t j = b;
      char32_t c = next_cp(s, j);
      if (!strip_match(chars, c)) break;
      b = j;
    }
  }
  if (right) {
    while (e > b) {
      std::size_t j = e;
      char32_t c = prev_cp(s, j);
      if (!strip_match(chars, c)) break;
      e = j;
    }
  }
  return s.substr(b, e - b);
}

std::vector<std::string_view> split(std::string_view s, const std::string_view* sep, std::int64_t maxsplit) {
  std::vector<std::string_view> out;
  if (maxsplit < 0) maxsplit = INT64_MAX;
  if (sep == nullptr) {
    std::size_t i = 0, n = s.size();
    while (maxsplit-- > 0) {
      while (i < n) {
        std::size_t j = i;
        if (!py_isspace(next_cp(s, j))) break;
        i = j;
      }
      if (i == n) break;
      std::size_t start = i;
      while (i < n) {
        std::size_t j = i;
        if (py_isspace(next_cp(s, j))) break;
        i = j;
      }
      out.push_back(s.substr(start, i - start));
    }
    if (i < n) {
      while (i < n) {
        std::size_t j = i;
        if (!py_isspace(next_cp(s, j))) break;
        i = j;
      }
      if (i != n) out.push_back(s.substr(i));
    }
    return out;
  }
  std::size_t pos = 0;
  while (maxsplit-- > 0) {
    std::size_t f = s.find(*sep, pos);
    if (f == std::string_view::npos) break;
    out.push_back(s.substr(pos, f - pos));
    pos = f + sep->size();
  }
  out.push_back(s.substr(pos));
  return out;
}

std::vector<std::string_view> rsplit(std::string_view s, const std::string_view* sep, std::int64_t maxsplit) {
  std::vector<std::string_view> out;
  if (maxsplit < 0) maxsplit = INT64_MAX;
  if (sep == nullptr) {
    std::size_t i = s.size();
    while (maxsplit-- > 0) {
      while (i > 0) {
        std::size_t j = i;
        if (!py_isspace(prev_cp(s, j))) break;
        i = j;
      }
      if (i == 0) break;
      std::size_t end = i;
      while (i > 0) {
        std::size_t j = i;
        if (py_isspace(prev_cp(s, j))) break;
        i = j;
      }
      out.push_back(s.substr(i, end - i));
    }
    if (i > 0) {
      while (i > 0) {
        std::size_t j = i;
        if (!py_isspace(prev_cp(s, j))) break;
        i = j;
      }
      if (i != 0) out.push_back(s.substr(0, i));
    }
    std::reverse(out.begin(), out.end());
    return out;
  }
  std::size_t end = s.size();
  while (maxsplit-- > 0) {
    if (end < sep->size()) break;
    std::size_t f = s.substr(0, end).rfind(*sep);
    if (f == std::string_view::npos) break;
    out.push_back(s.substr(f + sep->size(), end - f - sep->size()));
    end = f;
  }
  out.push_back(s.substr(0, end));
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string_view> splitlines(std::string_view s, bool keepends) {
  std::vector<std::string_view> out;
  std::size_t i = 0, n = s.size();
  while (i < n) {
    std::size_t start = i, eol = i;
    bool found = false;
    while (i < n) {
      std::size_t j = i;
      char32_t c = next_cp(s, j);
      if (is_linebreak(c)) {
        eol = i;
        i = j;
        if (c == '\r' && i < n && s[i] == '\n') ++i;
        found = true;
        break;
      }
      i = j;
    }
    if (!found) eol = i;
    out.push_back(s.substr(start, (keepends ? i : eol) - start));
  }
  return out;
}

std::string replace(std::string_view s, std::string_view old, std::string_view neu, std::int64_t count) {
  if (count < 0) count = INT64_MAX;
  std::string out;
  if (old.empty()) {
    // Insert `neu` before every code point and at the end, up to count times.
    std::size_t i = 0;
    std::int64_t done = 0;
    while (done < count) {
      out.append(neu);
      ++done;
      if (i >= s.size()) break;
      std::size_t j = i;
      next_cp(s, j);
      out.append(s.substr(i, j - i));
      i = j;
    }
    out.append(s.substr(std::min(i, s.size())));
    return out;
  }
  std::size_t pos = 0;
  std::int64_t done = 0;
  while (done < count) {
    std::size_t f = s.find(old, pos);
    if (f == std::string_view::npos) break;
    out.append(s.substr(pos, f - pos));
    out.append(neu);
    pos = f + old.size();
    ++done;
  }
  out.append(s.substr(pos));
  return out;
}

bool byte_range(std::string_view s, std::optional<std::int64_t> start, std::optional<std::int64_t> end, std::size_t& b0,
                std::size_t& b1, std::int64_t& cp_start) {
  auto len = static_cast<std::int64_t>(cp_count(s));
  std::int64_t a = start.value_or(0), z = end.value_or(len);
  if (z > len) z = len;
  if (z < 0) z = std::max<std::int64_t>(z + len, 0);
  if (a < 0) a = std::max<std::int64_t>(a + len, 0);
  if (a > len) return false;
  cp_start = a;
  if (z < a) z = a;
  if (is_ascii(s)) {
    b0 = static_cast<std::size_t>(a);
    b1 = static_cast<std::size_t>(z);
  } else {
    b0 = cp_offset(s, static_cast<std::size_t>(a));
    b1 = b0 + cp_offset(s.substr(b0), static_cast<std::size_t>(z - a));
  }
  return true;
}

std::int64_t find(std::string_view s, std::string_view sub, std::optional<std::int64_t> start,
                  std::optional<std::int64_t> end, bool reverse) {
  std::size_t b0, b1;
  std::int64_t a;
  if (!byte_range(s, start, end, b0, b1, a)) return -1;
  std::string_view region = s.substr(b0, b1 - b0);
  std::size_t f = reverse ? region.rfind(sub) : region.find(sub);
  if (f == std::string_view::npos) return -1;
  return a + static_cast<std::int64_t>(cp_count(region.substr(0, f)));
}

std::int64_t count(std::string_view s, std::string_view sub, std::optional<std::int64_t> start,
                   std::optional<std::int64_t> end) {
  std::size_t b0, b1;
  std::int64_t a;
  if (!byte_range(s, start, end, b0, b1, a)) return 0;
  std::string_view region = s.substr(b0, b1 - b0);
  if (sub.empty()) return static_cast<std::int64_t>(cp_count(region)) + 1;
  std::int64_t n = 0;
  std::size_t pos = 0;
  for (;;) {
    std::size_t f = region.find(sub, pos);
    if (f == std::string_view::npos) break;
    ++n;
    pos = f + sub.size();
  }
  return n;
}

bool startswith(std::string_view s, std::string_view prefix, std::optional<std::int64_t> start,
                std::optional<std::int64_t> end, bool ends) {
  std::size_t b0, b1;
  std::int64_t a;
  if (!byte_range(s, start, end, b0, b1, a)) return false;
  std::string_view region = s.substr(b0, b1 - b0);
  if (prefix.size() > region.size()) return false;
  return ends ? region.substr(region.size() - prefix.size()) == prefix : region.substr(0, prefix.size()) == prefix;
}

std::string center(std::string_view s, std::int64_t width, char32_t fill) {
  auto len = static_cast<std::int64_t>(cp_count(s));
  if (width <= len) return std::string(s);
  std::int64_t marg = width - len;
  std::int64_t left = marg / 2 + (marg & width & 1);
  std::string f;
  append_utf8(f, fill);
  std::string out;
  for (std::int64_t i = 0; i < left; ++i) out += f;
  out.append(s);
  for (std::int64_t i = 0; i < marg - left; ++i) out += f;
  return out;
}

std::string ljust(std::string_view s, std::int64_t width, char32_t fill, bool right) {
  auto len = static_cast<std::int64_t>(cp_count(s));
  if (width <= len) return std::string(s);
  std::string f;
  append_utf8(f, fill);
  std::string pad;
  for (std::int64_t i = 0; i < width - len; ++i) pad += f;
  return right ? pad + std::string(s) : std::string(s) + pad;
}

std::string zfill(std::string_view s, std::int64_t width) {
  auto len = static_cast<std::int64_t>(cp_count(s));
  if (width <= len) return std::string(s);
  std::string out;
  std::string_view rest = s;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    out.push_back(s[0]);
    rest = s.substr(1);
  }
  out.append(static_cast<std::size_t>(width - len), '0');
  out.append(rest);
  return out;
}

std::string expandtabs(std::string_view s, std::int64_t tabsize) {
  std::string out;
  std::int64_t col = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    char32_t c = next_cp(s, j);
    if (c == '\t') {
      if (tabsize > 0) {
        std::int64_t n = tabsize - (col % tabsize);
        out.append(static_cast<std::size_t>(n), ' ');
        col += n;
      }
    } else {
      out.append(s.substr(i, j - i));
      ++col;
      if (c == '\n' || c == '\r') col = 0;
    }
    i = j;
  }
  return out;
}

std::int64_t slice_indices(std::int64_t len, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                           std::int64_t step, std::int64_t& out_start) {
  std::int64_t lower = step < 0 ? -1 : 0;
  std::int64_t upper = step < 0 ? len - 1 : len;
  auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
    if (!v) return dflt;
    std::int64_t x = *v;
    if (x < 0) {
      x += len;
      if (x < lower) x = lower;
    } else if (x > upper) {
      x = upper;
    }
    return x;
  };
  std::int64_t a = clamp(start, step < 0 ? upper : lower);
  std::int64_t b = clamp(stop, step < 0 ? lower : upper);
  out_start = a;
  if (step > 0) return a < b ? (b - a - 1) / step + 1 : 0;
  return b < a ? (a - b - 1) / (-step) + 1 : 0;
}

std::string slice(std::string_view s, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                  std::int64_t step) {
  bool ascii = is_ascii(s);
  std::vector<std::size_t> offs;  // code point byte offsets (non-ASCII only)
  std::int64_t len;
  if (ascii) {
    len = static_cast<std::int64_t>(s.size());
  } else {
    for (std::size_t i = 0; i < s.size();) {
      offs.push_back(i);
      next_cp(s, i);
    }
    offs.push_back(s.size());
    len = static_cast<std::int64_t>(offs.size()) - 1;
  }
  std::int64_t a;
  std::int64_t n = slice_indices(len, start, stop, step, a);
  std::string out;
  if (n <= 0) return out;
  if (step == 1) {
    if (ascii) return std::string(s.substr(static_cast<std::size_t>(a), static_cast<std::size_t>(n)));
    return std::string(s.substr(offs[static_cast<std::size_t>(a)],
                                offs[static_cast<std::size_t>(a + n)] - offs[static_cast<std::size_t>(a)]));
  }
  out.reserve(static_cast<std::size_t>(n));
  for (std::int64_t k = 0, idx = a; k < n; ++k, idx += step) {
    if (ascii) {
      out.push_back(s[static_cast<std::size_t>(idx)]);
    } else {
      auto u = static_cast<std::size_t>(idx);
      out.append(s.substr(offs[u], offs[u + 1] - offs[u]));
    }
  }
  return out;
}

}  // namespace openrecipes::rows::template_engine::pystr
