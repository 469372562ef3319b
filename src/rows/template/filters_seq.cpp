// Jinja2's sequence and mapping filters (jinja2/filters.py, 3.1: map, select/reject, unique, sort, groupby,
// dictsort, min/max, sum, join, batch, slice, ...), including the lazy generators map/select/reject/unique
// return and Python's sort/min/max semantics.
#include <algorithm>
#include <string>
#include <vector>

#include "rows/template/failure.h"
#include "rows/template/filters.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/resolve.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

// make_multi_attrgetter: a list key (one entry per comma-separated attribute).
Value multi_key(Interp& in, const Value* attribute, bool lower, const Value& item) {
  std::vector<Value> keys;
  if (attribute != nullptr && attribute->is_str()) {
    std::string_view comma = ",";
    for (auto piece : pystr::split(attribute->str(), &comma, -1)) {
      Value sub = Value::view_of(*attribute, piece);
      AttrGetter g = make_attrgetter(&sub, lower);
      keys.push_back(g(in, item));
    }
  } else {
    AttrGetter g = make_attrgetter(attribute, lower);
    keys.push_back(g(in, item));
  }
  return Value::new_list(std::move(keys));
}

// Lazy generator of do_map: applies a filter or an attribute getter to each item.
struct MapIter final : IterObj {
  Cursor src;
  bool prepared = false;
  Value input;
  Args args;
  AttrGetter getter;
  bool by_attr = false;
  int filter = -1;
  std::string filter_name;
  bool next(Interp& in, Value& out) override {
    if (!prepared) {
      prepared = true;
      if (!truthy(input)) {
        src = Cursor();
        return false;
      }
      if (args.pos.empty() && args.kwarg("attribute") != nullptr) {
        const Value* attribute = args.kwarg("attribute");
        const Value* dflt = args.kwarg("default");
        for (const auto& kv : args.kw)
          if (kv.first != "attribute" && kv.first != "default")
            fail(PyError::FilterArgumentError, "Unexpected keyword argument '" + kv.first + "'");
        getter = make_attrgetter(attribute, false, dflt);
        by_attr = true;
      } else {
        if (args.pos.empty()) fail(PyError::FilterArgumentError, "map requires a filter argument");
        filter_name = to_str(args.pos[0]);
        filter = filter_id(filter_name);
        args.pos.erase(args.pos.begin());
        if (filter < 0) fail(PyError::TemplateRuntimeError, "No filter named '" + filter_name + "'.");
      }
      src = in.iter(input);
    }
    Value item;
    if (!in.next(src, item)) return false;
    in.step();
    if (by_attr) {
      out = getter(in, item);
    } else {
      Args copy = args;
      out = in.call_filter(filter, filter_name, item, copy);
    }
    return true;
  }
};

// Lazy generator of select/reject/selectattr/rejectattr.
struct SelectIter final : IterObj {
  Cursor src;
  bool prepared = false;
  Value input;
  Args args;
  bool reject = false, lookup_attr = false;
  AttrGetter getter;
  int test = -1;
  bool use_test = false;
  std::string test_name;
  bool next(Interp& in, Value& out) override {
    if (!prepared) {
      prepared = true;
      if (!truthy(input)) return false;
      std::size_t off = 0;
      if (lookup_attr) {
        if (args.pos.empty()) fail(PyError::FilterArgumentError, "Missing parameter for attribute name");
        getter = make_attrgetter(&args.pos[0], false);
        off = 1;
      }
      if (args.pos.size() > off) {
        test_name = to_str(args.pos[off]);
        test = test_id(test_name);
        use_test = true;
        args.pos.erase(args.pos.begin(), args.pos.begin() + static_cast<std::ptrdiff_t>(off + 1));
      }
      src = in.iter(input);
    }
    Value item;
    while (in.next(src, item)) {
      in.step();
      Value probe = lookup_attr ? getter(in, item) : item;
      bool r;
      if (use_test) {
        Args copy = args;
        if (test < 0) fail(PyError::TemplateRuntimeError, "No test named '" + test_name + "'.");
        r = in.call_test(test, test_name, probe, copy);
      } else {
        r = truthy(probe);
      }
      if (r != reject) {
        out = std::move(item);
        return true;
      }
    }
    return false;
  }
};

