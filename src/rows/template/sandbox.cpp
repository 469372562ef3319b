// Attribute and item access under Jinja2's ImmutableSandboxedEnvironment (jinja2/sandbox.py getattr/getitem:
// private and mutating attributes become unsafe Undefineds, dict keys fall back to attributes and back): which
// members Python's str/list/tuple/dict/int/float and Jinja2's loop, cycler, joiner and macro objects have, and
// their attribute values. The methods themselves are in str_methods.cpp and methods.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

#include "rows/template/builtin_ids.h"
#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/methods.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

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

}  // namespace

int attr_id(std::string_view name) {
  static const std::unordered_map<std::string_view, int> table = [] {
    std::unordered_map<std::string_view, int> t;
    for (int i = 0; i < a_count_of_ids; ++i) t.emplace(kAttrNames[i], i);
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
