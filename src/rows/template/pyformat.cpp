// Python text formatting for templates: json.dumps (Lib/json/encoder.py), printf-style % (PyUnicode_Format),
// str.format with Jinja2's SandboxedFormatter field access, format() mini-language for str/int/float, and
// datetime.strftime for a pinned date (CPython 3.11 behaviour).
#include "rows/template/pyformat.h"

#include <locale.h>

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <optional>
#include <vector>

#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

// ---------------------------------------------------------------------------------------------------------
// json.dumps

namespace {

void json_string(std::string& out, std::string_view s, bool ensure_ascii) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    char32_t c = next_cp(s, i);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      default:
        break;
    }
    char buf[16];
    if (c < 0x20 || (ensure_ascii && c == 0x7F)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else if (c < 0x80 || !ensure_ascii) {
      out.append(s.substr(start, i - start));
    } else if (c < 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      char32_t v = c - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", static_cast<unsigned>(0xD800 | (v >> 10)),
                    static_cast<unsigned>(0xDC00 | (v & 0x3FF)));
      out += buf;
    }
  }
  out.push_back('"');
}

std::string json_float(double f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  return float_repr(f);
}

struct JsonWriter {
  bool ensure_ascii;
  bool has_indent;
  std::string indent;
  std::string item_sep, key_sep;
  bool sort_keys;
  std::string out;
  int depth = 0;

  [[noreturn]] void not_serializable(const Value& v) {
    fail(PyError::TypeError, "Object of type " + type_name(v) + " is not JSON serializable");
  }

  void newline(int level) {
    out.push_back('\n');
    for (int i = 0; i < level; ++i) out += indent;
  }

  std::string key_string(const Value& k) {
    switch (k.kind()) {
      case Kind::Str:
        return std::string(k.str());
      case Kind::Float:
        return json_float(k.as_float());
      case Kind::Bool:
        return k.as_bool() ? "true" : "false";
      case Kind::None:
        return "null";
      case Kind::Int:
        return std::to_string(k.as_int());
      default:
        fail(PyError::TypeError, "keys must be str, int, float, bool or None, not " + type_name(k));
    }
  }

  void write(const Value& v) {
    if (++depth > 1000) fail(PyError::LimitExceeded, "JSON nesting deeper than 1000");
    check_text_size(out.size());
    switch (v.kind()) {
      case Kind::None:
        out += "null";
        break;
      case Kind::Bool:
        out += v.as_bool() ? "true" : "false";
        break;
      case Kind::Int:
        out += std::to_string(v.as_int());
        break;
      case Kind::Float:
        out += json_float(v.as_float());
        break;
      case Kind::Str:
        json_string(out, v.str(), ensure_ascii);
        break;
      case Kind::List:
      case Kind::Tuple: {
        if (!v.list().plain()) not_serializable(v);
        const auto& items = v.list().items;
        if (items.empty()) {
          out += "[]";
          break;
        }
        out.push_back('[');
        if (has_indent) newline(depth);
        for (std::size_t i = 0; i < items.size(); ++i) {
          if (i) {
            out += item_sep;
            if (has_indent) newline(depth);
          }
          write(items[i]);
        }
        if (has_indent) newline(depth - 1);
        out.push_back(']');
        break;
      }
      case Kind::Dict: {
        const auto& d = v.dict().items;
        if (d.empty()) {
          out += "{}";
          break;
        }
        std::vector<std::size_t> order(d.size());
        for (std::size_t i = 0; i < d.size(); ++i) order[i] = i;
        if (sort_keys)
          std::stable_sort(order.begin(), order.end(),
                           [&](std::size_t a, std::size_t b) { return py_order(d[a].first, d[b].first, CmpOp::Lt); });
        out.push_back('{');
        if (has_indent) newline(depth);
        bool first = true;
        for (std::size_t idx : order) {
          if (!first) {
            out += item_sep;
            if (has_indent) newline(depth);
          }
          first = false;
          std::string k = key_string(d[idx].first);
          json_string(out, k, ensure_ascii);
          out += key_sep;
          write(d[idx].second);
        }
        if (has_indent) newline(depth - 1);
        out.push_back('}');
        break;
      }
      default:
        not_serializable(v);
    }
    --depth;
  }
};

}  // namespace

