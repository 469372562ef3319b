// Jinja2's builtin tests (`x is defined`, `x is string`, ...; jinja2/tests.py TESTS, 3.1) over the engine's
// values: one `test_<name>` function per test, registered by TestId like Jinja2's TESTS dict.
#include <array>
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

/// A test: `v is name(*args)`.
using TestFn = bool (*)(Interp& in, const Value& v, Args& args);

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

void no_args(Args& a, TestId id) {
  const Value* p[1];
  bind_args(a, {}, p, kTestNames[id]);
}

const Value& one_arg(Args& a, TestId id, const char* name) {
  const Value* p[1];
  bind_args(a, {name}, p, kTestNames[id], 1);
  return *p[0];
}

bool test_odd(Interp&, const Value& v, Args& a) {
  no_args(a, t_odd);
  return py_eq(py_mod(v, Value::integer(2)), Value::integer(1));
}

bool test_even(Interp&, const Value& v, Args& a) {
  no_args(a, t_even);
  return py_eq(py_mod(v, Value::integer(2)), Value::integer(0));
}

bool test_divisibleby(Interp&, const Value& v, Args& a) {
  const Value& n = one_arg(a, t_divisibleby, "num");
  return py_eq(py_mod(v, n), Value::integer(0));
}

bool test_defined(Interp&, const Value& v, Args& a) {
  no_args(a, t_defined);
  return !v.is_undefined();
}

bool test_undefined(Interp&, const Value& v, Args& a) {
  no_args(a, t_undefined);
  return v.is_undefined();
}

bool test_filter(Interp&, const Value& v, Args& a) {
  no_args(a, t_filter);
  return v.is_str() && filter_id(std::string(v.str())) >= 0;
}

bool test_test(Interp&, const Value& v, Args& a) {
  no_args(a, t_test);
  return v.is_str() && test_id(std::string(v.str())) >= 0;
}

bool test_none(Interp&, const Value& v, Args& a) {
  no_args(a, t_none);
  return v.is(Kind::None);
}

bool test_boolean(Interp&, const Value& v, Args& a) {
  no_args(a, t_boolean);
  return v.is(Kind::Bool);
}

bool test_false(Interp&, const Value& v, Args& a) {
  no_args(a, t_false);
  return v.is(Kind::Bool) && !v.as_bool();
}

bool test_true(Interp&, const Value& v, Args& a) {
  no_args(a, t_true);
  return v.is(Kind::Bool) && v.as_bool();
}

bool test_integer(Interp&, const Value& v, Args& a) {
  no_args(a, t_integer);
  return v.is(Kind::Int);
}

bool test_float(Interp&, const Value& v, Args& a) {
  no_args(a, t_float);
  return v.is(Kind::Float);
}

bool test_lower(Interp& in, const Value& v, Args& a) {
  no_args(a, t_lower);
  in.work(to_str(v).size());
  return py_islower(to_str(v));
}

bool test_upper(Interp& in, const Value& v, Args& a) {
  no_args(a, t_upper);
  in.work(to_str(v).size());
  return py_isupper(to_str(v));
}

bool test_string(Interp&, const Value& v, Args& a) {
  no_args(a, t_string);
  return v.is_str();
}

bool test_mapping(Interp&, const Value& v, Args& a) {
  no_args(a, t_mapping);
  return v.is(Kind::Dict);
}

bool test_number(Interp&, const Value& v, Args& a) {
  no_args(a, t_number);
  return v.is_number();
}

bool test_sequence(Interp&, const Value& v, Args& a) {
  no_args(a, t_sequence);
  return is_sequence(v);
}

bool test_iterable(Interp&, const Value& v, Args& a) {
  no_args(a, t_iterable);
  return is_iterable(v);
}

bool test_callable(Interp&, const Value& v, Args& a) {
  no_args(a, t_callable);
  return is_callable(v);
}

bool test_sameas(Interp&, const Value& v, Args& a) { return same_as(v, one_arg(a, t_sameas, "other")); }

