// Python value semantics for the template engine: str()/repr() (float repr, string escapes, container
// printing), truthiness, equality and ordering across int/float/bool, containment, arithmetic (CPython 3.11).
#include "rows/template/pyops.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "rows/template/failure.h"
#include "rows/template/objects.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

std::string type_name(const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      return "Undefined";
    case Kind::None:
      return "NoneType";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Str:
      return v.is_safe() ? "Markup" : "str";
    case Kind::List:
      switch (v.list().flavor) {
        case ListFlavor::Range:
          return "range";
        case ListFlavor::DictKeys:
          return "dict_keys";
        case ListFlavor::DictValues:
          return "dict_values";
        case ListFlavor::DictItems:
          return "dict_items";
        default:
          return "list";
      }
    case Kind::Tuple:
      return "tuple";
    case Kind::Dict:
      return "dict";
    case Kind::Namespace:
      return "Namespace";
    case Kind::Macro:
      return "Macro";
    case Kind::Loop:
      return "LoopContext";
    case Kind::Iterator:
      return static_cast<IterObj*>(v.obj())->py_type;
    case Kind::Method:
      return "builtin_function_or_method";
    case Kind::Builtin:
      return "builtin_function_or_method";
    case Kind::Cycler:
      return "Cycler";
    case Kind::Joiner:
      return "Joiner";
  }
  return "object";
}

std::string object_type_repr(const Value& v) {
  switch (v.kind()) {
    case Kind::None:
      return "None";
    case Kind::Str:
      return v.is_safe() ? "markupsafe.Markup object" : "str object";
    case Kind::Namespace:
      return "jinja2.utils.Namespace object";
    case Kind::Macro:
      return "jinja2.runtime.Macro object";
    case Kind::Loop:
      return "jinja2.runtime.LoopContext object";
    case Kind::Cycler:
      return "jinja2.utils.Cycler object";
    case Kind::Joiner:
      return "jinja2.utils.Joiner object";
    case Kind::Missing:
    case Kind::Undefined:
      return "jinja2.runtime.Undefined object";
    default:
      return type_name(v) + " object";
  }
}

bool truthy(const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
    case Kind::None:
      return false;
    case Kind::Bool:
      return v.as_bool();
    case Kind::Int:
      return v.as_int() != 0;
    case Kind::Float:
      return v.as_float() != 0.0;
    case Kind::Str:
      return !v.str().empty();
    case Kind::List:
    case Kind::Tuple:
      return !v.list().items.empty();
    case Kind::Dict:
      return !v.dict().items.empty();
    case Kind::Loop: {
      auto& l = *static_cast<LoopObj*>(v.obj());
      return loop_length(nullptr, l) != 0;
    }
    default:
      return true;
  }
}

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits.push_back(c);
  int exp = 0;
  std::string_view es = sci.substr(e + 1);
  bool eneg = es[0] == '-';
  if (es[0] == '+' || es[0] == '-') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), exp);
  if (eneg) exp = -exp;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int decpt = exp + 1;
  std::string out = neg ? "-" : "";
  int nd = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-decpt), '0');
      out += digits;
    } else if (decpt >= nd) {
      out += digits;
      out.append(static_cast<std::size_t>(decpt - nd), '0');
      out += ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(decpt));
      out += ".";
      out += digits.substr(static_cast<std::size_t>(decpt));
    }
  } else {
    out += digits[0];
    if (nd > 1) {
      out += ".";
      out += digits.substr(1);
    }
    int x = decpt - 1;
    out += x < 0 ? "e-" : "e+";
    int ax = x < 0 ? -x : x;
    if (ax < 10) out += "0";
    out += std::to_string(ax);
  }
  return out;
}

void append_str_repr(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  out.push_back(quote);
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    char32_t c = next_cp(s, i);
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(c));
      out += b;
    } else if (c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else if (py_isprintable(c)) {
      out.append(s.substr(start, i - start));
    } else {
      char b[16];
      if (c <= 0xFF)
        std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(c));
      else if (c <= 0xFFFF)
        std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(c));
      else
        std::snprintf(b, sizeof b, "\\U%08x", static_cast<unsigned>(c));
      out += b;
    }
  }
  out.push_back(quote);
}