struct UniqueIter final : IterObj {
  Cursor src;
  AttrGetter getter;
  std::vector<Value> seen;
  bool next(Interp& in, Value& out) override {
    Value item;
    while (in.next(src, item)) {
      Value key = getter(in, item);
      if (!is_hashable(key)) fail(PyError::TypeError, "unhashable type: '" + type_name(key) + "'");
      bool dup = false;
      in.step(seen.size() + 1);
      for (const auto& s : seen)
        if (py_eq(s, key)) {
          dup = true;
          break;
        }
      if (!dup) {
        seen.push_back(key);
        out = std::move(item);
        return true;
      }
    }
    return false;
  }
};

void stable_sort_by_key(Interp& in, std::vector<std::pair<Value, Value>>& items, bool reverse) {
  in.step(items.size() * 8);
  std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
    return reverse ? py_order(b.first, a.first, CmpOp::Lt) : py_order(a.first, b.first, CmpOp::Lt);
  });
}

Value min_max(Interp& in, const Value& value, const Value* case_sensitive, const Value* attribute, bool is_max) {
  std::vector<Value> items = in.to_vector(value);
  if (items.empty()) return Value::undefined_hint("No aggregated item, sequence was empty.");
  AttrGetter g = make_attrgetter(attribute, !arg_true(case_sensitive, false));
  std::size_t best = 0;
  Value best_key = g(in, items[0]);
  for (std::size_t i = 1; i < items.size(); ++i) {
    Value k = g(in, items[i]);
    // CPython min_max: item < current (min) or item > current (max); the first extreme item wins.
    bool better = is_max ? py_order(k, best_key, CmpOp::Gt) : py_order(k, best_key, CmpOp::Lt);
    if (better) {
      best = i;
      best_key = std::move(k);
    }
  }
  return items[best];
}

Value py_sum(Interp& in, const Value& iterable, const Value* attribute, const Value* start) {
  Value acc = start ? *start : Value::integer(0);
  if (acc.is_str()) fail(PyError::TypeError, "sum() can't sum strings [use ''.join(seq) instead]");
  AttrGetter g = make_attrgetter(attribute, false);
  Cursor c = in.iter(iterable);
  Value item;
  while (in.next(c, item)) {
    in.step();
    Value v = attribute ? g(in, item) : item;
    acc = py_binary(BinOp::Add, acc, v);
  }
  return acc;
}

bool is_mapping(const Value& v) { return v.is(Kind::Dict); }

Value make_select(const Value& value, const Args& a, bool reject, bool lookup_attr) {
  auto it = Rc<SelectIter>::adopt(new SelectIter());
  it->depth = value_depth(value) + 1;
  check_value_depth(it->depth);
  it->input = value;
  it->args = a;
  it->reject = reject;
  it->lookup_attr = lookup_attr;
  return Value::object(Kind::Iterator, it.get());
}

}  // namespace

Value do_attr(Interp& in, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {"name"}, p, "do_attr", 1);
  if (value.is_undefined()) fail_undefined(value);
  std::string name = to_str(*p[0]);
  if (!has_python_attr(value, name)) {
    auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
    info->obj_type = object_type_repr(value);
    std::string r;
    append_str_repr(r, name);
    info->name = r;
    return Value::undefined_info(std::move(info));
  }
  return in.getattr(value, name, attr_id(name));
}

Value do_batch(Interp& in, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"linecount", "fill_with"}, p, "do_batch", 1);
  std::int64_t n = arg_int(p[0], 0, "linecount");
  std::vector<Value> out, tmp;
  Cursor c = in.iter(value);
  Value item;
  while (in.next(c, item)) {
    in.step();
    if (static_cast<std::int64_t>(tmp.size()) == n) {
      out.push_back(Value::new_list(std::move(tmp)));
      tmp.clear();
    }
    tmp.push_back(item);
  }
  if (!tmp.empty()) {
    if (p[1] != nullptr && !p[1]->is(Kind::None))
      while (static_cast<std::int64_t>(tmp.size()) < n) tmp.push_back(*p[1]);
    out.push_back(Value::new_list(std::move(tmp)));
  }
  return make_gen(std::move(out));
}

Value do_length(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "len");
  if (value.is(Kind::Iterator)) fail(PyError::TypeError, "object of type '" + type_name(value) + "' has no len()");
  return Value::integer(static_cast<std::int64_t>(py_len(value)));
}

Value do_default(Interp&, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"default_value", "boolean"}, p, "do_default");
  bool use = value.is_undefined() || (arg_true(p[1], false) && !truthy(value));
  if (use) return p[0] ? *p[0] : Value::borrowed(std::string_view());
  return value;
}

