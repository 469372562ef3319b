// Python's str methods (CPython 3.11 Objects/unicodeobject.c: upper, split, startswith, find, replace, join,
// center, partition, isalnum, format, ...) as the sandbox calls them, with markupsafe's Markup escaping for
// replace and join: one function per method, registered by AttrId.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "rows/template/builtin_ids.h"
#include "rows/template/failure.h"
#include "rows/template/methods.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

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

// str.upper(), str.lower(), ...: `self` mapped by CPython's case mapping, keeping Markup.
template <AttrId ID, std::string (*Map)(std::string_view)>
Value str_case(Interp&, const Value& self, Args& a) {
  no_args(a, std::string("str.") + kAttrNames[ID]);
  return Value::string(Map(self.str()), self.is_safe());
}

// str.isalnum(), str.isdigit(), ...: every character has the property (and the string is not empty).
template <AttrId ID, bool (*Pred)(char32_t)>
Value str_is_all(Interp&, const Value& self, Args& a) {
  no_args(a, std::string("str.") + kAttrNames[ID]);
  return Value::boolean(py_str_all(self.str(), Pred));
}

// str.isascii(), str.islower(), str.isupper(), str.istitle(): a property of the whole string.
template <AttrId ID, bool (*Pred)(std::string_view)>
Value str_is(Interp&, const Value& self, Args& a) {
  no_args(a, std::string("str.") + kAttrNames[ID]);
  return Value::boolean(Pred(self.str()));
}

template <AttrId ID>
Value str_strip(Interp&, const Value& self, Args& a) {
  const Value* p[1];
  const std::string fn = std::string("str.") + kAttrNames[ID];
  bind_args(a, {"chars"}, p, fn.c_str());
  std::string_view cv;
  const std::string_view* chars = strip_chars(p[0], cv);
  std::string_view r = pystr::strip(self.str(), chars, ID != a_rstrip, ID != a_lstrip);
  return Value::view_of(self, r);
}

template <AttrId ID>
Value str_split(Interp& in, const Value& self, Args& a) {
  std::string_view s = self.str();
  const Value* p[2];
  const std::string fn = std::string("str.") + kAttrNames[ID];
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
  auto parts = ID == a_split ? pystr::split(s, sep, maxsplit) : pystr::rsplit(s, sep, maxsplit);
  in.step(parts.size());
  return str_list(self, parts);
}

Value str_splitlines(Interp& in, const Value& self, Args& a) {
  const Value* p[1];
  bind_args(a, {"keepends"}, p, "str.splitlines");
  auto parts = pystr::splitlines(self.str(), p[0] != nullptr && truthy(*p[0]));
  in.step(parts.size());
  return str_list(self, parts);
}

template <AttrId ID>
Value str_startswith(Interp&, const Value& self, Args& a) {
  std::string_view s = self.str();
  const Value* p[3];
  const std::string fn = std::string("str.") + kAttrNames[ID];
  if (!a.kw.empty()) fail(PyError::TypeError, fn + "() takes no keyword arguments");
  bind_args(a, {"prefix", "start", "end"}, p, fn.c_str(), 1);
  bool ends = ID == a_endswith;
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

template <AttrId ID>
Value str_find(Interp&, const Value& self, Args& a) {
  std::string_view s = self.str();
  const Value* p[3];
  const std::string fn = std::string("str.") + kAttrNames[ID];
  if (!a.kw.empty()) fail(PyError::TypeError, fn + "() takes no keyword arguments");
  bind_args(a, {"sub", "start", "end"}, p, fn.c_str(), 1);
  if (!p[0]->is_str()) fail(PyError::TypeError, "must be str, not " + type_name(*p[0]));
  auto start = opt_index(p[1]), end = opt_index(p[2]);
  if (ID == a_count) return Value::integer(pystr::count(s, p[0]->str(), start, end));
  std::int64_t r = pystr::find(s, p[0]->str(), start, end, ID == a_rfind || ID == a_rindex);
  if (r < 0 && (ID == a_index || ID == a_rindex)) fail(PyError::ValueError, "substring not found");
  return Value::integer(r);
}

Value str_replace(Interp& in, const Value& self, Args& a) {
  std::string_view s = self.str();
  const bool safe = self.is_safe();
  const std::string fn = "str.replace";
  const Value* p[3];
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

Value str_join(Interp& in, const Value& self, Args& a) {
  const bool safe = self.is_safe();
  const Value* p[1];
  bind_args(a, {"iterable"}, p, "str.join", 1);
  std::vector<Value> items = in.to_vector(*p[0]);
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_str())
      fail(PyError::TypeError,
           "sequence item " + std::to_string(i) + ": expected str instance, " + type_name(items[i]) + " found");
    if (i) out.append(self.str());
    if (safe && !items[i].is_safe())
      out.append(html_escape(items[i].str()));  // Markup.join escapes its items
    else
      out.append(items[i].str());
    check_text_size(out.size());
  }
  in.work(out.size());
  return Value::string(out, safe);
}