namespace {

[[noreturn]] void fail_unprintable(const Value& v) {
  fail(PyError::Unsupported, "printing a " + type_name(v) +
                                 " object shows a memory address in Python, which is not reproducible; convert it "
                                 "first (e.g. |list or |join)");
}

void append_seq_repr(std::string& out, const Value& v) {
  const ListObj& l = v.list();
  if (l.flavor == ListFlavor::DictKeys || l.flavor == ListFlavor::DictValues || l.flavor == ListFlavor::DictItems) {
    out += type_name(v) + "([";
    for (std::size_t i = 0; i < l.items.size(); ++i) {
      if (i) out += ", ";
      append_repr(out, l.items[i]);
      check_text_size(out.size());
    }
    out += "])";
    return;
  }
  if (l.flavor == ListFlavor::Range) {
    out += "range(" + std::to_string(l.range_start) + ", " + std::to_string(l.range_stop);
    if (l.range_step != 1) out += ", " + std::to_string(l.range_step);
    out += ")";
    return;
  }
  bool tuple = v.is(Kind::Tuple);
  out.push_back(tuple ? '(' : '[');
  for (std::size_t i = 0; i < l.items.size(); ++i) {
    if (i) out += ", ";
    append_repr(out, l.items[i]);
    check_text_size(out.size());
  }
  if (tuple && l.items.size() == 1) out.push_back(',');
  out.push_back(tuple ? ')' : ']');
}

void append_dict_repr(std::string& out, const DictObj& d) {
  out.push_back('{');
  for (std::size_t i = 0; i < d.items.size(); ++i) {
    if (i) out += ", ";
    append_repr(out, d.items[i].first);
    out += ": ";
    append_repr(out, d.items[i].second);
    check_text_size(out.size());
  }
  out.push_back('}');
}

}  // namespace

namespace {
thread_local std::uint32_t tl_repr_depth = 0;
struct ReprDepth {
  ReprDepth() {
    if (++tl_repr_depth > kMaxValueDepth + 16)
      fail(PyError::LimitExceeded, "printing values nested deeper than " + std::to_string(kMaxValueDepth) + " levels");
  }
  ~ReprDepth() { --tl_repr_depth; }
};
}  // namespace

void append_repr(std::string& out, const Value& v) {
  ReprDepth guard;
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      out += "Undefined";
      return;
    case Kind::None:
      out += "None";
      return;
    case Kind::Bool:
      out += v.as_bool() ? "True" : "False";
      return;
    case Kind::Int:
      out += std::to_string(v.as_int());
      return;
    case Kind::Float:
      out += float_repr(v.as_float());
      return;
    case Kind::Str:
      if (v.is_safe()) {
        out += "Markup(";
        append_str_repr(out, v.str());
        out += ")";
      } else {
        append_str_repr(out, v.str());
      }
      return;
    case Kind::List:
    case Kind::Tuple:
      append_seq_repr(out, v);
      return;
    case Kind::Dict:
      append_dict_repr(out, v.dict());
      return;
    case Kind::Namespace: {
      out += "<Namespace {";
      const auto& attrs = v.ns().attrs;
      for (std::size_t i = 0; i < attrs.size(); ++i) {
        if (i) out += ", ";
        append_str_repr(out, attrs[i].first);
        out += ": ";
        append_repr(out, attrs[i].second);
      }
      out += "}>";
      return;
    }
    case Kind::Macro: {
      auto* m = static_cast<MacroObj*>(v.obj());
      out += "<Macro ";
      if (m->is_caller) {
        out += "anonymous";
      } else {
        append_str_repr(out, m->def->name);
      }
      out += ">";
      return;
    }
    case Kind::Loop: {
      auto& l = *static_cast<LoopObj*>(v.obj());
      out += "<LoopContext " + std::to_string(l.index0 + 1) + "/" + std::to_string(loop_length(nullptr, l)) + ">";
      return;
    }
    case Kind::Builtin:
    default:
      fail_unprintable(v);
  }
}

