// Python's format() mini-language for str/int/float (CPython 3.11 Python/formatter_unicode.c) and str.format
// with Jinja2's SandboxedFormatter field access (jinja2/sandbox.py); json.dumps, %-format and strftime are in
// pyjson.cpp, pypercent.cpp and pystrftime.cpp.
#include "rows/template/pyformat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

struct Spec {
  char32_t fill = ' ';
  char align = 0;
  char sign = 0;
  bool alt = false;
  bool zero = false;
  std::int64_t width = -1;
  char grouping = 0;
  std::int64_t precision = -1;
  char type = 0;
};

Spec parse_spec(std::string_view s) {
  Spec sp;
  std::size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (!s.empty()) {
    std::size_t j = 0;
    char32_t first = next_cp(s, j);
    if (j < s.size() && is_align(s[j])) {
      sp.fill = first;
      sp.align = s[j];
      i = j + 1;
    } else if (is_align(s[0])) {
      sp.align = s[0];
      i = 1;
    }
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
  if (i < s.size() && s[i] == 'z') fail(PyError::Unsupported, "the 'z' format option is not supported");
  if (i < s.size() && s[i] == '#') {
    sp.alt = true;
    ++i;
  }
  if (i < s.size() && s[i] == '0') {
    sp.zero = true;
    ++i;
  }
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    sp.width = std::max<std::int64_t>(sp.width, 0) * 10 + (s[i++] - '0');
    if (sp.width > (1 << 24)) fail(PyError::LimitExceeded, "format width too large");
  }
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') fail(PyError::ValueError, "Format specifier missing precision");
    sp.precision = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      sp.precision = sp.precision * 10 + (s[i++] - '0');
      if (sp.precision > 1000) fail(PyError::LimitExceeded, "format precision too large");
    }
  }
  if (i < s.size()) sp.type = s[i++];
  if (i < s.size()) fail(PyError::ValueError, "Invalid format specifier");
  return sp;
}

std::string align_text(const std::string& body, const Spec& sp, char default_align, std::size_t sign_len = 0) {
  auto len = static_cast<std::int64_t>(cp_count(body));
  if (sp.width <= len) return body;
  std::string f;
  append_utf8(f, sp.fill);
  auto pad = static_cast<std::size_t>(sp.width - len);
  char align = sp.align ? sp.align : default_align;
  std::string out;
  auto rep = [&](std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) out += f;
  };
  switch (align) {
    case '<':
      out = body;
      rep(pad);
      break;
    case '>':
      rep(pad);
      out += body;
      break;
    case '^':
      rep(pad / 2);
      out += body;
      rep(pad - pad / 2);
      break;
    default:  // '=': padding after the sign
      out = body.substr(0, sign_len);
      rep(pad);
      out += body.substr(sign_len);
  }
  return out;
}

std::string group_digits(const std::string& digits, char sep, int every) {
  if (!sep) return digits;
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int k = 0; k < n; ++k) {
    if (k > 0 && (n - k) % every == 0) out.push_back(sep);
    out.push_back(digits[static_cast<std::size_t>(k)]);
  }
  return out;
}

std::string format_float_spec(double f, Spec sp) {
  char type = sp.type;
  bool percent = type == '%';
  if (percent) {
    f *= 100;
    type = 'f';
  }
  std::string body;
  bool neg = std::signbit(f) && !std::isnan(f);
  double a = std::fabs(f);
  if (type == 0) {
    if (sp.precision < 0) {
      body = float_repr(a);
    } else {
      // like 'g' but always a digit after the point in fixed notation
      std::int64_t p = sp.precision == 0 ? 1 : sp.precision;
      char buf[1100];
      std::snprintf(buf, sizeof buf, "%.*g", static_cast<int>(p), a);
      body = buf;
      if (std::isfinite(a) && body.find_first_of(".e") == std::string::npos) body += ".0";
    }
  } else if (type == 'e' || type == 'E' || type == 'f' || type == 'F' || type == 'g' || type == 'G' || type == 'n') {
    char t = type == 'n' ? 'g' : type;
    std::int64_t p = sp.precision < 0 ? 6 : sp.precision;
    std::string cf = std::string("%") + (sp.alt ? "#" : "") + "." + std::to_string(p) + t;
    char buf[1100];
    std::snprintf(buf, sizeof buf, cf.c_str(), a);
    body = buf;
  } else {
    fail(PyError::ValueError, std::string("Unknown format code '") + type + "' for object of type 'float'");
  }
  if (percent) body += "%";
  if (sp.grouping) {
    std::size_t end = body.find_first_not_of("0123456789");
    if (end == std::string::npos) end = body.size();
    body = group_digits(body.substr(0, end), sp.grouping, 3) + body.substr(end);
  }
  std::string sign = neg ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
  std::string full = sign + body;
  if (sp.zero && !sp.align) {
    Spec z = sp;
    z.fill = '0';
    z.align = '=';
    return align_text(full, z, '>', sign.size());
  }
  return align_text(full, sp, '>', sign.size());
}