std::string json_dumps(const Value& v, bool ensure_ascii, const Value& indent, const Value& separators,
                       bool sort_keys) {
  JsonWriter w;
  w.ensure_ascii = ensure_ascii;
  w.sort_keys = sort_keys;
  w.has_indent = !indent.is(Kind::None);
  if (w.has_indent) {
    if (indent.is_str()) {
      w.indent = std::string(indent.str());
    } else if (indent.is_int_like()) {
      std::int64_t n = indent.as_int();
      if (n > 1024) fail(PyError::LimitExceeded, "tojson indent larger than 1024");
      if (n > 0) w.indent.assign(static_cast<std::size_t>(n), ' ');
    } else {
      fail(PyError::TypeError, "can't multiply sequence by non-int of type '" + type_name(indent) + "'");
    }
  }
  if (separators.is(Kind::None)) {
    w.item_sep = w.has_indent ? "," : ", ";
    w.key_sep = ": ";
  } else {
    if (!separators.is_seq() || separators.list().items.size() != 2)
      fail(PyError::ValueError, "separators must be a (item_separator, key_separator) pair");
    const auto& s = separators.list().items;
    if (!s[0].is_str() || !s[1].is_str()) fail(PyError::TypeError, "separators must be strings");
    w.item_sep = std::string(s[0].str());
    w.key_sep = std::string(s[1].str());
  }
  w.write(v);
  return std::move(w.out);
}

// ---------------------------------------------------------------------------------------------------------
// printf-style formatting

namespace {

std::string ascii_repr(const Value& v) {
  std::string r = repr(v);
  std::string out;
  for (std::size_t i = 0; i < r.size();) {
    std::size_t start = i;
    char32_t c = next_cp(r, i);
    if (c < 0x80) {
      out.append(r.substr(start, i - start));
      continue;
    }
    char b[16];
    if (c <= 0xFF)
      std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(c));
    else if (c <= 0xFFFF)
      std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(c));
    else
      std::snprintf(b, sizeof b, "\\U%08x", static_cast<unsigned>(c));
    out += b;
  }
  return out;
}

std::string pad_text(std::string body, std::int64_t width, bool left, char fill = ' ') {
  auto len = static_cast<std::int64_t>(cp_count(body));
  if (width <= len) return body;
  if (width > (1 << 24)) fail(PyError::LimitExceeded, "format width too large");
  std::string pad(static_cast<std::size_t>(width - len), fill);
  return left ? body + pad : pad + body;
}

std::int64_t int_for_format(const Value& v, char type) {
  if (v.is_int_like()) return v.as_int();
  if (v.is(Kind::Float) && (type == 'd' || type == 'i' || type == 'u')) {
    double f = v.as_float();
    if (std::isinf(f)) fail(PyError::OverflowError, "cannot convert float infinity to integer");
    if (std::isnan(f)) fail(PyError::ValueError, "cannot convert float NaN to integer");
    if (std::fabs(f) >= 9.2e18) fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
    return static_cast<std::int64_t>(f);
  }
  if (v.is_undefined()) fail_undefined(v);
  if (type == 'd' || type == 'i' || type == 'u')
    fail(PyError::TypeError, std::string("%") + type + " format: a real number is required, not " + type_name(v));
  fail(PyError::TypeError, std::string("%") + type + " format: an integer is required, not " + type_name(v));
}

std::string format_int_printf(std::int64_t v, char type, const std::string& flags, std::int64_t width,
                              std::int64_t prec) {
  bool neg = v < 0;
  std::uint64_t u = neg ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
  std::string digits;
  int base = (type == 'o') ? 8 : (type == 'x' || type == 'X') ? 16 : 10;
  if (u == 0) digits = "0";
  while (u > 0) {
    int d = static_cast<int>(u % static_cast<std::uint64_t>(base));
    digits.push_back(static_cast<char>(d < 10 ? '0' + d : (type == 'X' ? 'A' : 'a') + d - 10));
    u /= static_cast<std::uint64_t>(base);
  }
  std::reverse(digits.begin(), digits.end());
  if (prec >= 0 && static_cast<std::int64_t>(digits.size()) < prec)
    digits.insert(0, static_cast<std::size_t>(prec - static_cast<std::int64_t>(digits.size())), '0');
  std::string prefix;
  if (flags.find('#') != std::string::npos) {
    if (type == 'o') prefix = "0o";
    if (type == 'x') prefix = "0x";
    if (type == 'X') prefix = "0X";
  }
  std::string sign = neg                                    ? "-"
                     : flags.find('+') != std::string::npos ? "+"
                     : flags.find(' ') != std::string::npos ? " "
                                                            : "";
  bool left = flags.find('-') != std::string::npos;
  bool zero = !left && flags.find('0') != std::string::npos;
  std::string body = prefix + digits;
  auto len = static_cast<std::int64_t>(sign.size() + body.size());
  if (zero && width > len) return sign + prefix + std::string(static_cast<std::size_t>(width - len), '0') + digits;
  return pad_text(sign + body, width, left);
}