template <AttrId ID>
Value str_pad(Interp& in, const Value& self, Args& a) {
  std::string_view s = self.str();
  const Value* p[2];
  const std::string fn = std::string("str.") + kAttrNames[ID];
  bind_args(a, {"width", "fillchar"}, p, fn.c_str(), 1);
  std::int64_t w = need_int(p[0], "width");
  if (w > static_cast<std::int64_t>(in.options().limits.max_alloc_bytes))
    fail(PyError::LimitExceeded, "padding width exceeds max_alloc_bytes");
  char32_t f = fill_char(p[1]);
  std::string r = ID == a_center ? pystr::center(s, w, f) : pystr::ljust(s, w, f, ID == a_rjust);
  in.work(r.size());
  return Value::string(r, self.is_safe());
}

Value str_zfill(Interp& in, const Value& self, Args& a) {
  const Value* p[1];
  bind_args(a, {"width"}, p, "str.zfill", 1);
  std::int64_t w = need_int(p[0], "width");
  if (w > static_cast<std::int64_t>(in.options().limits.max_alloc_bytes))
    fail(PyError::LimitExceeded, "padding width exceeds max_alloc_bytes");
  return Value::string(pystr::zfill(self.str(), w), self.is_safe());
}

Value str_expandtabs(Interp& in, const Value& self, Args& a) {
  std::string_view s = self.str();
  const Value* p[1];
  bind_args(a, {"tabsize"}, p, "str.expandtabs");
  std::int64_t t = p[0] != nullptr ? need_int(p[0], "tabsize") : 8;
  if (t > 4096) fail(PyError::LimitExceeded, "expandtabs tab size too large");
  if (t > 0)
    check_text_size(s.size() +
                    static_cast<std::size_t>(t) * static_cast<std::size_t>(std::count(s.begin(), s.end(), '\t')));
  std::string r = pystr::expandtabs(s, t);
  in.work(r.size());
  return Value::string(r, self.is_safe());
}

