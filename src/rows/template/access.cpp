// Attribute and item access under Jinja2's ImmutableSandboxedEnvironment (jinja2/sandbox.py getattr/getitem:
// private and mutating attributes become unsafe Undefineds, dict keys fall back to attributes and back), and the
// methods of Python's str/list/tuple/dict/int/float plus Jinja2's loop, cycler, joiner and macro attributes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

enum A : int {
  // str
  a_capitalize,
  a_casefold,
  a_center,
  a_count,
  a_encode,
  a_endswith,
  a_expandtabs,
  a_find,
  a_format,
  a_format_map,
  a_index,
  a_isalnum,
  a_isalpha,
  a_isascii,
  a_isdecimal,
  a_isdigit,
  a_isidentifier,
  a_islower,
  a_isnumeric,
  a_isprintable,
  a_isspace,
  a_istitle,
  a_isupper,
  a_join,
  a_ljust,
  a_lower,
  a_lstrip,
  a_maketrans,
  a_partition,
  a_removeprefix,
  a_removesuffix,
  a_replace,
  a_rfind,
  a_rindex,
  a_rjust,
  a_rpartition,
  a_rsplit,
  a_rstrip,
  a_split,
  a_splitlines,
  a_startswith,
  a_strip,
  a_swapcase,
  a_title,
  a_translate,
  a_upper,
  a_zfill,
  // list
  a_append,
  a_clear,
  a_copy,
  a_extend,
  a_insert,
  a_pop,
  a_remove,
  a_reverse,
  a_sort,
  // dict
  a_fromkeys,
  a_get,
  a_items,
  a_keys,
  a_popitem,
  a_setdefault,
  a_update,
  a_values,
  // numbers
  a_real,
  a_imag,
  a_numerator,
  a_denominator,
  a_bit_length,
  a_bit_count,
  a_conjugate,
  a_as_integer_ratio,
  a_to_bytes,
  a_from_bytes,
  a_is_integer,
  a_hex,
  a_fromhex,
  // range
  a_start,
  a_stop,
  a_step,
  // loop
  a_index0,
  a_revindex,
  a_revindex0,
  a_first,
  a_last,
  a_length,
  a_depth,
  a_depth0,
  a_previtem,
  a_nextitem,
  a_cycle,
  a_changed,
  // cycler / joiner
  a_current,
  a_next,
  a_reset,
  a_pos,
  a_sep,
  a_used,
  // macro
  a_name,
  a_arguments,
  a_catch_kwargs,
  a_catch_varargs,
  a_caller,
  // groupby tuple
  a_grouper,
  a_list,
  a_count_of_ids
};

const char* const kNames[] = {
    "capitalize",   "casefold",    "center",     "count",      "encode",       "endswith",
    "expandtabs",   "find",        "format",     "format_map", "index",        "isalnum",
    "isalpha",      "isascii",     "isdecimal",  "isdigit",    "isidentifier", "islower",
    "isnumeric",    "isprintable", "isspace",    "istitle",    "isupper",      "join",
    "ljust",        "lower",       "lstrip",     "maketrans",  "partition",    "removeprefix",
    "removesuffix", "replace",     "rfind",      "rindex",     "rjust",        "rpartition",
    "rsplit",       "rstrip",      "split",      "splitlines", "startswith",   "strip",
    "swapcase",     "title",       "translate",  "upper",      "zfill",        "append",
    "clear",        "copy",        "extend",     "insert",     "pop",          "remove",
    "reverse",      "sort",        "fromkeys",   "get",        "items",        "keys",
    "popitem",      "setdefault",  "update",     "values",     "real",         "imag",
    "numerator",    "denominator", "bit_length", "bit_count",  "conjugate",    "as_integer_ratio",
    "to_bytes",     "from_bytes",  "is_integer", "hex",        "fromhex",      "start",
    "stop",         "step",        "index0",     "revindex",   "revindex0",    "first",
    "last",         "length",      "depth",      "depth0",     "previtem",     "nextitem",
    "cycle",        "changed",     "current",    "next",       "reset",        "pos",
    "sep",          "used",        "name",       "arguments",  "catch_kwargs", "catch_varargs",
    "caller",       "grouper",     "list",
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == a_count_of_ids, "attribute name table");

// dir() of the builtin types (dunder names only): attribute exists -> the sandbox reports it unsafe.
const char* const kStrDunders[] = {
    "__add__",      "__class__",  "__contains__",  "__delattr__",      "__dir__",           "__doc__",
    "__eq__",       "__format__", "__ge__",        "__getattribute__", "__getitem__",       "__getnewargs__",
    "__getstate__", "__gt__",     "__hash__",      "__init__",         "__init_subclass__", "__iter__",
    "__le__",       "__len__",    "__lt__",        "__mod__",          "__mul__",           "__ne__",
    "__new__",      "__reduce__", "__reduce_ex__", "__repr__",         "__rmod__",          "__rmul__",
    "__setattr__",  "__sizeof__", "__str__",       "__subclasshook__"};
