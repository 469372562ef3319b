// Jinja2's builtin tests (`x is defined`, `x is string`, ...; jinja2/tests.py, 3.1) over the engine's values.
#include <string>
#include <unordered_map>

#include "rows/template/builtin_ids.h"
#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/resolve.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

const char* const kTestNames[] = {
    "odd",     "even",   "divisibleby", "defined",  "undefined", "filter", "test",    "none",
    "boolean", "false",  "true",        "integer",  "float",     "lower",  "upper",   "string",
    "mapping", "number", "sequence",    "iterable", "callable",  "sameas", "escaped", "in",
    "==",      "eq",     "equalto",     "!=",       "ne",        ">",      "gt",      "greaterthan",
    "ge",      ">=",     "<",           "lt",       "lessthan",  "<=",     "le",
};
static_assert(sizeof(kTestNames) / sizeof(kTestNames[0]) == t_count_of_tests, "test table");

// Python `a % b` including str % args.
Value py_mod(const Value& a, const Value& b) {
  if (a.is_str()) return Value::string(percent_format(a.str(), b));
  return py_binary(BinOp::Mod, a, b);
}

bool is_sequence(const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
    case Kind::Str:
    case Kind::Tuple:
    case Kind::Dict:
      return true;
    case Kind::List: {
      auto f = v.list().flavor;
      return f != ListFlavor::DictKeys && f != ListFlavor::DictValues && f != ListFlavor::DictItems;
    }
    default:
      return false;
  }
}

bool is_iterable(const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
    case Kind::Str:
    case Kind::List:
    case Kind::Tuple:
    case Kind::Dict:
    case Kind::Iterator:
    case Kind::Loop:
      return true;
    default:
      return false;
  }
}

bool is_callable(const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
    case Kind::Macro:
    case Kind::Builtin:
    case Kind::Method:
    case Kind::Joiner:
    case Kind::Loop:
      return true;
    default:
      return false;
  }
}

bool same_as(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::None:
      return true;
    case Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Kind::Int:
      return a.as_int() == b.as_int() && a.as_int() >= -5 && a.as_int() <= 256;  // CPython small ints
    case Kind::Float:
      return false;
    case Kind::Str:
      return a.str().data() == b.str().data() && a.str().size() == b.str().size();
    case Kind::Builtin:
      return a.builtin_id() == b.builtin_id();
    case Kind::Missing:
    case Kind::Undefined:
      return false;
    default:
      return a.obj() == b.obj();
  }
}

}  // namespace

int test_id(const std::string& name) {
  static const std::unordered_map<std::string, int> table = [] {
    std::unordered_map<std::string, int> t;
    for (int i = 0; i < t_count_of_tests; ++i) t.emplace(kTestNames[i], i);
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? -1 : it->second;
}

bool apply_test(Interp& in, int id, const Value& v, Args& a) {
  const Value* p[1];
  const char* fn = kTestNames[id];
  auto none_args = [&] { bind_args(a, {}, p, fn); };
  auto one_arg = [&](const char* name) -> const Value& {
    bind_args(a, {name}, p, fn, 1);
    return *p[0];
  };
  switch (id) {
    case t_odd:
      none_args();
      return py_eq(py_mod(v, Value::integer(2)), Value::integer(1));
    case t_even:
      none_args();
      return py_eq(py_mod(v, Value::integer(2)), Value::integer(0));
    case t_divisibleby: {
      const Value& n = one_arg("num");
      return py_eq(py_mod(v, n), Value::integer(0));
    }
    case t_defined:
      none_args();
      return !v.is_undefined();
    case t_undefined:
      none_args();
      return v.is_undefined();
    case t_filter:
      none_args();
      return v.is_str() && filter_id(std::string(v.str())) >= 0;
    case t_test:
      none_args();
      return v.is_str() && test_id(std::string(v.str())) >= 0;
    case t_none:
      none_args();
      return v.is(Kind::None);
    case t_boolean:
      none_args();
      return v.is(Kind::Bool);
    case t_false:
      none_args();
      return v.is(Kind::Bool) && !v.as_bool();
    case t_true:
      none_args();
      return v.is(Kind::Bool) && v.as_bool();
    case t_integer:
      none_args();
      return v.is(Kind::Int);
    case t_float:
      none_args();
      return v.is(Kind::Float);
    case t_lower:
      none_args();
      in.work(to_str(v).size());
      return py_islower(to_str(v));
    case t_upper:
      none_args();
      in.work(to_str(v).size());
      return py_isupper(to_str(v));
    case t_string:
      none_args();
      return v.is_str();
    case t_mapping:
      none_args();
      return v.is(Kind::Dict);
    case t_number:
      none_args();
      return v.is_number();
    case t_sequence:
      none_args();
      return is_sequence(v);
    case t_iterable:
      none_args();
      return is_iterable(v);
    case t_callable:
      none_args();
      return is_callable(v);
    case t_sameas:
      return same_as(v, one_arg("other"));
    case t_escaped:
      none_args();
      return v.is_str() && v.is_safe();
    case t_in: {
      const Value& seq = one_arg("seq");
      if (seq.is(Kind::Iterator)) {
        Cursor c = in.iter(seq);
        Value item;
        while (in.next(c, item))
          if (py_eq(item, v)) return true;
        return false;
      }
      return py_contains(seq, v);
    }
    case t_eq_sym:
    case t_eq:
    case t_equalto:
      return py_eq(v, one_arg("b"));
    case t_ne_sym:
    case t_ne:
      return !py_eq(v, one_arg("b"));
    case t_gt_sym:
    case t_gt:
    case t_greaterthan:
      return py_order(v, one_arg("b"), CmpOp::Gt);
    case t_ge:
    case t_ge_sym:
      return py_order(v, one_arg("b"), CmpOp::GtEq);
    case t_lt_sym:
    case t_lt:
    case t_lessthan:
      return py_order(v, one_arg("b"), CmpOp::Lt);
    case t_le_sym:
    case t_le:
      return py_order(v, one_arg("b"), CmpOp::LtEq);
    default:
      break;
  }
  fail(PyError::RuntimeError, "internal error: unknown test id");
}

}  // namespace openrecipes::rows::template_engine
