// String helpers (locale-free parsing for log and YAML fields).
#include "core/text.h"

#include "core/utf8.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace openrecipes {

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    auto pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto pos = text.find('\n', start);
    std::size_t end = pos == std::string_view::npos ? text.size() : pos;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  std::string lower;
  lower.reserve(s.size());
  for (char c : s) lower.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  if (lower == "nan" || lower == "+nan" || lower == "-nan") return std::numeric_limits<double>::quiet_NaN();
  if (lower == "inf" || lower == "+inf" || lower == "infinity") return std::numeric_limits<double>::infinity();
  if (lower == "-inf" || lower == "-infinity") return -std::numeric_limits<double>::infinity();
  std::string_view body = s;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  if (body.empty() ||
      !(std::isdigit(static_cast<unsigned char>(body.front())) || body.front() == '.' || body.front() == '-'))
    return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
  if (ec != std::errc() || p != body.data() + body.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

double round_to(double v, double unit) {
  const double inverse = std::round(1 / unit);
  if (unit < 1 && inverse > 1 && std::abs(1 / unit - inverse) < 1e-9 * inverse)
    return std::round(v * inverse) / inverse;
  return std::round(v / unit) * unit;
}

double round_to_figures(double v, double unit, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int exponent = int(std::floor(std::log10(std::abs(v)))) - digits + 1;  // the last significant digit's place
  return exponent < 0 && std::pow(10.0, exponent) < unit ? round_to(v, std::pow(10.0, exponent)) : round_to(v, unit);
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, p);
}

std::string quote_for_message(std::string_view s, std::size_t max) {
  std::string out = "'";
  std::size_t n = 0;
  for (unsigned char c : s) {
    if (n++ >= max) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\'')
      out.push_back(static_cast<char>(c));
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out + "'";
}

namespace {

// The one escaping loop behind escape_controls and terminal_safe: a C0 byte (when `escape_c0`), DEL and every
// byte outside well-formed UTF-8 become "\xNN"; a C1 control becomes "\xC2\xNN" or, with `c1_as_codepoint`,
// "\u00NN"; the output stops at `max_bytes` of input with "... (N more bytes)".
std::string escape_for_terminal(std::string_view s, bool escape_c0, bool c1_as_codepoint, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 16);
  auto hex = [&](unsigned char c) { out += fmt::format("\\x{:02x}", c); };
  std::size_t i = 0;
  while (i < s.size()) {
    if (i >= max_bytes) {
      out += fmt::format("... ({} more bytes)", s.size() - i);
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0 || ((c < 0x20 || c == 0x7f) && escape_c0)) {
      hex(c);
      ++i;
      continue;
    }
    if (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) <= 0x9f) {  // a C1 control
      const auto low = static_cast<unsigned char>(s[i + 1]);
      if (c1_as_codepoint) {
        out += fmt::format("\\u{:04x}", low);
      } else {
        hex(c);
        hex(low);
      }
      i += 2;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

// Inserts a comma between each group of three digits of the integer part of a formatted decimal number.
std::string group_thousands(const std::string& formatted) {
  const std::size_t sign = !formatted.empty() && formatted[0] == '-' ? 1 : 0;
  std::size_t end = formatted.find('.');
  if (end == std::string::npos) end = formatted.size();
  std::string out = formatted.substr(0, sign);
  for (std::size_t i = sign; i < end; ++i) {
    if (i > sign && (end - i) % 3 == 0) out += ',';
    out += formatted[i];
  }
  return out + formatted.substr(end);
}

}  // namespace

std::string escape_controls(std::string_view s, std::size_t max_bytes) {
  return escape_for_terminal(s, true, false, max_bytes);
}

std::string terminal_safe(std::string_view s, bool escape_c0) {
  // On a terminal a bidirectional control reorders the rest of the line: shown as \u202E (inert_text) there.
  if (escape_c0) return escape_for_terminal(inert_text(s), true, true, std::string_view::npos);
  return escape_for_terminal(s, escape_c0, true, std::string_view::npos);
}

std::string counted(std::int64_t n, std::string_view singular, std::string_view plural) {
  if (n == 1 || n == -1) return fmt::format("{} {}", n, singular);
  return plural.empty() ? fmt::format("{} {}s", n, singular) : fmt::format("{} {}", n, plural);
}

std::string with_thousands(std::int64_t n) { return group_thousands(fmt::format("{}", n)); }

std::string with_thousands(double v, int decimals) { return group_thousands(fmt::format("{:.{}f}", v, decimals)); }

std::vector<std::string> wrap_words(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (j == i) break;
    const std::string_view word = text.substr(i, j - i);
    if (!line.empty() && line.size() + 1 + word.size() > width) lines.push_back(std::move(line)), line.clear();
    line += (line.empty() ? "" : " ") + std::string(word);
    i = j;
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string nearest_name(std::string_view word, const std::vector<std::string>& names) {
  if (word.size() > 256) return "";
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::string best;
  std::size_t best_d = SIZE_MAX;
  bool tie = false;
  for (const auto& name : names) {
    if (name.size() > 256 || name == word) continue;
    // Optimal string alignment: insertions, deletions, substitutions and a swap of two neighbours cost 1 each.
    const std::size_t n = word.size(), m = name.size();
    std::vector<std::size_t> d((n + 1) * (m + 1));
    auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
    for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
    for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
    for (std::size_t i = 1; i <= n; ++i)
      for (std::size_t j = 1; j <= m; ++j) {
        const bool same = lower(word[i - 1]) == lower(name[j - 1]);
        at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same ? 0 : 1)});
        if (i > 1 && j > 1 && lower(word[i - 1]) == lower(name[j - 2]) && lower(word[i - 2]) == lower(name[j - 1]))
          at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    const std::size_t dist = at(n, m);
    if (dist < best_d)
      best = name, best_d = dist, tie = false;
    else if (dist == best_d)
      tie = true;
  }
  // Near enough to be a typo: one edit in a short name (3 to 5 letters), two in a longer one.
  const std::size_t longer = std::max(word.size(), best.size());
  const std::size_t allowed = longer >= 6 ? 2 : longer >= 3 ? 1 : 0;
  if (best.empty() || tie || best_d > allowed) return "";
  return best;
}

}  // namespace openrecipes
