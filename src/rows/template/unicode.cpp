// UTF-8 helpers and Python 3.11 str case/class semantics over the generated tables (unicode_tables.cpp).
#include "rows/template/unicode.h"

#include <algorithm>

#include "rows/template/unicode_tables.h"

namespace openrecipes::rows::template_engine {
namespace ud = unicode_data;

char32_t next_cp(std::string_view s, std::size_t& i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  char32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < len && i + k < s.size(); ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

char32_t prev_cp(std::string_view s, std::size_t& i) {
  std::size_t j = i;
  do {
    --j;
  } while (j > 0 && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80);
  std::size_t k = j;
  char32_t cp = next_cp(s, k);
  i = j;
  return cp;
}

std::size_t cp_count(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::size_t cp_offset(std::string_view s, std::size_t cp_index) {
  std::size_t i = 0, k = 0;
  while (i < s.size() && k < cp_index) {
    next_cp(s, i);
    ++k;
  }
  return std::min(i, s.size());
}

namespace {

bool in_ranges(const ud::CodeRange* r, std::size_t n, char32_t c) {
  const ud::CodeRange* end = r + n;
  const ud::CodeRange* it = std::upper_bound(r, end, c, [](char32_t v, const ud::CodeRange& x) { return v < x.lo; });
  if (it == r) return false;
  --it;
  return c >= it->lo && c <= it->hi;
}

const ud::CaseMapping* find_map(const ud::CaseMapping* m, std::size_t n, char32_t c) {
  const ud::CaseMapping* end = m + n;
  const ud::CaseMapping* it =
      std::lower_bound(m, end, c, [](const ud::CaseMapping& x, char32_t v) { return x.cp < v; });
  return (it != end && it->cp == c) ? it : nullptr;
}

void append_mapped(std::string& out, const ud::CaseMapping* m, std::size_t n, char32_t c) {
  if (c < 0x80 && m != ud::title_map && m != ud::fold_map) {
    // ASCII fast path (upper/lower only).
    if (m == ud::upper_map && c >= 'a' && c <= 'z') c -= 32;
    if (m == ud::lower_map && c >= 'A' && c <= 'Z') c += 32;
    out.push_back(static_cast<char>(c));
    return;
  }
  const ud::CaseMapping* e = find_map(m, n, c);
  if (e == nullptr) {
    append_utf8(out, c);
    return;
  }
  for (std::uint8_t k = 0; k < e->n; ++k) append_utf8(out, e->out[k]);
}

void append_upper(std::string& out, char32_t c) { append_mapped(out, ud::upper_map, ud::upper_map_size, c); }
void append_title(std::string& out, char32_t c) { append_mapped(out, ud::title_map, ud::title_map_size, c); }

// CPython lower_ucs4: lower-case one character, with the Greek final sigma rule (handle_capital_sigma).
void append_lower_at(std::string& out, std::string_view s, std::size_t at, std::size_t next, char32_t c) {
  if (c != 0x3A3) {
    append_mapped(out, ud::lower_map, ud::lower_map_size, c);
    return;
  }
  bool final_sigma = false;
  std::size_t j = at;
  char32_t b = 0;
  bool found = false;
  while (j > 0) {
    b = prev_cp(s, j);
    if (!py_is_case_ignorable(b)) {
      found = true;
      break;
    }
  }
  final_sigma = found && py_is_cased(b);
  if (final_sigma) {
    std::size_t k = next;
    bool stopped = false;
    char32_t f = 0;
    while (k < s.size()) {
      f = next_cp(s, k);
      if (!py_is_case_ignorable(f)) {
        stopped = true;
        break;
      }
    }
    final_sigma = !stopped || !py_is_cased(f);
  }
  append_utf8(out, final_sigma ? 0x3C2 : 0x3C3);
}

}  // namespace

bool py_isspace(char32_t c) {
  if (c < 0x80) return (c >= 9 && c <= 13) || (c >= 28 && c <= 32);
  return in_ranges(ud::space_ranges, ud::space_ranges_size, c);
}
bool py_isalpha(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return in_ranges(ud::alpha_ranges, ud::alpha_ranges_size, c);
}
bool py_isdecimal(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return in_ranges(ud::decimal_ranges, ud::decimal_ranges_size, c);
}
bool py_isdigit(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return in_ranges(ud::digit_ranges, ud::digit_ranges_size, c);
}
bool py_isnumeric(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return in_ranges(ud::numeric_ranges, ud::numeric_ranges_size, c);
}
bool py_isalnum(char32_t c) { return py_isalpha(c) || py_isdecimal(c) || py_isdigit(c) || py_isnumeric(c); }
bool py_isprintable(char32_t c) {
  if (c < 0x80) return c >= 0x20 && c < 0x7F;
  return in_ranges(ud::printable_ranges, ud::printable_ranges_size, c);
}
bool py_is_lower_char(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z';
  return in_ranges(ud::lower_ranges, ud::lower_ranges_size, c);
}
bool py_is_upper_char(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  return in_ranges(ud::upper_ranges, ud::upper_ranges_size, c);
}
bool py_is_title_char(char32_t c) {
  if (c < 0x80) return false;
  return in_ranges(ud::titlecase_ranges, ud::titlecase_ranges_size, c);
}
bool py_is_cased(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return in_ranges(ud::cased_ranges, ud::cased_ranges_size, c);
}
bool py_is_case_ignorable(char32_t c) {
  return in_ranges(ud::case_ignorable_ranges, ud::case_ignorable_ranges_size, c);
}

std::string py_upper(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) append_upper(out, next_cp(s, i));
  return out;
}

std::string py_lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t at = i;
    char32_t c = next_cp(s, i);
    append_lower_at(out, s, at, i, c);
  }
  return out;
}