const char* const kListDunders[] = {
    "__add__",      "__class__",        "__class_getitem__", "__contains__",  "__delattr__",
    "__delitem__",  "__dir__",          "__doc__",           "__eq__",        "__format__",
    "__ge__",       "__getattribute__", "__getitem__",       "__getstate__",  "__gt__",
    "__hash__",     "__iadd__",         "__imul__",          "__init__",      "__init_subclass__",
    "__iter__",     "__le__",           "__len__",           "__lt__",        "__mul__",
    "__ne__",       "__new__",          "__reduce__",        "__reduce_ex__", "__repr__",
    "__reversed__", "__rmul__",         "__setattr__",       "__setitem__",   "__sizeof__",
    "__str__",      "__subclasshook__"};
const char* const kDictDunders[] = {"__class__",
                                    "__class_getitem__",
                                    "__contains__",
                                    "__delattr__",
                                    "__delitem__",
                                    "__dir__",
                                    "__doc__",
                                    "__eq__",
                                    "__format__",
                                    "__ge__",
                                    "__getattribute__",
                                    "__getitem__",
                                    "__getstate__",
                                    "__gt__",
                                    "__hash__",
                                    "__init__",
                                    "__init_subclass__",
                                    "__ior__",
                                    "__iter__",
                                    "__le__",
                                    "__len__",
                                    "__lt__",
                                    "__ne__",
                                    "__new__",
                                    "__or__",
                                    "__reduce__",
                                    "__reduce_ex__",
                                    "__repr__",
                                    "__reversed__",
                                    "__ror__",
                                    "__setattr__",
                                    "__setitem__",
                                    "__sizeof__",
                                    "__str__",
                                    "__subclasshook__"};
const char* const kTupleDunders[] = {"__add__",        "__class__",        "__class_getitem__",
                                     "__contains__",   "__delattr__",      "__dir__",
                                     "__doc__",        "__eq__",           "__format__",
                                     "__ge__",         "__getattribute__", "__getitem__",
                                     "__getnewargs__", "__getstate__",     "__gt__",
                                     "__hash__",       "__init__",         "__init_subclass__",
                                     "__iter__",       "__le__",           "__len__",
                                     "__lt__",         "__mul__",          "__ne__",
                                     "__new__",        "__reduce__",       "__reduce_ex__",
                                     "__repr__",       "__rmul__",         "__setattr__",
                                     "__sizeof__",     "__str__",          "__subclasshook__"};
const char* const kNumberDunders[] = {
    "__abs__",           "__add__",      "__and__",       "__bool__",    "__ceil__",         "__class__",
    "__delattr__",       "__dir__",      "__divmod__",    "__doc__",     "__eq__",           "__float__",
    "__floor__",         "__floordiv__", "__format__",    "__ge__",      "__getattribute__", "__getformat__",
    "__getnewargs__",    "__getstate__", "__gt__",        "__hash__",    "__index__",        "__init__",
    "__init_subclass__", "__int__",      "__invert__",    "__le__",      "__lshift__",       "__lt__",
    "__mod__",           "__mul__",      "__ne__",        "__neg__",     "__new__",          "__or__",
    "__pos__",           "__pow__",      "__radd__",      "__rand__",    "__rdivmod__",      "__reduce__",
    "__reduce_ex__",     "__repr__",     "__rfloordiv__", "__rlshift__", "__rmod__",         "__rmul__",
    "__ror__",           "__round__",    "__rpow__",      "__rrshift__", "__rshift__",       "__rsub__",
    "__rtruediv__",      "__rxor__",     "__setattr__",   "__sizeof__",  "__str__",          "__sub__",
    "__subclasshook__",  "__truediv__",  "__trunc__",     "__xor__"};
const char* const kObjectDunders[] = {
    "__bool__",          "__class__", "__delattr__",      "__dict__",     "__dir__", "__doc__",          "__eq__",
    "__format__",        "__ge__",    "__getattribute__", "__getstate__", "__gt__",  "__hash__",         "__init__",
    "__init_subclass__", "__le__",    "__lt__",           "__module__",   "__ne__",  "__new__",          "__reduce__",
    "__reduce_ex__",     "__repr__",  "__setattr__",      "__sizeof__",   "__str__", "__subclasshook__", "__weakref__"};

template <std::size_t N>
bool in_list(const char* const (&list)[N], std::string_view name) {
  for (const char* n : list)
    if (name == n) return true;
  return false;
}

bool has_dunder(const Value& obj, std::string_view name) {
  switch (obj.kind()) {
    case Kind::Str:
      return in_list(kStrDunders, name);
    case Kind::List:
      return in_list(kListDunders, name);
    case Kind::Tuple:
      return in_list(kTupleDunders, name);
    case Kind::Dict:
      return in_list(kDictDunders, name);
    case Kind::Int:
    case Kind::Bool:
    case Kind::Float:
      return in_list(kNumberDunders, name);
    case Kind::None:
      return name == "__class__" || name == "__doc__" || name == "__bool__" || name == "__repr__";
    case Kind::Namespace:
      return name == "__class__";
    default:
      return in_list(kObjectDunders, name);
  }
}