std::string repr(const Value& v) {
  std::string s;
  append_repr(s, v);
  return s;
}

void append_str(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      return;
    case Kind::Str:
      out.append(v.str());
      return;
    default:
      append_repr(out, v);
  }
}

std::string to_str(const Value& v) {
  if (v.is_str()) return std::string(v.str());
  std::string s;
  append_str(s, v);
  return s;
}

namespace {

// Exact comparison of an int with a float (CPython float_richcompare): -1, 0, 1, or 2 for NaN.
int cmp_int_float(std::int64_t a, double b) {
  if (std::isnan(b)) return 2;
  if (b >= 9223372036854775808.0) return -1;
  if (b < -9223372036854775808.0) return 1;
  double fl = std::floor(b);
  auto bi = static_cast<std::int64_t>(fl);
  if (a < bi) return -1;
  if (a > bi) return 1;
  return fl == b ? 0 : -1;  // a == floor(b) < b
}

int cmp_numbers(const Value& a, const Value& b) {
  if (a.is(Kind::Float) && b.is(Kind::Float)) {
    double x = a.as_float(), y = b.as_float();
    if (std::isnan(x) || std::isnan(y)) return 2;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is(Kind::Float)) {
    int c = cmp_int_float(b.as_int(), a.as_float());
    return c == 2 ? 2 : -c;
  }
  if (b.is(Kind::Float)) return cmp_int_float(a.as_int(), b.as_float());
  std::int64_t x = a.as_int(), y = b.as_int();
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace

bool py_eq(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return cmp_numbers(a, b) == 0;
  if (a.is_undefined() || b.is_undefined()) return a.is_undefined() && b.is_undefined();
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::None:
      return true;
    case Kind::Str:
      return a.str() == b.str();
    case Kind::List:
    case Kind::Tuple: {
      const auto& x = a.list();
      const auto& y = b.list();
      if (&x == &y) return true;
      if (x.flavor != y.flavor && !(x.plain() && y.plain())) return false;
      if (x.items.size() != y.items.size()) return false;
      for (std::size_t i = 0; i < x.items.size(); ++i)
        if (!py_eq(x.items[i], y.items[i])) return false;
      return true;
    }
    case Kind::Dict: {
      const auto& x = a.dict();
      const auto& y = b.dict();
      if (&x == &y) return true;
      if (x.items.size() != y.items.size()) return false;
      for (const auto& kv : x.items) {
        std::ptrdiff_t j = y.find(kv.first);
        if (j < 0 || !py_eq(kv.second, y.items[static_cast<std::size_t>(j)].second)) return false;
      }
      return true;
    }
    case Kind::Builtin:
      return a.builtin_id() == b.builtin_id();
    default:
      return a.obj() == b.obj();
  }
}

bool py_order(const Value& a, const Value& b, CmpOp op) {
  if (a.is_undefined()) fail_undefined(a);
  if (b.is_undefined()) fail_undefined(b);
  int c = 0;
  if (a.is_number() && b.is_number()) {
    c = cmp_numbers(a, b);
    if (c == 2) return false;
  } else if (a.is_str() && b.is_str()) {
    int r = a.str().compare(b.str());
    c = r < 0 ? -1 : r > 0 ? 1 : 0;
  } else if ((a.is(Kind::List) && b.is(Kind::List) && a.list().plain() && b.list().plain()) ||
             (a.is(Kind::Tuple) && b.is(Kind::Tuple))) {
    const auto& x = a.list().items;
    const auto& y = b.list().items;
    std::size_t n = std::min(x.size(), y.size());
    std::size_t i = 0;
    while (i < n && py_eq(x[i], y[i])) ++i;
    if (i < n) return py_order(x[i], y[i], op);
    c = x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  } else {
    const char* sym = op == CmpOp::Lt ? "<" : op == CmpOp::LtEq ? "<=" : op == CmpOp::Gt ? ">" : ">=";
    fail(PyError::TypeError, std::string("'") + sym + "' not supported between instances of '" + type_name(a) +
                                 "' and '" + type_name(b) + "'");
  }
  switch (op) {
    case CmpOp::Lt:
      return c < 0;
    case CmpOp::LtEq:
      return c <= 0;
    case CmpOp::Gt:
      return c > 0;
    case CmpOp::GtEq:
      return c >= 0;
    default:
      return false;
  }
}

bool is_hashable(const Value& v) {
  switch (v.kind()) {
    case Kind::Dict:
      return false;
    case Kind::List:
      return v.list().flavor == ListFlavor::Range;
    case Kind::Tuple:
      for (const auto& x : v.list().items)
        if (!is_hashable(x)) return false;
      return true;
    default:
      return true;
  }
}

bool py_contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      return false;  // iterates an empty sequence
    case Kind::Str:
      if (!item.is_str())
        fail(PyError::TypeError, "'in <string>' requires string as left operand, not " + type_name(item));
      return container.str().find(item.str()) != std::string_view::npos;
    case Kind::List:
    case Kind::Tuple:
      if (container.list().flavor == ListFlavor::DictKeys && !is_hashable(item))
        fail(PyError::TypeError, "unhashable type: '" + type_name(item) + "'");
      for (const auto& x : container.list().items)
        if (py_eq(x, item)) return true;
      return false;
    case Kind::Dict:
      if (!is_hashable(item)) fail(PyError::TypeError, "unhashable type: '" + type_name(item) + "'");
      return container.dict().find(item) >= 0;
    case Kind::Namespace:
    case Kind::Macro:
    case Kind::Method:
    case Kind::Builtin:
    case Kind::Cycler:
    case Kind::Joiner:
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::Float:
      fail(PyError::TypeError, "argument of type '" + type_name(container) + "' is not iterable");
    default:
      fail(PyError::Unsupported, "'in' on a " + type_name(container) + " is not supported");
  }
}

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