std::string py_title(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool previous_is_cased = false;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t at = i;
    char32_t c = next_cp(s, i);
    if (previous_is_cased)
      append_lower_at(out, s, at, i, c);
    else
      append_title(out, c);
    previous_is_cased = py_is_cased(c);
  }
  return out;
}

std::string py_capitalize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool first = true;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t at = i;
    char32_t c = next_cp(s, i);
    if (first)
      append_title(out, c);
    else
      append_lower_at(out, s, at, i, c);
    first = false;
  }
  return out;
}

std::string py_swapcase(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t at = i;
    char32_t c = next_cp(s, i);
    if (py_is_upper_char(c))
      append_lower_at(out, s, at, i, c);
    else if (py_is_lower_char(c))
      append_upper(out, c);
    else
      append_utf8(out, c);
  }
  return out;
}

std::string py_casefold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    char32_t c = next_cp(s, i);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    } else {
      append_mapped(out, ud::fold_map, ud::fold_map_size, c);
    }
  }
  return out;
}

bool py_islower(std::string_view s) {
  bool cased = false;
  for (std::size_t i = 0; i < s.size();) {
    char32_t c = next_cp(s, i);
    if (py_is_upper_char(c) || py_is_title_char(c)) return false;
    if (!cased && py_is_lower_char(c)) cased = true;
  }
  return cased;
}

bool py_isupper(std::string_view s) {
  bool cased = false;
  for (std::size_t i = 0; i < s.size();) {
    char32_t c = next_cp(s, i);
    if (py_is_lower_char(c) || py_is_title_char(c)) return false;
    if (!cased && py_is_upper_char(c)) cased = true;
  }
  return cased;
}

bool py_istitle(std::string_view s) {
  bool cased = false, previous_is_cased = false;
  for (std::size_t i = 0; i < s.size();) {
    char32_t c = next_cp(s, i);
    if (py_is_upper_char(c) || py_is_title_char(c)) {
      if (previous_is_cased) return false;
      previous_is_cased = cased = true;
    } else if (py_is_lower_char(c)) {
      if (!previous_is_cased) return false;
      previous_is_cased = cased = true;
    } else {
      previous_is_cased = false;
    }
  }
  return cased;
}

bool py_str_all(std::string_view s, bool (*pred)(char32_t)) {
  if (s.empty()) return pred == py_isprintable;
  for (std::size_t i = 0; i < s.size();)
    if (!pred(next_cp(s, i))) return false;
  return true;
}

}  // namespace openrecipes::rows::template_engine
