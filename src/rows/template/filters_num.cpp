// Jinja2's number filters abs, float, int and round (jinja2/filters.py, 3.1) with Python's int(str, base),
// float(str) and round() semantics (CPython 3.11).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rows/template/failure.h"
#include "rows/template/filters.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"

namespace openrecipes::rows::template_engine {

namespace {

// Python int(str, base) parsing; returns false on ValueError.
bool parse_py_int(std::string_view s, std::int64_t base, std::int64_t& out) {
  std::string_view t = pystr::strip(s, nullptr, true, true);
  bool neg = false;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  if (base == 0 || base == 16 || base == 8 || base == 2) {
    if (t.size() >= 2 && t[0] == '0') {
      char x = static_cast<char>(t[1] | 0x20);
      std::int64_t b = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 0;
      if (b != 0 && (base == 0 || base == b)) {
        base = b;
        t.remove_prefix(2);
        if (!t.empty() && t[0] == '_') t.remove_prefix(1);
      }
    }
    if (base == 0) {
      // base 0: decimal without leading zeros (except "0")
      bool all_zero = !t.empty();
      for (char c : t)
        if (c != '0' && c != '_') all_zero = false;
      if (!t.empty() && t[0] == '0' && !all_zero) return false;
      base = 10;
    }
  }
  if (base < 2 || base > 36) fail(PyError::ValueError, "int() base must be >= 2 and <= 36, or 0");
  if (t.empty()) return false;
  std::int64_t v = 0;
  bool prev_us = true;
  for (char c : t) {
    if (c == '_') {
      if (prev_us) return false;
      prev_us = true;
      continue;
    }
    prev_us = false;
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
      d = (c | 0x20) - 'a' + 10;
    else
      return false;
    if (d >= base) return false;
    std::int64_t nv;
    if (__builtin_mul_overflow(v, base, &nv) || __builtin_add_overflow(nv, d, &nv))
      fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
    v = nv;
  }
  if (prev_us) return false;
  out = neg ? -v : v;
  return true;
}

double py_round_float(double x, std::int64_t ndigits) {
  if (!std::isfinite(x) || x == 0) return x;
  if (ndigits > 330) return x;
  if (ndigits >= 0) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(ndigits), x);
    double r = std::strtod(buf, nullptr);
    if (r == 0) r = std::copysign(0.0, x);
    return r;
  }
  if (ndigits < -330) return std::copysign(0.0, x);
  double p = std::pow(10.0, static_cast<double>(-ndigits));
  double y = x / p;
  double z = std::nearbyint(y);
  return std::copysign(z * p, x);
}

}  // namespace

bool parse_py_float(std::string_view s, double& out) {
  std::string_view t = pystr::strip(s, nullptr, true, true);
  std::string clean;
  bool prev_digit = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '_') {
      bool next_digit = i + 1 < t.size() && t[i + 1] >= '0' && t[i + 1] <= '9';
      if (!prev_digit || !next_digit) return false;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) return false;
    prev_digit = c >= '0' && c <= '9';
    clean.push_back(c);
  }
  if (clean.empty()) return false;
  std::string lower;
  for (char c : clean) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  std::string_view l = lower;
  bool neg = false;
  if (!l.empty() && (l[0] == '+' || l[0] == '-')) {
    neg = l[0] == '-';
    l.remove_prefix(1);
  }
  if (l == "inf" || l == "infinity") {
    out = neg ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (l == "nan") {
    out = neg ? -NAN : NAN;
    return true;
  }
  for (char c : l)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == '+' || c == '-')) return false;
  if (l.empty() || l[0] == '+' || l[0] == '-') return false;
  char* end = nullptr;
  std::string z(l);
  double v = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size()) return false;
  out = neg ? -v : v;
  return true;
}

Value do_abs(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "abs");
  if (value.is_int_like()) {
    std::int64_t v = value.as_int();
    return Value::integer(v < 0 ? -v : v);
  }
  if (value.is(Kind::Float)) return Value::floating(std::fabs(value.as_float()));
  fail(PyError::TypeError, "bad operand type for abs(): '" + type_name(value) + "'");
}