bool has_len(const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
    case Kind::Str:
    case Kind::List:
    case Kind::Tuple:
    case Kind::Dict:
    case Kind::Loop:
      return true;
    default:
      return false;
  }
}

std::size_t py_len(const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      return 0;
    case Kind::Str:
      return cp_count(v.str());
    case Kind::List:
    case Kind::Tuple:
      return v.list().items.size();
    case Kind::Dict:
      return v.dict().items.size();
    case Kind::Loop:
      return static_cast<std::size_t>(loop_length(nullptr, *static_cast<LoopObj*>(v.obj())));
    default:
      fail(PyError::TypeError, "object of type '" + type_name(v) + "' has no len()");
  }
}

void fail_undefined(const Value& v) {
  fail(v.undefined_is_security() ? PyError::SecurityError : PyError::UndefinedError, v.undefined_message());
}

std::string html_escape(std::string_view s) {
  check_text_size(s.size() * 6);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::ptrdiff_t DictObj::find(const Value& k) const {
  if (k.is_str()) return find_str(k.str());
  for (std::size_t i = 0; i < items.size(); ++i)
    if (py_eq(items[i].first, k)) return static_cast<std::ptrdiff_t>(i);
  return -1;
}

void DictObj::set(Value k, Value v) {
  std::uint32_t d = std::max(value_depth(k), value_depth(v)) + 1;
  check_value_depth(d);
  depth = std::max(depth, d);
  std::ptrdiff_t i = find(k);
  if (i >= 0) {
    items[static_cast<std::size_t>(i)].second = std::move(v);
    return;
  }
  charge_alloc(2 * sizeof(Value));
  items.emplace_back(std::move(k), std::move(v));
}

}  // namespace openrecipes::rows::template_engine