bool is_str_method(int id) { return id >= a_capitalize && id <= a_zfill; }

enum class Member { None, Method, UnsafeMethod, Attribute };

// What obj.<id> is in Python (before the sandbox's checks).
Member member_of(const Value& obj, int id) {
  switch (obj.kind()) {
    case Kind::Str:
      return is_str_method(id) ? Member::Method : Member::None;
    case Kind::List: {
      const ListObj& l = obj.list();
      if (l.flavor == ListFlavor::Range) {
        if (id == a_count || id == a_index) return Member::Method;
        if (id == a_start || id == a_stop || id == a_step) return Member::Attribute;
        return Member::None;
      }
      if (l.flavor == ListFlavor::DictKeys || l.flavor == ListFlavor::DictItems || l.flavor == ListFlavor::DictValues)
        return Member::None;  // dict views: only isdisjoint()/mapping, not supported
      switch (id) {
        case a_clear:
        case a_copy:
        case a_count:
        case a_index:
        case a_pop:
          return Member::Method;
        case a_append:
        case a_extend:
        case a_insert:
        case a_remove:
        case a_reverse:
        case a_sort:
          return Member::UnsafeMethod;
        default:
          return Member::None;
      }
    }
    case Kind::Tuple:
      if (id == a_count || id == a_index) return Member::Method;
      if (obj.list().flavor == ListFlavor::GroupTuple && (id == a_grouper || id == a_list)) return Member::Attribute;
      return Member::None;
    case Kind::Dict:
      switch (id) {
        case a_copy:
        case a_fromkeys:
        case a_get:
        case a_items:
        case a_keys:
        case a_values:
          return Member::Method;
        case a_clear:
        case a_pop:
        case a_popitem:
        case a_setdefault:
        case a_update:
          return Member::UnsafeMethod;
        default:
          return Member::None;
      }
    case Kind::Int:
    case Kind::Bool:
      switch (id) {
        case a_real:
        case a_imag:
        case a_numerator:
        case a_denominator:
          return Member::Attribute;
        case a_bit_length:
        case a_bit_count:
        case a_conjugate:
        case a_as_integer_ratio:
        case a_to_bytes:
        case a_from_bytes:
          return Member::Method;
        default:
          return Member::None;
      }
    case Kind::Float:
      switch (id) {
        case a_real:
        case a_imag:
          return Member::Attribute;
        case a_is_integer:
        case a_hex:
        case a_fromhex:
        case a_conjugate:
        case a_as_integer_ratio:
          return Member::Method;
        default:
          return Member::None;
      }
    case Kind::Loop:
      switch (id) {
        case a_index:
        case a_index0:
        case a_revindex:
        case a_revindex0:
        case a_first:
        case a_last:
        case a_length:
        case a_depth:
        case a_depth0:
        case a_previtem:
        case a_nextitem:
          return Member::Attribute;
        case a_cycle:
        case a_changed:
          return Member::Method;
        default:
          return Member::None;
      }
    case Kind::Cycler:
      if (id == a_current || id == a_items || id == a_pos) return Member::Attribute;
      if (id == a_next || id == a_reset) return Member::Method;
      return Member::None;
    case Kind::Joiner:
      return (id == a_sep || id == a_used) ? Member::Attribute : Member::None;
    case Kind::Macro:
      return (id == a_name || id == a_arguments || id == a_catch_kwargs || id == a_catch_varargs || id == a_caller)
                 ? Member::Attribute
                 : Member::None;
    default:
      return Member::None;
  }
}

Value unsafe_undefined(const Value& obj, std::string_view name) {
  auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
  std::string n(name);
  info->hint = "access to attribute '" + n + "' of '" + type_name(obj) + "' object is unsafe.";
  info->name = "'" + n + "'";
  info->security = true;
  return Value::undefined_info(std::move(info));
}

Value missing_attr(const Value& obj, std::string_view name) {
  auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
  info->obj_type = object_type_repr(obj);
  std::string r;
  append_str_repr(r, name);
  info->name = std::move(r);
  return Value::undefined_info(std::move(info));
}

Value missing_item(const Value& obj, const Value& key) {
  if (key.is_str()) return missing_attr(obj, key.str());
  auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
  info->obj_type = object_type_repr(obj);
  info->name = repr(key);
  info->name_is_str = false;
  return Value::undefined_info(std::move(info));
}

Value bound(const Value& self, int id, std::string_view name) {
  auto m = Rc<MethodObj>::adopt(new MethodObj());
  m->self = self;
  m->id = id;
  m->name = std::string(name);
  return Value::object(Kind::Method, m.get());
}