Value do_dictsort(Interp& in, const Value& value, Args& a) {
  const Value* p[3];
  bind_args(a, {"case_sensitive", "by", "reverse"}, p, "do_dictsort");
  std::string by = p[1] ? to_str(*p[1]) : "key";
  if (by != "key" && by != "value")
    fail(PyError::FilterArgumentError, "You can only sort by either \"key\" or \"value\"");
  if (!value.is(Kind::Dict)) {
    if (value.is_undefined()) fail_undefined(value);
    fail(PyError::AttributeError, "'" + type_name(value) + "' object has no attribute 'items'");
  }
  bool cs = arg_true(p[0], false);
  std::vector<std::pair<Value, Value>> keyed;
  for (const auto& kv : value.dict().items) {
    Value item = Value::new_tuple({kv.first, kv.second});
    Value k = by == "key" ? kv.first : kv.second;
    keyed.emplace_back(cs ? k : ignore_case(k), item);
  }
  stable_sort_by_key(in, keyed, arg_true(p[2], false));
  std::vector<Value> out;
  for (auto& kv : keyed) out.push_back(std::move(kv.second));
  return Value::new_list(std::move(out));
}

Value do_first(Interp& in, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_first");
  Cursor c = in.iter(value);
  Value item;
  if (in.next(c, item)) return item;
  return Value::undefined_hint("No first item, sequence was empty.");
}

Value do_groupby(Interp& in, const Value& value, Args& a) {
  const Value* p[3];
  bind_args(a, {"attribute", "default", "case_sensitive"}, p, "do_groupby", 1);
  bool cs = arg_true(p[2], false);
  AttrGetter key = make_attrgetter(p[0], !cs, p[1]);
  std::vector<std::pair<Value, Value>> keyed;
  for (auto& item : in.to_vector(value)) {
    Value k = key(in, item);
    keyed.emplace_back(std::move(k), std::move(item));
  }
  stable_sort_by_key(in, keyed, false);
  AttrGetter out_key = make_attrgetter(p[0], false, p[1]);
  std::vector<Value> groups;
  std::size_t i = 0;
  while (i < keyed.size()) {
    std::size_t j = i + 1;
    while (j < keyed.size() && py_eq(keyed[j].first, keyed[i].first)) ++j;
    std::vector<Value> members;
    for (std::size_t k = i; k < j; ++k) members.push_back(keyed[k].second);
    Value grouper = cs ? keyed[i].first : out_key(in, members[0]);
    Value t = Value::new_tuple({grouper, Value::new_list(std::move(members))});
    t.list().flavor = ListFlavor::GroupTuple;
    groups.push_back(std::move(t));
    i = j;
  }
  return Value::new_list(std::move(groups));
}

Value do_join(Interp& in, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"d", "attribute"}, p, "do_join");
  std::string d = p[0] ? to_str(*p[0]) : "";
  std::vector<Value> items = in.to_vector(value);
  AttrGetter g = make_attrgetter(p[1], false);
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += d;
    append_str(out, p[1] ? g(in, items[i]) : items[i]);
    if (out.size() > in.options().limits.max_output_bytes) in.check_output(out);
  }
  in.work(out.size());
  return Value::string(out);
}

Value do_last(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_last");
  if (value.is_undefined()) return Value::undefined_hint("No last item, sequence was empty.");
  if (value.is_str()) {
    std::string_view s = value.str();
    if (s.empty()) return Value::undefined_hint("No last item, sequence was empty.");
    std::size_t i = s.size();
    prev_cp(s, i);
    return Value::substr(value, i, s.size() - i);
  }
  if (value.is_seq()) {
    const auto& items = value.list().items;
    if (items.empty()) return Value::undefined_hint("No last item, sequence was empty.");
    return items.back();
  }
  if (value.is(Kind::Dict)) {
    const auto& items = value.dict().items;
    if (items.empty()) return Value::undefined_hint("No last item, sequence was empty.");
    return items.back().first;
  }
  fail(PyError::TypeError, "'" + type_name(value) + "' object is not reversible");
}

Value do_list(Interp& in, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "list");
  return Value::new_list(in.to_vector(value));
}

Value do_items(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_items");
  if (value.is_undefined()) return make_gen({});
  if (!is_mapping(value)) fail(PyError::TypeError, "Can only get item pairs from a mapping.");
  std::vector<Value> out;
  for (const auto& kv : value.dict().items) out.push_back(Value::new_tuple({kv.first, kv.second}));
  return make_gen(std::move(out));
}

Value do_map(Interp&, const Value& value, Args& a) {
  auto it = Rc<MapIter>::adopt(new MapIter());
  it->depth = value_depth(value) + 1;
  check_value_depth(it->depth);
  it->input = value;
  it->args = a;
  return Value::object(Kind::Iterator, it.get());
}