Value do_int(Interp&, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"default", "base"}, p, "do_int");
  const Value* dflt = p[0];
  const Value* base_v = p[1];
  Value d = dflt ? *dflt : Value::integer(0);
  std::int64_t base = 10;
  if (base_v != nullptr) {
    if (!base_v->is_int_like())
      fail(PyError::TypeError, "'" + type_name(*base_v) + "' object cannot be interpreted as an integer");
    base = base_v->as_int();
  }
  if (value.is_undefined()) fail_undefined(value);
  if (value.is_str()) {
    std::int64_t out;
    if (parse_py_int(value.str(), base, out)) return Value::integer(out);
    double f;
    if (parse_py_float(value.str(), f)) {
      if (std::isnan(f)) return d;
      if (std::isinf(f)) fail(PyError::OverflowError, "cannot convert float infinity to integer");
      if (std::fabs(f) >= 9.2e18) fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
      return Value::integer(static_cast<std::int64_t>(f));
    }
    return d;
  }
  if (value.is_int_like()) {
    if (base_v != nullptr) return d;  // int(5, 10): TypeError -> int(float(5)) -> 5? (Python: default path)
    return Value::integer(value.as_int());
  }
  if (value.is(Kind::Float)) {
    double f = value.as_float();
    if (std::isnan(f)) return d;  // ValueError -> int(float(nan)) ValueError -> default
    if (std::isinf(f)) fail(PyError::OverflowError, "cannot convert float infinity to integer");
    if (std::fabs(f) >= 9.2e18) fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
    return Value::integer(static_cast<std::int64_t>(f));
  }
  return d;
}

Value do_float(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {"default"}, p, "do_float");
  const Value* dflt = p[0];
  Value d = dflt ? *dflt : Value::floating(0.0);
  if (value.is_undefined()) fail_undefined(value);
  if (value.is(Kind::Float)) return value;
  if (value.is_int_like()) return Value::floating(static_cast<double>(value.as_int()));
  if (value.is_str()) {
    double f;
    if (parse_py_float(value.str(), f)) return Value::floating(f);
    return d;
  }
  return d;
}

Value do_round(Interp&, const Value& value, Args& a) {
  const Value* arg[2];
  bind_args(a, {"precision", "method"}, arg, "do_round");
  const Value* precision = arg[0];
  const Value* method = arg[1];
  std::string m = method ? to_str(*method) : "common";
  if (m != "common" && m != "ceil" && m != "floor")
    fail(PyError::FilterArgumentError, "method must be common, ceil or floor");
  std::int64_t prec = arg_int(precision, 0, "precision");
  if (m == "common") {
    if (value.is_undefined()) fail(PyError::TypeError, "type Undefined doesn't define __round__ method");
    if (value.is_int_like()) {
      if (prec >= 0) return Value::integer(value.as_int());
      if (prec < -18) return Value::integer(0);
      std::int64_t p = 1;
      for (std::int64_t i = 0; i < -prec; ++i) p *= 10;
      std::int64_t v = value.as_int();
      std::int64_t q = v / p, r = v % p;
      if (r < 0) {
        r += p;
        --q;
      }
      if (2 * r > p || (2 * r == p && (q & 1))) ++q;
      return Value::integer(checked_mul(q, p));
    }
    if (value.is(Kind::Float)) return Value::floating(py_round_float(value.as_float(), prec));
    fail(PyError::TypeError, "type " + type_name(value) + " doesn't define __round__ method");
  }
  if (value.is_undefined()) fail_undefined(value);
  if (!value.is_number()) fail(PyError::TypeError, "must be real number, not " + type_name(value));
  double scale = std::pow(10.0, static_cast<double>(prec));
  double v = value.as_float() * scale;
  double r = m == "ceil" ? std::ceil(v) : std::floor(v);
  return Value::floating(r / scale);
}

}  // namespace openrecipes::rows::template_engine
