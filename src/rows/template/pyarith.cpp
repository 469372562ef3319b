// Python's arithmetic on the engine's values (CPython 3.11 Objects/abstract.c binary ops over longobject.c,
// floatobject.c, unicodeobject.c and listobject.c: + - * / // % ** with Python's TypeErrors, unary -/+), in
// checked 64-bit integers.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "rows/template/failure.h"
#include "rows/template/objects.h"
#include "rows/template/pyops.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits (Python would use a big integer)");
  return r;
}
std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits (Python would use a big integer)");
  return r;
}

namespace {

const char* op_symbol(BinOp op) {
  switch (op) {
    case BinOp::Add:
      return "+";
    case BinOp::Sub:
      return "-";
    case BinOp::Mul:
      return "*";
    case BinOp::Div:
      return "/";
    case BinOp::FloorDiv:
      return "//";
    case BinOp::Mod:
      return "%";
    case BinOp::Pow:
      return "** or pow()";
  }
  return "?";
}

[[noreturn]] void fail_operands(BinOp op, const Value& a, const Value& b) {
  fail(PyError::TypeError, std::string("unsupported operand type(s) for ") + op_symbol(op) + ": '" + type_name(a) +
                               "' and '" + type_name(b) + "'");
}

Value repeat_seq(const Value& seq, std::int64_t n) {
  if (seq.is_str()) {
    std::string_view s = seq.str();
    if (n <= 0 || s.empty()) return Value::borrowed(std::string_view());
    if (static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 40) / s.size())
      fail(PyError::LimitExceeded, "string repetition of " + std::to_string(s.size()) + " bytes x " +
                                       std::to_string(n) + " exceeds max_alloc_bytes");
    std::size_t total = s.size() * static_cast<std::size_t>(n);
    StrObj* o = StrObj::create(total);
    for (std::int64_t k = 0; k < n; ++k)
      std::memcpy(o->data() + static_cast<std::size_t>(k) * s.size(), s.data(), s.size());
    return Value::from_strobj(o, seq.is_safe());
  }
  const auto& items = seq.list().items;
  std::vector<Value> out;
  if (n > 0 && !items.empty()) {
    if (static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 36) / items.size())
      fail(PyError::LimitExceeded, "list repetition exceeds max_alloc_bytes");
    charge_alloc(items.size() * static_cast<std::size_t>(n) * sizeof(Value));
    out.reserve(items.size() * static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) out.insert(out.end(), items.begin(), items.end());
  }
  return seq.is(Kind::Tuple) ? Value::new_tuple(std::move(out)) : Value::new_list(std::move(out));
}

Value int_pow(std::int64_t base, std::int64_t exp) {
  if (exp < 0) {
    if (base == 0) fail(PyError::ZeroDivisionError, "0.0 cannot be raised to a negative power");
    return Value::floating(std::pow(static_cast<double>(base), static_cast<double>(exp)));
  }
  std::int64_t result = 1, b = base;
  while (exp > 0) {
    if (exp & 1) result = checked_mul(result, b);
    exp >>= 1;
    if (exp > 0) b = checked_mul(b, b);
  }
  return Value::integer(result);
}

Value float_pow(double x, double y) {
  if (x == 0 && y < 0) fail(PyError::ZeroDivisionError, "0.0 cannot be raised to a negative power");
  if (x < 0 && std::isfinite(x) && std::isfinite(y) && y != std::floor(y))
    fail(PyError::Unsupported, "a negative number raised to a fractional power is complex in Python; not supported");
  return Value::floating(std::pow(x, y));
}

}  // namespace