std::string format_int_spec(std::int64_t v, Spec sp) {
  char type = sp.type ? sp.type : 'd';
  if (type == 'e' || type == 'E' || type == 'f' || type == 'F' || type == 'g' || type == 'G' || type == '%')
    return format_float_spec(static_cast<double>(v), sp);
  if (sp.precision >= 0) fail(PyError::ValueError, "Precision not allowed in integer format specifier");
  bool neg = v < 0;
  std::uint64_t u = neg ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
  std::string digits, prefix;
  if (type == 'c') {
    std::string ch;
    if (v < 0 || v > 0x10FFFF) fail(PyError::OverflowError, "%c arg not in range(0x110000)");
    append_utf8(ch, static_cast<char32_t>(v));
    return align_text(ch, sp, '<');
  }
  int base = 10;
  if (type == 'b')
    base = 2, prefix = "0b";
  else if (type == 'o')
    base = 8, prefix = "0o";
  else if (type == 'x')
    base = 16, prefix = "0x";
  else if (type == 'X')
    base = 16, prefix = "0X";
  else if (type != 'd' && type != 'n')
    fail(PyError::ValueError, std::string("Unknown format code '") + type + "' for object of type 'int'");
  if (u == 0) digits = "0";
  while (u > 0) {
    int d = static_cast<int>(u % static_cast<std::uint64_t>(base));
    digits.push_back(static_cast<char>(d < 10 ? '0' + d : (type == 'X' ? 'A' : 'a') + d - 10));
    u /= static_cast<std::uint64_t>(base);
  }
  std::reverse(digits.begin(), digits.end());
  digits = group_digits(digits, sp.grouping, base == 10 ? 3 : 4);
  std::string sign = neg ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
  std::string head = sign + (sp.alt ? prefix : "");
  std::string full = head + digits;
  if (sp.zero && !sp.align) {
    Spec z = sp;
    z.fill = '0';
    z.align = '=';
    return align_text(full, z, '>', head.size());
  }
  return align_text(full, sp, '>', head.size());
}

}  // namespace

std::string format_value(const Value& v, std::string_view spec) {
  if (spec.empty()) return to_str(v);
  Spec sp = parse_spec(spec);
  if (v.is_str()) {
    if (sp.type != 0 && sp.type != 's')
      fail(PyError::ValueError, std::string("Unknown format code '") + sp.type + "' for object of type 'str'");
    if (sp.sign) fail(PyError::ValueError, "Sign not allowed in string format specifier");
    if (sp.align == '=') fail(PyError::ValueError, "'=' alignment not allowed in string format specifier");
    std::string s(v.str());
    if (sp.precision >= 0) s = pystr::slice(s, std::nullopt, sp.precision, 1);
    return align_text(s, sp, '<');
  }
  if (v.is_int_like()) return format_int_spec(v.as_int(), sp);
  if (v.is(Kind::Float)) return format_float_spec(v.as_float(), sp);
  fail(PyError::TypeError, "unsupported format string passed to " + type_name(v) + ".__format__");
}

