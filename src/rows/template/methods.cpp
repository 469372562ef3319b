// The methods of Python's list, tuple, dict, int and float (CPython 3.11 Objects/listobject.c, dictobject.c,
// longobject.c, floatobject.c) and of Jinja2's LoopContext and Cycler (jinja2/runtime.py, jinja2/utils.py), as
// the sandbox calls them: list and dict methods one function each, registered by AttrId.
#include "rows/template/methods.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "rows/template/builtin_ids.h"
#include "rows/template/failure.h"
#include "rows/template/objects.h"
#include "rows/template/pyops.h"

namespace openrecipes::rows::template_engine {

const std::string_view* strip_chars(const Value* v, std::string_view& storage) {
  if (v == nullptr || v->is(Kind::None)) return nullptr;
  if (!v->is_str()) fail(PyError::TypeError, "strip arg must be None or str");
  storage = v->str();
  return &storage;
}

std::string_view need_str(const Value* v, const char* what) {
  if (v == nullptr || !v->is_str())
    fail(PyError::TypeError, std::string(what) + " must be str, not " + (v ? type_name(*v) : std::string("NoneType")));
  return v->str();
}

std::int64_t need_int(const Value* v, const char* what) {
  if (v == nullptr || !v->is_int_like())
    fail(PyError::TypeError, std::string("'") + (v ? type_name(*v) : std::string("NoneType")) +
                                 "' object cannot be interpreted as an integer" + (what[0] ? "" : ""));
  return v->as_int();
}

std::optional<std::int64_t> opt_index(const Value* v) {
  if (v == nullptr || v->is(Kind::None)) return std::nullopt;
  if (!v->is_int_like()) fail(PyError::TypeError, "slice indices must be integers or None or have an __index__ method");
  return v->as_int();
}

Value call_in_table(const MethodTable& table, const char* type, Interp& in, const Value& self, int id, Args& args) {
  MethodFn f = table[static_cast<std::size_t>(id)];
  if (f == nullptr)
    fail(PyError::Unsupported, std::string(type) + "." + kAttrNames[id] + "() is not supported by this engine");
  return f(in, self, args);
}

void no_args(const Args& a, const std::string& fn) {
  if (!a.pos.empty() || !a.kw.empty())
    fail(PyError::TypeError, fn + "() takes no arguments (" + std::to_string(a.pos.size() + a.kw.size()) + " given)");
}

namespace {

std::string list_fn(const Value& self, AttrId id) {
  return std::string(self.is(Kind::Tuple) ? "tuple." : "list.") + kAttrNames[id];
}

Value list_copy(Interp&, const Value& self, Args& a) {
  no_args(a, list_fn(self, a_copy));
  return Value::new_list(self.list().items);
}

Value list_clear(Interp&, const Value& self, Args& a) {
  no_args(a, list_fn(self, a_clear));
  self.list().items.clear();
  return Value::none();
}

Value list_count(Interp& in, const Value& self, Args& a) {
  const ListObj& l = self.list();
  const Value* p[1];
  bind_args(a, {"value"}, p, list_fn(self, a_count).c_str(), 1);
  std::int64_t n = 0;
  in.step(l.items.size());
  for (const auto& x : l.items)
    if (py_eq(x, *p[0])) ++n;
  return Value::integer(n);
}

Value list_index(Interp& in, const Value& self, Args& a) {
  const ListObj& l = self.list();
  const Value* p[3];
  bind_args(a, {"value", "start", "stop"}, p, list_fn(self, a_index).c_str(), 1);
  auto n = static_cast<std::int64_t>(l.items.size());
  std::int64_t start = p[1] ? need_int(p[1], "start") : 0, stop = p[2] ? need_int(p[2], "stop") : n;
  if (start < 0) start = std::max<std::int64_t>(start + n, 0);
  if (stop < 0) stop = std::max<std::int64_t>(stop + n, 0);
  stop = std::min(stop, n);
  in.step(l.items.size());
  for (std::int64_t i = start; i < stop; ++i)
    if (py_eq(l.items[static_cast<std::size_t>(i)], *p[0])) return Value::integer(i);
  if (self.is(Kind::Tuple)) fail(PyError::ValueError, "tuple.index(x): x not in tuple");
  fail(PyError::ValueError, repr(*p[0]) + " is not in list");
}

Value list_pop(Interp&, const Value& self, Args& a) {
  ListObj& l = self.list();
  const Value* p[1];
  bind_args(a, {"index"}, p, list_fn(self, a_pop).c_str());
  if (l.items.empty()) fail(PyError::IndexError, "pop from empty list");
  auto n = static_cast<std::int64_t>(l.items.size());
  std::int64_t i = p[0] ? need_int(p[0], "index") : -1;
  if (i < 0) i += n;
  if (i < 0 || i >= n) fail(PyError::IndexError, "pop index out of range");
  Value v = l.items[static_cast<std::size_t>(i)];
  l.items.erase(l.items.begin() + i);
  return v;
}

// The list and tuple methods by AttrId (null: not one the engine implements; the sandbox decides which exist).
constexpr MethodTable kListMethods = [] {
  MethodTable t{};
  t[a_copy] = list_copy;
  t[a_clear] = list_clear;
  t[a_count] = list_count;
  t[a_index] = list_index;
  t[a_pop] = list_pop;
  return t;
}();

Value call_list_method(Interp& in, const Value& self, int id, Args& a) {
  return call_in_table(kListMethods, self.is(Kind::Tuple) ? "tuple" : "list", in, self, id, a);
}

Value dict_view(const DictObj& d, ListFlavor flavor) {
  std::vector<Value> items;
  items.reserve(d.items.size());
  for (const auto& kv : d.items) {
    if (flavor == ListFlavor::DictKeys)
      items.push_back(kv.first);
    else if (flavor == ListFlavor::DictValues)
      items.push_back(kv.second);
    else
      items.push_back(Value::new_tuple({kv.first, kv.second}));
  }
  Value v = Value::new_list(std::move(items));
  v.list().flavor = flavor;
  return v;
}

Value dict_get(Interp&, const Value& self, Args& a) {
  const DictObj& d = self.dict();
  const Value* p[2];
  if (!a.kw.empty()) fail(PyError::TypeError, "dict.get() takes no keyword arguments");
  bind_args(a, {"key", "default"}, p, "dict.get", 1);
  if (!is_hashable(*p[0])) fail(PyError::TypeError, "unhashable type: '" + type_name(*p[0]) + "'");
  std::ptrdiff_t i = d.find(*p[0]);
  if (i >= 0) return d.items[static_cast<std::size_t>(i)].second;
  return p[1] != nullptr ? *p[1] : Value::none();
}

Value dict_items(Interp&, const Value& self, Args& a) {
  no_args(a, "dict.items");
  return dict_view(self.dict(), ListFlavor::DictItems);
}

Value dict_keys(Interp&, const Value& self, Args& a) {
  no_args(a, "dict.keys");
  return dict_view(self.dict(), ListFlavor::DictKeys);
}

Value dict_values(Interp&, const Value& self, Args& a) {
  no_args(a, "dict.values");
  return dict_view(self.dict(), ListFlavor::DictValues);
}

Value dict_copy(Interp&, const Value& self, Args& a) {
  const DictObj& d = self.dict();
  no_args(a, "dict.copy");
  Value c = Value::new_dict();
  charge_alloc(d.items.size() * 2 * sizeof(Value));
  c.dict().items = d.items;
  c.dict().depth = d.depth;
  return c;
}

Value dict_fromkeys(Interp& in, const Value&, Args& a) {
  const Value* p[2];
  bind_args(a, {"iterable", "value"}, p, "dict.fromkeys", 1);
  Value c = Value::new_dict();
  for (auto& k : in.to_vector(*p[0])) c.dict().set(std::move(k), p[1] ? *p[1] : Value::none());
  return c;
}

// The dict methods by AttrId (null: not one the engine implements).
constexpr MethodTable kDictMethods = [] {
  MethodTable t{};
  t[a_get] = dict_get;
  t[a_items] = dict_items;
  t[a_keys] = dict_keys;
  t[a_values] = dict_values;
  t[a_copy] = dict_copy;
  t[a_fromkeys] = dict_fromkeys;
  return t;
}();

Value call_dict_method(Interp& in, const Value& self, int id, Args& a) {
  in.step(self.dict().items.size());
  return call_in_table(kDictMethods, "dict", in, self, id, a);
}

Value call_number_method(Interp&, const Value& self, int id, Args& a) {
  std::string fn = std::string(type_name(self)) + "." + kAttrNames[id];
  no_args(a, fn);
  switch (id) {
    case a_is_integer: {
      double f = self.as_float();
      return Value::boolean(std::isfinite(f) && std::floor(f) == f);
    }
    case a_conjugate:
      return self.is(Kind::Float) ? Value::floating(self.as_float()) : Value::integer(self.as_int());
    case a_bit_length:
    case a_bit_count: {
      std::int64_t v = self.as_int();
      std::uint64_t u = v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
      if (id == a_bit_count) return Value::integer(__builtin_popcountll(u));
      return Value::integer(u == 0 ? 0 : 64 - __builtin_clzll(u));
    }
    case a_as_integer_ratio:
      if (self.is_int_like()) return Value::new_tuple({Value::integer(self.as_int()), Value::integer(1)});
      [[fallthrough]];
    default:
      fail(PyError::Unsupported, fn + "() is not supported by this engine");
  }
}

Value call_loop_method(Interp& in, const Value& self, int id, Args& a) {
  auto& l = *static_cast<LoopObj*>(self.obj());
  if (!a.kw.empty())
    fail(PyError::TypeError, std::string("LoopContext.") + kAttrNames[id] + "() got an unexpected keyword argument '" +
                                 a.kw[0].first + "'");
  if (id == a_cycle) {
    if (a.pos.empty()) fail(PyError::TypeError, "no items for cycling given");
    auto n = static_cast<std::int64_t>(a.pos.size());
    std::int64_t i = ((l.index0 % n) + n) % n;
    return a.pos[static_cast<std::size_t>(i)];
  }
  // changed(*value)
  Value t = Value::new_tuple(a.pos);
  (void)in;
  if (l.last_changed.is(Kind::Missing) || !py_eq(l.last_changed, t)) {
    l.last_changed = std::move(t);
    return Value::boolean(true);
  }
  return Value::boolean(false);
}

Value call_cycler_method(const Value& self, int id, Args& a) {
  auto& c = *static_cast<CyclerObj*>(self.obj());
  no_args(a, std::string("Cycler.") + kAttrNames[id]);
  if (id == a_reset) {
    c.pos = 0;
    return Value::none();
  }
  Value rv = c.items[c.pos];
  c.pos = (c.pos + 1) % c.items.size();
  return rv;
}

}  // namespace

Value call_method(Interp& in, const Value& self, int id, Args& a) {
  switch (self.kind()) {
    case Kind::Str:
      return call_str_method(in, self, id, a);
    case Kind::List:
    case Kind::Tuple:
      return call_list_method(in, self, id, a);
    case Kind::Dict:
      return call_dict_method(in, self, id, a);
    case Kind::Int:
    case Kind::Bool:
    case Kind::Float:
      return call_number_method(in, self, id, a);
    case Kind::Loop:
      return call_loop_method(in, self, id, a);
    case Kind::Cycler:
      return call_cycler_method(self, id, a);
    default:
      fail(PyError::RuntimeError, "internal error: method of an unexpected type");
  }
}

}  // namespace openrecipes::rows::template_engine
