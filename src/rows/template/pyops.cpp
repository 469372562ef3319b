// Python value semantics for the template engine: type names, truthiness, equality and ordering across
// int/float/bool, containment, len() (CPython 3.11 Objects/object.c, abstract.c); str()/repr() are in pyrepr.cpp and
// arithmetic in pyarith.cpp.
#include "rows/template/pyops.h"

#include <cmath>
#include <cstring>
#include <string>

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