std::string str_format(Interp& in, std::string_view fmt, const Args& args) {
  std::string out;
  std::size_t auto_index = 0;
  bool used_auto = false, used_manual = false;

  auto field_value = [&](std::string_view field) -> Value {
    std::size_t k = 0;
    while (k < field.size() && field[k] != '.' && field[k] != '[') ++k;
    std::string_view first = field.substr(0, k);
    Value obj;
    bool is_index =
        !first.empty() && std::all_of(first.begin(), first.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (first.empty() || is_index) {
      std::size_t idx;
      if (first.empty()) {
        if (used_manual)
          fail(PyError::ValueError, "cannot switch from manual field specification to automatic field numbering");
        used_auto = true;
        idx = auto_index++;
      } else {
        if (used_auto)
          fail(PyError::ValueError, "cannot switch from automatic field numbering to manual field specification");
        used_manual = true;
        idx = static_cast<std::size_t>(std::stoull(std::string(first)));
      }
      if (idx >= args.pos.size())
        fail(PyError::IndexError,
             "Replacement index " + std::to_string(idx) + " out of range for positional args tuple");
      obj = args.pos[idx];
    } else {
      const Value* v = args.kwarg(first);
      if (v == nullptr) fail(PyError::KeyError, repr(Value::borrowed(first)));
      obj = *v;
    }
    while (k < field.size()) {
      if (field[k] == '.') {
        std::size_t e = k + 1;
        while (e < field.size() && field[e] != '.' && field[e] != '[') ++e;
        std::string_view name = field.substr(k + 1, e - k - 1);
        if (name.empty()) fail(PyError::ValueError, "Empty attribute in format string");
        obj = in.getattr(obj, name, -2);
        k = e;
      } else {
        std::size_t e = field.find(']', k);
        if (e == std::string_view::npos) fail(PyError::ValueError, "Missing ']' in format string");
        std::string_view key = field.substr(k + 1, e - k - 1);
        bool digits = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
        Value kv = digits ? Value::integer(std::stoll(std::string(key))) : Value::string(key);
        obj = in.getitem(obj, kv);
        k = e + 1;
        if (k < field.size() && field[k] != '.' && field[k] != '[')
          fail(PyError::ValueError, "Only '.' or '[' may follow ']' in format field specifier");
      }
    }
    return obj;
  };

  std::function<std::string(std::string_view, int)> render = [&](std::string_view f, int depth) -> std::string {
    if (depth > 2) fail(PyError::ValueError, "Max string recursion exceeded");
    std::string r;
    std::size_t i = 0;
    while (i < f.size()) {
      char c = f[i];
      if (c == '{') {
        if (i + 1 < f.size() && f[i + 1] == '{') {
          r.push_back('{');
          i += 2;
          continue;
        }
        // find the matching '}'
        int level = 1;
        std::size_t j = i + 1;
        while (j < f.size() && level > 0) {
          if (f[j] == '{')
            ++level;
          else if (f[j] == '}')
            --level;
          if (level > 0) ++j;
        }
        if (j >= f.size()) fail(PyError::ValueError, "expected '}' before end of string");
        std::string_view body = f.substr(i + 1, j - i - 1);
        std::size_t colon = std::string_view::npos, bang = std::string_view::npos;
        int br = 0;
        for (std::size_t k = 0; k < body.size(); ++k) {
          if (body[k] == '[') ++br;
          if (body[k] == ']') --br;
          if (br == 0 && body[k] == '!' && bang == std::string_view::npos && colon == std::string_view::npos) bang = k;
          if (br == 0 && body[k] == ':') {
            colon = k;
            break;
          }
        }
        std::string_view field = body.substr(0, std::min(bang, colon));
        char conv = 0;
        if (bang != std::string_view::npos) {
          std::size_t end = colon == std::string_view::npos ? body.size() : colon;
          if (end - bang != 2) fail(PyError::ValueError, "expected ':' after conversion specifier");
          conv = body[bang + 1];
          if (conv != 'r' && conv != 's' && conv != 'a')
            fail(PyError::ValueError, std::string("Unknown conversion specifier ") + conv);
        }
        std::string spec = colon == std::string_view::npos ? "" : render(body.substr(colon + 1), depth + 1);
        Value v = field_value(field);
        if (conv == 's') v = Value::string(to_str(v));
        if (conv == 'r') v = Value::string(repr(v));
        if (conv == 'a') v = Value::string(ascii_repr(v));
        r += format_value(v, spec);
        check_text_size(r.size());
        i = j + 1;
      } else if (c == '}') {
        if (i + 1 < f.size() && f[i + 1] == '}') {
          r.push_back('}');
          i += 2;
          continue;
        }
        fail(PyError::ValueError, "Single '}' encountered in format string");
      } else {
        r.push_back(c);
        ++i;
      }
    }
    return r;
  };
  out = render(fmt, 0);
  return out;
}

}  // namespace openrecipes::rows::template_engine