// Loop peeking (LoopContext._peek_next).
const Value& loop_peek(Interp& in, LoopObj& l) {
  if (l.after.is(Kind::Missing)) {
    Value v;
    if (in.next(l.cursor, v)) l.after = std::move(v);
  }
  return l.after;
}

Value attribute_value(Interp& in, const Value& obj, int id) {
  switch (obj.kind()) {
    case Kind::Int:
    case Kind::Bool:
      if (id == a_imag) return Value::integer(0);
      if (id == a_denominator) return Value::integer(1);
      return Value::integer(obj.as_int());
    case Kind::Float:
      if (id == a_imag) return Value::floating(0.0);
      return Value::floating(obj.as_float());
    case Kind::List: {
      const ListObj& l = obj.list();
      if (id == a_start) return Value::integer(l.range_start);
      if (id == a_stop) return Value::integer(l.range_stop);
      return Value::integer(l.range_step);
    }
    case Kind::Tuple:
      return obj.list().items[id == a_grouper ? 0 : 1];
    case Kind::Loop: {
      auto& l = *static_cast<LoopObj*>(obj.obj());
      switch (id) {
        case a_index:
          return Value::integer(l.index0 + 1);
        case a_index0:
          return Value::integer(l.index0);
        case a_revindex:
          return Value::integer(in.loop_length(l) - l.index0);
        case a_revindex0:
          return Value::integer(in.loop_length(l) - (l.index0 + 1));
        case a_first:
          return Value::boolean(l.index0 == 0);
        case a_last:
          return Value::boolean(loop_peek(in, l).is(Kind::Missing));
        case a_length:
          return Value::integer(in.loop_length(l));
        case a_depth:
          return Value::integer(l.depth0 + 1);
        case a_depth0:
          return Value::integer(l.depth0);
        case a_previtem:
          if (l.index0 == 0) return Value::undefined_hint("there is no previous item");
          return l.before;
        case a_nextitem: {
          const Value& n = loop_peek(in, l);
          if (n.is(Kind::Missing)) return Value::undefined_hint("there is no next item");
          return n;
        }
        default:
          break;
      }
      break;
    }
    case Kind::Cycler: {
      auto& c = *static_cast<CyclerObj*>(obj.obj());
      if (id == a_current) return c.items[c.pos];
      if (id == a_pos) return Value::integer(static_cast<std::int64_t>(c.pos));
      return Value::new_tuple(c.items);
    }
    case Kind::Joiner: {
      auto& j = *static_cast<JoinerObj*>(obj.obj());
      return id == a_sep ? j.sep : Value::boolean(j.used);
    }
    case Kind::Macro: {
      auto& m = *static_cast<MacroObj*>(obj.obj());
      switch (id) {
        case a_name:
          return m.is_caller ? Value::none() : Value::string(m.def->name);
        case a_arguments: {
          std::vector<Value> names;
          for (const auto& a : m.def->arg_names) names.push_back(Value::string(a));
          return Value::new_tuple(std::move(names));
        }
        case a_catch_kwargs:
          return Value::boolean(m.def->accesses_kwargs);
        case a_catch_varargs:
          return Value::boolean(m.def->accesses_varargs);
        default:
          return Value::boolean(m.def->accesses_caller);
      }
    }
    default:
      break;
  }
  fail(PyError::RuntimeError, "internal error: unknown attribute");
}