bool test_escaped(Interp&, const Value& v, Args& a) {
  no_args(a, t_escaped);
  return v.is_str() && v.is_safe();
}

bool test_in(Interp& in, const Value& v, Args& a) {
  const Value& seq = one_arg(a, t_in, "seq");
  if (seq.is(Kind::Iterator)) {
    Cursor c = in.iter(seq);
    Value item;
    while (in.next(c, item))
      if (py_eq(item, v)) return true;
    return false;
  }
  return py_contains(seq, v);
}

template <TestId ID>
bool test_eq(Interp&, const Value& v, Args& a) {
  return py_eq(v, one_arg(a, ID, "b"));
}

template <TestId ID>
bool test_ne(Interp&, const Value& v, Args& a) {
  return !py_eq(v, one_arg(a, ID, "b"));
}

template <TestId ID>
bool test_gt(Interp&, const Value& v, Args& a) {
  return py_order(v, one_arg(a, ID, "b"), CmpOp::Gt);
}

template <TestId ID>
bool test_ge(Interp&, const Value& v, Args& a) {
  return py_order(v, one_arg(a, ID, "b"), CmpOp::GtEq);
}

template <TestId ID>
bool test_lt(Interp&, const Value& v, Args& a) {
  return py_order(v, one_arg(a, ID, "b"), CmpOp::Lt);
}

template <TestId ID>
bool test_le(Interp&, const Value& v, Args& a) {
  return py_order(v, one_arg(a, ID, "b"), CmpOp::LtEq);
}

constexpr std::array<TestFn, t_count_of_tests> kTests = [] {
  std::array<TestFn, t_count_of_tests> t{};
  t[t_odd] = test_odd;
  t[t_even] = test_even;
  t[t_divisibleby] = test_divisibleby;
  t[t_defined] = test_defined;
  t[t_undefined] = test_undefined;
  t[t_filter] = test_filter;
  t[t_test] = test_test;
  t[t_none] = test_none;
  t[t_boolean] = test_boolean;
  t[t_false] = test_false;
  t[t_true] = test_true;
  t[t_integer] = test_integer;
  t[t_float] = test_float;
  t[t_lower] = test_lower;
  t[t_upper] = test_upper;
  t[t_string] = test_string;
  t[t_mapping] = test_mapping;
  t[t_number] = test_number;
  t[t_sequence] = test_sequence;
  t[t_iterable] = test_iterable;
  t[t_callable] = test_callable;
  t[t_sameas] = test_sameas;
  t[t_escaped] = test_escaped;
  t[t_in] = test_in;
  t[t_eq_sym] = test_eq<t_eq_sym>;
  t[t_eq] = test_eq<t_eq>;
  t[t_equalto] = test_eq<t_equalto>;
  t[t_ne_sym] = test_ne<t_ne_sym>;
  t[t_ne] = test_ne<t_ne>;
  t[t_gt_sym] = test_gt<t_gt_sym>;
  t[t_gt] = test_gt<t_gt>;
  t[t_greaterthan] = test_gt<t_greaterthan>;
  t[t_ge] = test_ge<t_ge>;
  t[t_ge_sym] = test_ge<t_ge_sym>;
  t[t_lt_sym] = test_lt<t_lt_sym>;
  t[t_lt] = test_lt<t_lt>;
  t[t_lessthan] = test_lt<t_lessthan>;
  t[t_le_sym] = test_le<t_le_sym>;
  t[t_le] = test_le<t_le>;
  return t;
}();
static_assert(every_entry_set(kTests), "every TestId has a test function");

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

bool apply_test(Interp& in, int id, const Value& v, Args& args) {
  if (id < 0 || id >= t_count_of_tests) fail(PyError::RuntimeError, "internal error: unknown test id");
  return kTests[static_cast<std::size_t>(id)](in, v, args);
}

}  // namespace openrecipes::rows::template_engine