Value do_min(Interp& in, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"case_sensitive", "attribute"}, p, "do_min");
  return min_max(in, value, p[0], p[1], false);
}

Value do_max(Interp& in, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"case_sensitive", "attribute"}, p, "do_max");
  return min_max(in, value, p[0], p[1], true);
}

Value do_random(Interp&, const Value&, Args&) {
  fail(PyError::Unsupported, "|random is not deterministic; not supported");
}

Value do_reverse(Interp& in, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_reverse");
  if (value.is_str()) return Value::string(pystr::slice(value.str(), std::nullopt, std::nullopt, -1), value.is_safe());
  if (value.is_seq() || value.is(Kind::Dict) || value.is_undefined()) {
    std::vector<Value> items = in.to_vector(value);
    std::reverse(items.begin(), items.end());
    const char* t = value.is(Kind::Tuple)  ? "reversed"
                    : value.is(Kind::Dict) ? "dict_reversekeyiterator"
                                           : "list_reverseiterator";
    return make_gen(std::move(items), t);
  }
  if (value.is_number() || value.is(Kind::None) || value.is(Kind::Namespace) || value.is(Kind::Macro) ||
      value.is(Kind::Builtin) || value.is(Kind::Method) || value.is(Kind::Cycler) || value.is(Kind::Joiner))
    fail(PyError::FilterArgumentError, "argument must be iterable");
  std::vector<Value> items = in.to_vector(value);
  std::reverse(items.begin(), items.end());
  return Value::new_list(std::move(items));
}

Value do_slice(Interp& in, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"slices", "fill_with"}, p, "do_slice", 1);
  std::int64_t slices = arg_int(p[0], 1, "slices");
  if (slices == 0) fail(PyError::ZeroDivisionError, "integer division or modulo by zero");
  if (slices > 100000) fail(PyError::LimitExceeded, "|slice count too large");
  std::vector<Value> seq = in.to_vector(value);
  auto length = static_cast<std::int64_t>(seq.size());
  std::int64_t per = length / slices, extra = length % slices, offset = 0;
  if (per < 0 || extra < 0) fail(PyError::Unsupported, "negative |slice counts are not supported");
  std::vector<Value> out;
  for (std::int64_t k = 0; k < slices; ++k) {
    std::int64_t start = offset + k * per;
    if (k < extra) ++offset;
    std::int64_t end = offset + (k + 1) * per;
    std::vector<Value> tmp(seq.begin() + start, seq.begin() + end);
    if (p[1] != nullptr && !p[1]->is(Kind::None) && k >= extra) tmp.push_back(*p[1]);
    out.push_back(Value::new_list(std::move(tmp)));
  }
  return make_gen(std::move(out));
}

Value do_sort(Interp& in, const Value& value, Args& a) {
  const Value* p[3];
  bind_args(a, {"reverse", "case_sensitive", "attribute"}, p, "do_sort");
  bool lower = !arg_true(p[1], false);
  std::vector<std::pair<Value, Value>> keyed;
  for (auto& item : in.to_vector(value)) {
    Value k = multi_key(in, p[2], lower, item);
    keyed.emplace_back(std::move(k), std::move(item));
  }
  stable_sort_by_key(in, keyed, arg_true(p[0], false));
  std::vector<Value> out;
  for (auto& kv : keyed) out.push_back(std::move(kv.second));
  return Value::new_list(std::move(out));
}

Value do_sum(Interp& in, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"attribute", "start"}, p, "do_sum");
  return py_sum(in, value, p[0], p[1]);
}

Value do_unique(Interp& in, const Value& value, Args& a) {
  const Value* p[2];
  bind_args(a, {"case_sensitive", "attribute"}, p, "do_unique");
  auto it = Rc<UniqueIter>::adopt(new UniqueIter());
  it->depth = value_depth(value) + 1;
  check_value_depth(it->depth);
  it->src = in.iter(value);
  it->getter = make_attrgetter(p[1], !arg_true(p[0], false));
  return Value::object(Kind::Iterator, it.get());
}

Value do_select(Interp&, const Value& value, Args& a) { return make_select(value, a, false, false); }

Value do_reject(Interp&, const Value& value, Args& a) { return make_select(value, a, true, false); }

Value do_selectattr(Interp&, const Value& value, Args& a) { return make_select(value, a, false, true); }

Value do_rejectattr(Interp&, const Value& value, Args& a) { return make_select(value, a, true, true); }

}  // namespace openrecipes::rows::template_engine