// Python obj[key] for the sandbox: returns true with the item, false for TypeError/LookupError (the sandbox
// then tries getattr), and raises for errors Python does not catch there.
bool python_getitem(Interp& in, const Value& obj, const Value& key, Value& out) {
  switch (obj.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      fail_undefined(obj);
    case Kind::Dict: {
      if (!is_hashable(key)) return false;  // unhashable: TypeError
      std::ptrdiff_t i = obj.dict().find(key);
      if (i < 0) return false;
      out = obj.dict().items[static_cast<std::size_t>(i)].second;
      return true;
    }
    case Kind::List:
    case Kind::Tuple: {
      const ListObj& l = obj.list();
      if (l.flavor == ListFlavor::DictKeys || l.flavor == ListFlavor::DictValues || l.flavor == ListFlavor::DictItems)
        return false;
      if (!key.is_int_like()) return false;
      std::int64_t i = key.as_int();
      auto n = static_cast<std::int64_t>(l.items.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return false;
      out = l.items[static_cast<std::size_t>(i)];
      return true;
    }
    case Kind::Str: {
      if (!key.is_int_like()) return false;
      std::string_view s = obj.str();
      std::int64_t i = key.as_int();
      if (is_ascii(s)) {
        auto n = static_cast<std::int64_t>(s.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return false;
        out = Value::substr(obj, static_cast<std::size_t>(i), 1);
        return true;
      }
      in.work(s.size());
      auto n = static_cast<std::int64_t>(cp_count(s));
      if (i < 0) i += n;
      if (i < 0 || i >= n) return false;
      std::size_t b = cp_offset(s, static_cast<std::size_t>(i));
      std::size_t e = b;
      next_cp(s, e);
      out = Value::substr(obj, b, e - b);
      return true;
    }
    default:
      return false;
  }
}

// ---- method implementations ----

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

void no_args(const Args& a, const std::string& fn) {
  if (!a.pos.empty() || !a.kw.empty())
    fail(PyError::TypeError, fn + "() takes no arguments (" + std::to_string(a.pos.size() + a.kw.size()) + " given)");
}

char32_t fill_char(const Value* v) {
  if (v == nullptr) return ' ';
  if (!v->is_str()) fail(PyError::TypeError, "The fill character must be a unicode character, not " + type_name(*v));
  std::string_view s = v->str();
  if (cp_count(s) != 1) fail(PyError::TypeError, "The fill character must be exactly one character long");
  std::size_t i = 0;
  return next_cp(s, i);
}

Value str_list(const Value& self, const std::vector<std::string_view>& parts) {
  std::vector<Value> items;
  items.reserve(parts.size());
  for (auto p : parts) items.push_back(Value::view_of(self, p));
  return Value::new_list(std::move(items));
}

Value call_str_method(Interp& in, const Value& self, int id, Args& a) {
  std::string_view s = self.str();
  const bool safe = self.is_safe();
  const Value* p[4];
  auto fn = std::string("str.") + kNames[id];
  in.work(s.size());
  switch (id) {
    case a_upper:
      no_args(a, fn);
      return Value::string(py_upper(s), safe);
    case a_lower:
      no_args(a, fn);
      return Value::string(py_lower(s), safe);
    case a_title:
      no_args(a, fn);
      return Value::string(py_title(s), safe);
    case a_capitalize:
      no_args(a, fn);
      return Value::string(py_capitalize(s), safe);
    case a_swapcase:
      no_args(a, fn);
      return Value::string(py_swapcase(s), safe);
    case a_casefold:
      no_args(a, fn);
      return Value::string(py_casefold(s), safe);
    case a_strip:
    case a_lstrip:
    case a_rstrip: {
      bind_args(a, {"chars"}, p, fn.c_str());
      const std::string_view* chars = nullptr;
      std::string_view cv;
      if (p[0] != nullptr && !p[0]->is(Kind::None)) {
        if (!p[0]->is_str()) fail(PyError::TypeError, "strip arg must be None or str");
        cv = p[0]->str();
        chars = &cv;
      }
      std::string_view r = pystr::strip(s, chars, id != a_rstrip, id != a_lstrip);
      return Value::view_of(self, r);
    }
    case a_split:
    case a_rsplit: {
      bind_args(a, {"sep", "maxsplit"}, p, fn.c_str());
      const std::string_view* sep = nullptr;
      std::string_view sv;
      if (p[0] != nullptr && !p[0]->is(Kind::None)) {
        if (!p[0]->is_str()) fail(PyError::TypeError, "must be str or None, not " + type_name(*p[0]));
        sv = p[0]->str();
        if (sv.empty()) fail(PyError::ValueError, "empty separator");
        sep = &sv;
      }
      std::int64_t maxsplit = p[1] != nullptr ? need_int(p[1], "maxsplit") : -1;
      auto parts = id == a_split ? pystr::split(s, sep, maxsplit) : pystr::rsplit(s, sep, maxsplit);
      in.step(parts.size());
      return str_list(self, parts);
    }
    case a_splitlines: {
      bind_args(a, {"keepends"}, p, fn.c_str());
      auto parts = pystr::splitlines(s, p[0] != nullptr && truthy(*p[0]));
      in.step(parts.size());
      return str_list(self, parts);
    }
    case a_startswith:
    case a_endswith: {
      if (!a.kw.empty()) fail(PyError::TypeError, fn + "() takes no keyword arguments");
      bind_args(a, {"prefix", "start", "end"}, p, fn.c_str(), 1);
      bool ends = id == a_endswith;
      auto start = opt_index(p[1]), end = opt_index(p[2]);
      if (p[0]->is_str()) return Value::boolean(pystr::startswith(s, p[0]->str(), start, end, ends));
      if (p[0]->is(Kind::Tuple)) {
        for (const auto& x : p[0]->list().items) {
          if (!x.is_str())
            fail(PyError::TypeError, std::string("tuple for ") + (ends ? "endswith" : "startswith") +
                                         " must only contain str, not " + type_name(x));
          if (pystr::startswith(s, x.str(), start, end, ends)) return Value::boolean(true);
        }
        return Value::boolean(false);
      }
      fail(PyError::TypeError, std::string(ends ? "endswith" : "startswith") +
                                   " first arg must be str or a tuple of str, not " + type_name(*p[0]));
    }
    case a_find:
    case a_rfind:
    case a_index:
    case a_rindex:
    case a_count: {
      if (!a.kw.empty()) fail(PyError::TypeError, fn + "() takes no keyword arguments");
      bind_args(a, {"sub", "start", "end"}, p, fn.c_str(), 1);
      if (!p[0]->is_str()) fail(PyError::TypeError, "must be str, not " + type_name(*p[0]));
      auto start = opt_index(p[1]), end = opt_index(p[2]);
      if (id == a_count) return Value::integer(pystr::count(s, p[0]->str(), start, end));
      std::int64_t r = pystr::find(s, p[0]->str(), start, end, id == a_rfind || id == a_rindex);
      if (r < 0 && (id == a_index || id == a_rindex)) fail(PyError::ValueError, "substring not found");
      return Value::integer(r);
    }
    case a_replace: {
      if (!a.kw.empty()) fail(PyError::TypeError, fn + "() takes no keyword arguments");
      bind_args(a, {"old", "new", "count"}, p, fn.c_str(), 2);
      std::string_view o = need_str(p[0], "replace() argument 1");
      std::string_view n = need_str(p[1], "replace() argument 2");
      std::string eo, en;
      if (safe) {  // Markup.replace escapes its arguments
        if (!p[0]->is_safe()) o = eo = html_escape(o);
        if (!p[1]->is_safe()) n = en = html_escape(n);
      }
      std::int64_t c = p[2] != nullptr ? need_int(p[2], "count") : -1;
      {
        std::int64_t hits =
            o.empty() ? static_cast<std::int64_t>(cp_count(s)) + 1 : pystr::count(s, o, std::nullopt, std::nullopt);
        if (c >= 0) hits = std::min(hits, c);
        if (n.size() > o.size()) check_text_size(s.size() + static_cast<std::size_t>(hits) * (n.size() - o.size()));
      }
      std::string r = pystr::replace(s, o, n, c);
      in.work(r.size());
      return Value::string(r, safe);
    }
    case a_join: {
      bind_args(a, {"iterable"}, p, fn.c_str(), 1);
      std::vector<Value> items = in.to_vector(*p[0]);
      std::string out;
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_str())
          fail(PyError::TypeError,
               "sequence item " + std::to_string(i) + ": expected str instance, " + type_name(items[i]) + " found");
        if (i) out.append(s);
        if (safe && !items[i].is_safe())
          out.append(html_escape(items[i].str()));  // Markup.join escapes its items
        else
          out.append(items[i].str());
        check_text_size(out.size());
      }
      in.work(out.size());
      return Value::string(out, safe);
    }
    case a_center:
    case a_ljust:
    case a_rjust: {
      bind_args(a, {"width", "fillchar"}, p, fn.c_str(), 1);
      std::int64_t w = need_int(p[0], "width");
      if (w > static_cast<std::int64_t>(in.options().limits.max_alloc_bytes))
        fail(PyError::LimitExceeded, "padding width exceeds max_alloc_bytes");
      char32_t f = fill_char(p[1]);
      std::string r = id == a_center ? pystr::center(s, w, f) : pystr::ljust(s, w, f, id == a_rjust);
      in.work(r.size());
      return Value::string(r, safe);
    }
    case a_zfill: {
      bind_args(a, {"width"}, p, fn.c_str(), 1);
      std::int64_t w = need_int(p[0], "width");
      if (w > static_cast<std::int64_t>(in.options().limits.max_alloc_bytes))
        fail(PyError::LimitExceeded, "padding width exceeds max_alloc_bytes");
      return Value::string(pystr::zfill(s, w), safe);
    }
    case a_expandtabs: {
      bind_args(a, {"tabsize"}, p, fn.c_str());
      std::int64_t t = p[0] != nullptr ? need_int(p[0], "tabsize") : 8;
      if (t > 4096) fail(PyError::LimitExceeded, "expandtabs tab size too large");
      if (t > 0)
        check_text_size(s.size() +
                        static_cast<std::size_t>(t) * static_cast<std::size_t>(std::count(s.begin(), s.end(), '\t')));
      std::string r = pystr::expandtabs(s, t);
      in.work(r.size());
      return Value::string(r, safe);
    }
    case a_partition:
    case a_rpartition: {
      bind_args(a, {"sep"}, p, fn.c_str(), 1);
      std::string_view sep = need_str(p[0], "partition() argument");
      if (sep.empty()) fail(PyError::ValueError, "empty separator");
      std::size_t f = id == a_partition ? s.find(sep) : s.rfind(sep);
      std::vector<Value> items;
      if (f == std::string_view::npos) {
        if (id == a_partition) {
          items = {self, Value::borrowed(std::string_view()), Value::borrowed(std::string_view())};
        } else {
          items = {Value::borrowed(std::string_view()), Value::borrowed(std::string_view()), self};
        }
      } else {
        items = {Value::view_of(self, s.substr(0, f)), Value::view_of(self, s.substr(f, sep.size())),
                 Value::view_of(self, s.substr(f + sep.size()))};
      }
      return Value::new_tuple(std::move(items));
    }
    case a_removeprefix:
    case a_removesuffix: {
      bind_args(a, {"affix"}, p, fn.c_str(), 1);
      std::string_view x = need_str(p[0], "argument");
      if (id == a_removeprefix && s.substr(0, x.size()) == x) return Value::view_of(self, s.substr(x.size()));
      if (id == a_removesuffix && !x.empty() && s.size() >= x.size() && s.substr(s.size() - x.size()) == x)
        return Value::view_of(self, s.substr(0, s.size() - x.size()));
      return self;
    }
    case a_isalnum:
      no_args(a, fn);
      return Value::boolean(py_str_all(s, py_isalnum));
    case a_isalpha:
      no_args(a, fn);
      return Value::boolean(py_str_all(s, py_isalpha));
    case a_isdecimal:
      no_args(a, fn);
      return Value::boolean(py_str_all(s, py_isdecimal));
    case a_isdigit:
      no_args(a, fn);
      return Value::boolean(py_str_all(s, py_isdigit));
    case a_isnumeric:
      no_args(a, fn);
      return Value::boolean(py_str_all(s, py_isnumeric));
    case a_isspace:
      no_args(a, fn);
      return Value::boolean(py_str_all(s, py_isspace));
    case a_isprintable:
      no_args(a, fn);
      return Value::boolean(py_str_all(s, py_isprintable));
    case a_isascii:
      no_args(a, fn);
      return Value::boolean(is_ascii(s));
    case a_islower:
      no_args(a, fn);
      return Value::boolean(py_islower(s));
    case a_isupper:
      no_args(a, fn);
      return Value::boolean(py_isupper(s));
    case a_istitle:
      no_args(a, fn);
      return Value::boolean(py_istitle(s));
    case a_format:
      return Value::string(str_format(in, s, a), safe);
    case a_format_map: {
      if (!a.kw.empty()) fail(PyError::TypeError, "format_map() takes no keyword arguments");
      if (a.pos.size() != 1)
        fail(PyError::TypeError,
             "format_map() takes exactly one argument (" + std::to_string(a.pos.size()) + " given)");
      Args mapped;
      if (!a.pos[0].is(Kind::Dict)) fail(PyError::TypeError, "format_map() argument must be a mapping");
      for (const auto& kv : a.pos[0].dict().items)
        if (kv.first.is_str()) mapped.kw.emplace_back(std::string(kv.first.str()), kv.second);
      return Value::string(str_format(in, s, mapped), safe);
    }
    default:
      fail(PyError::Unsupported, "str." + std::string(kNames[id]) + "() is not supported by this engine");
  }
}