std::string format_float_printf(double f, char type, const std::string& flags, std::int64_t width, std::int64_t prec) {
  if (prec > 1000) fail(PyError::LimitExceeded, "format precision too large");
  if (width > (1 << 24)) fail(PyError::LimitExceeded, "format width too large");
  std::string spec = "%" + flags;
  if (width >= 0) spec += std::to_string(width);
  spec += "." + std::to_string(prec < 0 ? 6 : prec);
  spec.push_back(type);
  int n = std::snprintf(nullptr, 0, spec.c_str(), f);
  std::string out(static_cast<std::size_t>(n), '\0');
  std::snprintf(out.data(), out.size() + 1, spec.c_str(), f);
  return out;
}

}  // namespace

std::string percent_format(std::string_view fmt, const Value& args, bool escape_args) {
  const bool tuple = args.is(Kind::Tuple);
  const bool mapping = !tuple && !args.is_str() && (args.is(Kind::Dict) || args.is(Kind::List));
  std::int64_t arglen = tuple ? static_cast<std::int64_t>(args.list().items.size()) : -1;
  std::int64_t argidx = tuple ? 0 : -2;
  auto next_arg = [&]() -> Value {
    if (arglen < 0) {
      if (argidx == -2) {
        argidx = -1;
        return args;
      }
      fail(PyError::TypeError, "not enough arguments for format string");
    }
    if (argidx < arglen) return args.list().items[static_cast<std::size_t>(argidx++)];
    fail(PyError::TypeError, "not enough arguments for format string");
  };
  std::string out;
  std::size_t i = 0;
  while (i < fmt.size()) {
    char c = fmt[i];
    if (c != '%') {
      std::size_t j = fmt.find('%', i);
      if (j == std::string_view::npos) j = fmt.size();
      out.append(fmt.substr(i, j - i));
      i = j;
      continue;
    }
    std::size_t spec_start = i;
    ++i;
    if (i >= fmt.size()) fail(PyError::ValueError, "incomplete format");
    Value arg;
    bool have_arg = false;
    if (fmt[i] == '(') {
      if (!mapping) fail(PyError::TypeError, "format requires a mapping");
      int depth = 1;
      std::size_t k = ++i;
      while (k < fmt.size() && depth > 0) {
        if (fmt[k] == '(') ++depth;
        if (fmt[k] == ')') --depth;
        ++k;
      }
      if (depth > 0) fail(PyError::ValueError, "incomplete format key");
      std::string_view key = fmt.substr(i, k - 1 - i);
      i = k;
      if (!args.is(Kind::Dict)) fail(PyError::TypeError, "list indices must be integers or slices, not str");
      std::ptrdiff_t idx = args.dict().find_str(key);
      if (idx < 0) fail(PyError::KeyError, repr(Value::borrowed(key)));
      arg = args.dict().items[static_cast<std::size_t>(idx)].second;
      have_arg = true;
      argidx = -2;
      arglen = -1;
    }
    std::string flags;
    while (i < fmt.size() && std::strchr("-+ #0", fmt[i]) != nullptr) flags.push_back(fmt[i++]);
    std::int64_t width = -1, prec = -1;
    if (i < fmt.size() && fmt[i] == '*') {
      Value w = next_arg();
      if (!w.is_int_like()) fail(PyError::TypeError, "* wants int");
      width = w.as_int();
      if (width < 0) {
        flags.push_back('-');
        width = -width;
      }
      ++i;
    } else {
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        width = std::max<std::int64_t>(width, 0) * 10 + (fmt[i++] - '0');
        if (width > (1 << 24)) fail(PyError::LimitExceeded, "format width too large");
      }
    }
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      prec = 0;
      if (i < fmt.size() && fmt[i] == '*') {
        Value pv = next_arg();
        if (!pv.is_int_like()) fail(PyError::TypeError, "* wants int");
        prec = std::max<std::int64_t>(pv.as_int(), 0);
        ++i;
      } else {
        while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
          prec = prec * 10 + (fmt[i++] - '0');
          if (prec > (1 << 24)) fail(PyError::LimitExceeded, "format precision too large");
        }
      }
    }
    while (i < fmt.size() && (fmt[i] == 'h' || fmt[i] == 'l' || fmt[i] == 'L')) ++i;
    if (i >= fmt.size()) fail(PyError::ValueError, "incomplete format");
    char type = fmt[i++];
    if (type == '%') {
      out.push_back('%');
      continue;
    }
    if (!have_arg) arg = next_arg();
    check_text_size(out.size() + static_cast<std::size_t>(std::max<std::int64_t>(width, 0)));
    bool left = flags.find('-') != std::string::npos;
    switch (type) {
      case 's':
      case 'r':
      case 'a': {
        std::string s = type == 's' ? to_str(arg) : type == 'r' ? repr(arg) : ascii_repr(arg);
        if (escape_args && !(type == 's' && arg.is_str() && arg.is_safe())) s = html_escape(s);
        if (prec >= 0) s = pystr::slice(s, std::nullopt, prec, 1);
        out += pad_text(std::move(s), width, left);
        break;
      }
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X':
        out +=
            format_int_printf(int_for_format(arg, type), type == 'u' || type == 'i' ? 'd' : type, flags, width, prec);
        break;
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G': {
        if (!arg.is_number()) {
          if (arg.is_undefined()) fail_undefined(arg);
          fail(PyError::TypeError, "must be real number, not " + type_name(arg));
        }
        out += format_float_printf(arg.as_float(), type, flags, width, prec);
        break;
      }
      case 'c': {
        std::string ch;
        if (arg.is_int_like()) {
          std::int64_t cp = arg.as_int();
          if (cp < 0 || cp > 0x10FFFF) fail(PyError::OverflowError, "%c arg not in range(0x110000)");
          append_utf8(ch, static_cast<char32_t>(cp));
        } else if (arg.is_str() && cp_count(arg.str()) == 1) {
          ch = std::string(arg.str());
        } else {
          fail(PyError::TypeError, "%c requires int or char");
        }
        out += pad_text(ch, width, left);
        break;
      }
      default: {
        char buf[96];
        std::snprintf(buf, sizeof buf, "unsupported format character '%c' (0x%x) at index %zu", type,
                      static_cast<unsigned>(static_cast<unsigned char>(type)), i - 1);
        (void)spec_start;
        fail(PyError::ValueError, buf);
      }
    }
  }
  if (argidx < arglen && !mapping) fail(PyError::TypeError, "not all arguments converted during string formatting");
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// format() mini-language and str.format

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

