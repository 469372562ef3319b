// printf-style `str % args` (CPython 3.11 Objects/unicodeobject.c PyUnicode_Format: %s %r %a %d %i %u %o %x
// %X %e %f %g %c with flags, width and precision, %(name)s mappings) and ascii().
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "rows/template/failure.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

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
    append_unicode_escape(out, c);
  }
  return out;
}

namespace {

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

// One %-conversion of `arg` (the `type` character at `index` of the format, with its flags, width and precision).
std::string convert_arg(char type, const Value& arg, const std::string& flags, std::int64_t width, std::int64_t prec,
                        bool escape_args, std::size_t index) {
  bool left = flags.find('-') != std::string::npos;
  switch (type) {
    case 's':
    case 'r':
    case 'a': {
      std::string s = type == 's' ? to_str(arg) : type == 'r' ? repr(arg) : ascii_repr(arg);
      if (escape_args && !(type == 's' && arg.is_str() && arg.is_safe())) s = html_escape(s);
      if (prec >= 0) s = pystr::slice(s, std::nullopt, prec, 1);
      return pad_text(std::move(s), width, left);
    }
    case 'd':
    case 'i':
    case 'u':
    case 'o':
    case 'x':
    case 'X':
      return format_int_printf(int_for_format(arg, type), type == 'u' || type == 'i' ? 'd' : type, flags, width, prec);
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
      return format_float_printf(arg.as_float(), type, flags, width, prec);
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
      return pad_text(ch, width, left);
    }
    default: {
      char buf[96];
      std::snprintf(buf, sizeof buf, "unsupported format character '%c' (0x%x) at index %zu", type,
                    static_cast<unsigned>(static_cast<unsigned char>(type)), index);
      fail(PyError::ValueError, buf);
    }
  }
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
    out += convert_arg(type, arg, flags, width, prec, escape_args, i - 1);
  }
  if (argidx < arglen && !mapping) fail(PyError::TypeError, "not all arguments converted during string formatting");
  return out;
}

}  // namespace openrecipes::rows::template_engine