Value call_list_method(Interp& in, const Value& self, int id, Args& a) {
  ListObj& l = self.list();
  const Value* p[3];
  std::string fn = std::string(self.is(Kind::Tuple) ? "tuple." : "list.") + kNames[id];
  switch (id) {
    case a_copy:
      no_args(a, fn);
      return Value::new_list(l.items);
    case a_clear:
      no_args(a, fn);
      l.items.clear();
      return Value::none();
    case a_count: {
      bind_args(a, {"value"}, p, fn.c_str(), 1);
      std::int64_t n = 0;
      in.step(l.items.size());
      for (const auto& x : l.items)
        if (py_eq(x, *p[0])) ++n;
      return Value::integer(n);
    }
    case a_index: {
      bind_args(a, {"value", "start", "stop"}, p, fn.c_str(), 1);
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
    case a_pop: {
      bind_args(a, {"index"}, p, fn.c_str());
      if (l.items.empty()) fail(PyError::IndexError, "pop from empty list");
      auto n = static_cast<std::int64_t>(l.items.size());
      std::int64_t i = p[0] ? need_int(p[0], "index") : -1;
      if (i < 0) i += n;
      if (i < 0 || i >= n) fail(PyError::IndexError, "pop index out of range");
      Value v = l.items[static_cast<std::size_t>(i)];
      l.items.erase(l.items.begin() + i);
      return v;
    }
    default:
      fail(PyError::Unsupported, fn + "() is not supported by this engine");
  }
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

Value call_dict_method(Interp& in, const Value& self, int id, Args& a) {
  DictObj& d = self.dict();
  const Value* p[2];
  std::string fn = std::string("dict.") + kNames[id];
  in.step(d.items.size());
  switch (id) {
    case a_get: {
      if (!a.kw.empty()) fail(PyError::TypeError, "dict.get() takes no keyword arguments");
      bind_args(a, {"key", "default"}, p, fn.c_str(), 1);
      if (!is_hashable(*p[0])) fail(PyError::TypeError, "unhashable type: '" + type_name(*p[0]) + "'");
      std::ptrdiff_t i = d.find(*p[0]);
      if (i >= 0) return d.items[static_cast<std::size_t>(i)].second;
      return p[1] != nullptr ? *p[1] : Value::none();
    }
    case a_items:
      no_args(a, fn);
      return dict_view(d, ListFlavor::DictItems);
    case a_keys:
      no_args(a, fn);
      return dict_view(d, ListFlavor::DictKeys);
    case a_values:
      no_args(a, fn);
      return dict_view(d, ListFlavor::DictValues);
    case a_copy: {
      no_args(a, fn);
      Value c = Value::new_dict();
      charge_alloc(d.items.size() * 2 * sizeof(Value));
      c.dict().items = d.items;
      c.dict().depth = d.depth;
      return c;
    }
    case a_fromkeys: {
      bind_args(a, {"iterable", "value"}, p, fn.c_str(), 1);
      Value c = Value::new_dict();
      for (auto& k : in.to_vector(*p[0])) c.dict().set(std::move(k), p[1] ? *p[1] : Value::none());
      return c;
    }
    default:
      fail(PyError::Unsupported, fn + "() is not supported by this engine");
  }
}

Value call_number_method(Interp&, const Value& self, int id, Args& a) {
  std::string fn = std::string(type_name(self)) + "." + kNames[id];
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
    fail(PyError::TypeError,
         std::string("LoopContext.") + kNames[id] + "() got an unexpected keyword argument '" + a.kw[0].first + "'");
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
  no_args(a, std::string("Cycler.") + kNames[id]);
  if (id == a_reset) {
    c.pos = 0;
    return Value::none();
  }
  Value rv = c.items[c.pos];
  c.pos = (c.pos + 1) % c.items.size();
  return rv;
}

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

}  // namespace

int attr_id(std::string_view name) {
  static const std::unordered_map<std::string_view, int> table = [] {
    std::unordered_map<std::string_view, int> t;
    for (int i = 0; i < a_count_of_ids; ++i) t.emplace(kNames[i], i);
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? -1 : it->second;
}

Value sandbox_getattr(Interp& in, const Value& obj, std::string_view name, int id) {
  if (obj.is_undefined()) fail_undefined(obj);
  if (id == -2) id = attr_id(name);
  // 1. getattr(obj, name)
  if (!name.empty() && name[0] == '_') {
    if (name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__" && has_dunder(obj, name))
      return unsafe_undefined(obj, name);
    if (obj.is(Kind::Namespace) && obj.ns().get(name) != nullptr) return unsafe_undefined(obj, name);
    if (obj.is(Kind::Loop) &&
        (name == "_length" || name == "_after" || name == "_current" || name == "_before" || name == "_iterable" ||
         name == "_iterator" || name == "_undefined" || name == "_recurse" || name == "_last_changed_value" ||
         name == "_to_iterator" || name == "_peek_next"))
      return unsafe_undefined(obj, name);
  } else if (id >= 0) {
    switch (member_of(obj, id)) {
      case Member::Method:
        return bound(obj, id, name);
      case Member::UnsafeMethod:
        return unsafe_undefined(obj, name);
      case Member::Attribute:
        return attribute_value(in, obj, id);
      case Member::None:
        break;
    }
  }
  if (obj.is(Kind::Namespace)) {
    if (const Value* v = obj.ns().get(name)) return *v;
    return missing_attr(obj, name);
  }
  // 2. obj[name]
  if (obj.is(Kind::Dict)) {
    std::ptrdiff_t i = obj.dict().find_str(name);
    if (i >= 0) return obj.dict().items[static_cast<std::size_t>(i)].second;
  }
  return missing_attr(obj, name);
}

Value sandbox_getitem(Interp& in, const Value& obj, const Value& key) {
  Value out;
  if (python_getitem(in, obj, key, out)) return out;
  if (key.is_str()) {
    std::string_view name = key.str();
    int id = attr_id(name);
    if (!name.empty() && name[0] == '_') {
      if (name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__" && has_dunder(obj, name))
        return unsafe_undefined(obj, name);
      if (obj.is(Kind::Namespace) && obj.ns().get(name) != nullptr) return unsafe_undefined(obj, name);
    } else {
      if (id >= 0) {
        switch (member_of(obj, id)) {
          case Member::Method:
            return bound(obj, id, name);
          case Member::UnsafeMethod:
            return unsafe_undefined(obj, name);
          case Member::Attribute:
            return attribute_value(in, obj, id);
          case Member::None:
            break;
        }
      }
      if (obj.is(Kind::Namespace))
        if (const Value* v = obj.ns().get(name)) return *v;
    }
  }
  return missing_item(obj, key);
}

bool call_method_fast(Interp& in, const Value& obj, std::string_view name, int id, Args& args, Value& out) {
  if (id < 0 || (!name.empty() && name[0] == '_')) return false;
  if (member_of(obj, id) != Member::Method) return false;
  out = call_method(in, obj, id, args);
  return true;
}

Value call_bound_method(Interp& in, MethodObj& m, Args& args) { return call_method(in, m.self, m.id, args); }

bool has_python_attr(const Value& obj, std::string_view name) {
  if (obj.is(Kind::Namespace)) return obj.ns().get(name) != nullptr || name == "__class__";
  if (name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__")
    return has_dunder(obj, name);
  int id = attr_id(name);
  return id >= 0 && member_of(obj, id) != Member::None;
}

}  // namespace openrecipes::rows::template_engine