// ---------------------------------------------------------------------------------------------------------
// strftime

std::string strftime_date(std::string_view today, std::string_view fmt) {
  int y = 0, m = 0, d = 0;
  if (std::sscanf(std::string(today).c_str(), "%d-%d-%d", &y, &m, &d) != 3)
    fail(PyError::ValueError, "the render date must be YYYY-MM-DD");
  // datetime.strftime: %f, %z and %Z are replaced before time.strftime sees the format.
  std::string f;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '%' && i + 1 < fmt.size()) {
      char c = fmt[i + 1];
      if (c == 'f') {
        f += "000000";
        ++i;
        continue;
      }
      if (c == 'z' || c == 'Z') {
        ++i;
        continue;
      }
      f.push_back('%');
      f.push_back(c);
      ++i;
      continue;
    }
    f.push_back(fmt[i]);
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = m - 1;
  tm.tm_mday = d;
  tm.tm_isdst = -1;
  // Day of week and day of year (proleptic Gregorian).
  auto days_from_civil = [](int yy, int mm, int dd) {
    yy -= mm <= 2;
    const int era = (yy >= 0 ? yy : yy - 399) / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (mm + (mm > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
  };
  int days = days_from_civil(y, m, d);
  tm.tm_wday = ((days % 7) + 11) % 7;  // 1970-01-01 was a Thursday
  tm.tm_yday = days - days_from_civil(y, 1, 1);
  static locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  std::vector<char> buf(256 + f.size() * 64);
  std::size_t n = strftime_l(buf.data(), buf.size(), f.c_str(), &tm, c_locale);
  return std::string(buf.data(), n);
}

}  // namespace openrecipes::rows::template_engine