template <AttrId ID>
Value str_partition(Interp&, const Value& self, Args& a) {
  std::string_view s = self.str();
  const Value* p[1];
  const std::string fn = std::string("str.") + kAttrNames[ID];
  bind_args(a, {"sep"}, p, fn.c_str(), 1);
  std::string_view sep = need_str(p[0], "partition() argument");
  if (sep.empty()) fail(PyError::ValueError, "empty separator");
  std::size_t f = ID == a_partition ? s.find(sep) : s.rfind(sep);
  std::vector<Value> items;
  if (f == std::string_view::npos) {
    if (ID == a_partition) {
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

template <AttrId ID>
Value str_removeaffix(Interp&, const Value& self, Args& a) {
  std::string_view s = self.str();
  const Value* p[1];
  const std::string fn = std::string("str.") + kAttrNames[ID];
  bind_args(a, {"affix"}, p, fn.c_str(), 1);
  std::string_view x = need_str(p[0], "argument");
  if (ID == a_removeprefix && s.substr(0, x.size()) == x) return Value::view_of(self, s.substr(x.size()));
  if (ID == a_removesuffix && !x.empty() && s.size() >= x.size() && s.substr(s.size() - x.size()) == x)
    return Value::view_of(self, s.substr(0, s.size() - x.size()));
  return self;
}

Value do_string_format(Interp& in, const Value& self, Args& a) {
  return Value::string(str_format(in, self.str(), a), self.is_safe());
}

Value do_string_format_map(Interp& in, const Value& self, Args& a) {
  if (!a.kw.empty()) fail(PyError::TypeError, "format_map() takes no keyword arguments");
  if (a.pos.size() != 1)
    fail(PyError::TypeError, "format_map() takes exactly one argument (" + std::to_string(a.pos.size()) + " given)");
  Args mapped;
  if (!a.pos[0].is(Kind::Dict)) fail(PyError::TypeError, "format_map() argument must be a mapping");
  for (const auto& kv : a.pos[0].dict().items)
    if (kv.first.is_str()) mapped.kw.emplace_back(std::string(kv.first.str()), kv.second);
  return Value::string(str_format(in, self.str(), mapped), self.is_safe());
}

// The str methods by AttrId (null: not a str method, or one the engine does not implement).
constexpr MethodTable kStrMethods = [] {
  MethodTable t{};
  t[a_upper] = str_case<a_upper, py_upper>;
  t[a_lower] = str_case<a_lower, py_lower>;
  t[a_title] = str_case<a_title, py_title>;
  t[a_capitalize] = str_case<a_capitalize, py_capitalize>;
  t[a_swapcase] = str_case<a_swapcase, py_swapcase>;
  t[a_casefold] = str_case<a_casefold, py_casefold>;
  t[a_strip] = str_strip<a_strip>;
  t[a_lstrip] = str_strip<a_lstrip>;
  t[a_rstrip] = str_strip<a_rstrip>;
  t[a_split] = str_split<a_split>;
  t[a_rsplit] = str_split<a_rsplit>;
  t[a_splitlines] = str_splitlines;
  t[a_startswith] = str_startswith<a_startswith>;
  t[a_endswith] = str_startswith<a_endswith>;
  t[a_find] = str_find<a_find>;
  t[a_rfind] = str_find<a_rfind>;
  t[a_index] = str_find<a_index>;
  t[a_rindex] = str_find<a_rindex>;
  t[a_count] = str_find<a_count>;
  t[a_replace] = str_replace;
  t[a_join] = str_join;
  t[a_center] = str_pad<a_center>;
  t[a_ljust] = str_pad<a_ljust>;
  t[a_rjust] = str_pad<a_rjust>;
  t[a_zfill] = str_zfill;
  t[a_expandtabs] = str_expandtabs;
  t[a_partition] = str_partition<a_partition>;
  t[a_rpartition] = str_partition<a_rpartition>;
  t[a_removeprefix] = str_removeaffix<a_removeprefix>;
  t[a_removesuffix] = str_removeaffix<a_removesuffix>;
  t[a_isalnum] = str_is_all<a_isalnum, py_isalnum>;
  t[a_isalpha] = str_is_all<a_isalpha, py_isalpha>;
  t[a_isdecimal] = str_is_all<a_isdecimal, py_isdecimal>;
  t[a_isdigit] = str_is_all<a_isdigit, py_isdigit>;
  t[a_isnumeric] = str_is_all<a_isnumeric, py_isnumeric>;
  t[a_isspace] = str_is_all<a_isspace, py_isspace>;
  t[a_isprintable] = str_is_all<a_isprintable, py_isprintable>;
  t[a_isascii] = str_is<a_isascii, is_ascii>;
  t[a_islower] = str_is<a_islower, py_islower>;
  t[a_isupper] = str_is<a_isupper, py_isupper>;
  t[a_istitle] = str_is<a_istitle, py_istitle>;
  t[a_format] = do_string_format;
  t[a_format_map] = do_string_format_map;
  return t;
}();

constexpr bool is_unsupported_str_method(int id) {
  return id == a_encode || id == a_isidentifier || id == a_maketrans || id == a_translate;
}

// Every str method id (a_capitalize..a_zfill) has a function, except the four the engine rejects.
constexpr bool str_table_complete() {
  for (int id = 0; id < a_count_of_ids; ++id) {
    bool is_str = id >= a_capitalize && id <= a_zfill && !is_unsupported_str_method(id);
    if ((kStrMethods[static_cast<std::size_t>(id)] != nullptr) != is_str) return false;
  }
  return true;
}
static_assert(str_table_complete(), "every supported str method id has a function");

}  // namespace

Value call_str_method(Interp& in, const Value& self, int id, Args& a) {
  in.work(self.str().size());
  return call_in_table(kStrMethods, "str", in, self, id, a);
}

}  // namespace openrecipes::rows::template_engine