Value py_binary(BinOp op, const Value& a, const Value& b) {
  if (a.is_undefined()) fail_undefined(a);
  if (b.is_undefined()) fail_undefined(b);
  const bool ints = a.is_int_like() && b.is_int_like();
  const bool nums = a.is_number() && b.is_number();
  switch (op) {
    case BinOp::Add:
      if (ints) return Value::integer(checked_add(a.as_int(), b.as_int()));
      if (nums) return Value::floating(a.as_float() + b.as_float());
      if (a.is_str() && b.is_str()) {
        std::string_view x = a.str(), y = b.str();
        bool safe = a.is_safe() || b.is_safe();
        std::string ex, ey;
        if (safe && !a.is_safe()) {
          ex = html_escape(x);
          x = ex;
        }
        if (safe && !b.is_safe()) {
          ey = html_escape(y);
          y = ey;
        }
        StrObj* o = StrObj::create(x.size() + y.size());
        std::memcpy(o->data(), x.data(), x.size());
        std::memcpy(o->data() + x.size(), y.data(), y.size());
        return Value::from_strobj(o, safe);
      }
      if ((a.is(Kind::List) && b.is(Kind::List) && a.list().plain() && b.list().plain()) ||
          (a.is(Kind::Tuple) && b.is(Kind::Tuple))) {
        std::vector<Value> items;
        items.reserve(a.list().items.size() + b.list().items.size());
        items.insert(items.end(), a.list().items.begin(), a.list().items.end());
        items.insert(items.end(), b.list().items.begin(), b.list().items.end());
        return a.is(Kind::Tuple) ? Value::new_tuple(std::move(items)) : Value::new_list(std::move(items));
      }
      if (a.is_str()) fail(PyError::TypeError, "can only concatenate str (not \"" + type_name(b) + "\") to str");
      if (a.is(Kind::List) && a.list().plain())
        fail(PyError::TypeError, "can only concatenate list (not \"" + type_name(b) + "\") to list");
      if (a.is(Kind::Tuple))
        fail(PyError::TypeError, "can only concatenate tuple (not \"" + type_name(b) + "\") to tuple");
      fail_operands(op, a, b);
    case BinOp::Sub:
      if (ints) {
        std::int64_t r;
        if (__builtin_sub_overflow(a.as_int(), b.as_int(), &r))
          fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
        return Value::integer(r);
      }
      if (nums) return Value::floating(a.as_float() - b.as_float());
      fail_operands(op, a, b);
    case BinOp::Mul:
      if (ints) return Value::integer(checked_mul(a.as_int(), b.as_int()));
      if (nums) return Value::floating(a.as_float() * b.as_float());
      if ((a.is_str() || a.is(Kind::Tuple) || (a.is(Kind::List) && a.list().plain())) && b.is_int_like())
        return repeat_seq(a, b.as_int());
      if ((b.is_str() || b.is(Kind::Tuple) || (b.is(Kind::List) && b.list().plain())) && a.is_int_like())
        return repeat_seq(b, a.as_int());
      if (a.is_str() || a.is_seq() || b.is_str() || b.is_seq()) {
        const Value& other = (a.is_str() || a.is_seq()) ? b : a;
        if (other.is_str() || other.is_seq() || other.is(Kind::Float) || other.is(Kind::None) || other.is(Kind::Dict))
          fail(PyError::TypeError, "can't multiply sequence by non-int of type '" + type_name(other) + "'");
      }
      fail_operands(op, a, b);
    case BinOp::Div:
      if (nums) {
        if (b.as_float() == 0.0 && !(b.is(Kind::Float) && std::isnan(b.as_float())))
          fail(PyError::ZeroDivisionError, ints ? "division by zero" : "float division by zero");
        return Value::floating(a.as_float() / b.as_float());
      }
      fail_operands(op, a, b);
    case BinOp::FloorDiv:
      if (ints) {
        std::int64_t x = a.as_int(), y = b.as_int();
        if (y == 0) fail(PyError::ZeroDivisionError, "integer division or modulo by zero");
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1)
          fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
        std::int64_t q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        return Value::integer(q);
      }
      if (nums) {
        double vx = a.as_float(), wx = b.as_float();
        if (wx == 0) fail(PyError::ZeroDivisionError, "float floor division by zero");
        double mod = std::fmod(vx, wx);
        double div = (vx - mod) / wx;
        if (mod != 0) {
          if ((wx < 0) != (mod < 0)) div -= 1.0;
        }
        double floordiv;
        if (div != 0) {
          floordiv = std::floor(div);
          if (div - floordiv > 0.5) floordiv += 1.0;
        } else {
          floordiv = std::copysign(0.0, vx / wx);
        }
        return Value::floating(floordiv);
      }
      fail_operands(op, a, b);
    case BinOp::Mod:
      if (ints) {
        std::int64_t x = a.as_int(), y = b.as_int();
        if (y == 0) fail(PyError::ZeroDivisionError, "integer modulo by zero");
        if (y == -1) return Value::integer(0);
        std::int64_t r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return Value::integer(r);
      }
      if (nums) {
        double vx = a.as_float(), wx = b.as_float();
        if (wx == 0) fail(PyError::ZeroDivisionError, "float modulo");
        double mod = std::fmod(vx, wx);
        if (mod != 0) {
          if ((wx < 0) != (mod < 0)) mod += wx;
        } else {
          mod = std::copysign(0.0, wx);
        }
        return Value::floating(mod);
      }
      fail_operands(op, a, b);
    case BinOp::Pow:
      if (ints) return int_pow(a.as_int(), b.as_int());
      if (nums) return float_pow(a.as_float(), b.as_float());
      fail_operands(op, a, b);
  }
  fail_operands(op, a, b);
}

Value py_negate(const Value& v, bool negative) {
  if (v.is_undefined()) fail_undefined(v);
  if (v.is_int_like()) {
    if (!negative) return Value::integer(v.as_int());
    if (v.as_int() == std::numeric_limits<std::int64_t>::min())
      fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
    return Value::integer(-v.as_int());
  }
  if (v.is(Kind::Float)) return Value::floating(negative ? -v.as_float() : v.as_float());
  fail(PyError::TypeError,
       std::string("bad operand type for unary ") + (negative ? "-" : "+") + ": '" + type_name(v) + "'");
}

}  // namespace openrecipes::rows::template_engine
