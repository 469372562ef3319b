// Jinja2's builtin filters table (jinja2/filters.py FILTERS = {"abs": abs, "attr": do_attr, ...}, 3.1) with
// transformers' tojson, and the helpers the filters share (soft_str, make_attrgetter, generators).
#include "rows/template/filters.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>

#include "rows/template/builtin_ids.h"
#include "rows/template/failure.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/resolve.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

const char* const kFilterNames[] = {
    "abs",       "attr",       "batch",       "capitalize", "center",  "count",
    "d",         "default",    "dictsort",    "e",          "escape",  "filesizeformat",
    "first",     "float",      "forceescape", "format",     "groupby", "indent",
    "int",       "join",       "last",        "length",     "list",    "lower",
    "items",     "map",        "min",         "max",        "pprint",  "random",
    "reject",    "rejectattr", "replace",     "reverse",    "round",   "safe",
    "select",    "selectattr", "slice",       "sort",       "string",  "striptags",
    "sum",       "title",      "trim",        "truncate",   "unique",  "upper",
    "urlencode", "urlize",     "wordcount",   "wordwrap",   "xmlattr", "tojson",
};
static_assert(sizeof(kFilterNames) / sizeof(kFilterNames[0]) == f_count_of_filters, "filter table");

constexpr std::array<FilterFn, f_count_of_filters> kFilters = [] {
  std::array<FilterFn, f_count_of_filters> t{};
  t[f_abs] = do_abs;
  t[f_attr] = do_attr;
  t[f_batch] = do_batch;
  t[f_capitalize] = do_capitalize;
  t[f_center] = do_center;
  t[f_count] = do_length;
  t[f_d] = do_default;
  t[f_default] = do_default;
  t[f_dictsort] = do_dictsort;
  t[f_e] = do_escape;
  t[f_escape] = do_escape;
  t[f_filesizeformat] = do_filesizeformat;
  t[f_first] = do_first;
  t[f_float] = do_float;
  t[f_forceescape] = do_forceescape;
  t[f_format] = do_format;
  t[f_groupby] = do_groupby;
  t[f_indent] = do_indent;
  t[f_int] = do_int;
  t[f_join] = do_join;
  t[f_last] = do_last;
  t[f_length] = do_length;
  t[f_list] = do_list;
  t[f_lower] = do_lower;
  t[f_items] = do_items;
  t[f_map] = do_map;
  t[f_min] = do_min;
  t[f_max] = do_max;
  t[f_pprint] = do_pprint;
  t[f_random] = do_random;
  t[f_reject] = do_reject;
  t[f_rejectattr] = do_rejectattr;
  t[f_replace] = do_replace;
  t[f_reverse] = do_reverse;
  t[f_round] = do_round;
  t[f_safe] = do_mark_safe;
  t[f_select] = do_select;
  t[f_selectattr] = do_selectattr;
  t[f_slice] = do_slice;
  t[f_sort] = do_sort;
  t[f_string] = do_string;
  t[f_striptags] = do_striptags;
  t[f_sum] = do_sum;
  t[f_title] = do_title;
  t[f_trim] = do_trim;
  t[f_truncate] = do_truncate;
  t[f_unique] = do_unique;
  t[f_upper] = do_upper;
  t[f_urlencode] = do_urlencode;
  t[f_urlize] = do_urlize;
  t[f_wordcount] = do_wordcount;
  t[f_wordwrap] = do_wordwrap;
  t[f_xmlattr] = do_xmlattr;
  t[f_tojson] = do_tojson;
  return t;
}();
static_assert(every_entry_set(kFilters), "every FilterId has a filter function");

// A generator over precomputed items (single pass, like a Python generator).
struct VecIter final : IterObj {
  std::vector<Value> items;
  std::size_t pos = 0;
  bool next(Interp&, Value& out) override {
    if (pos >= items.size()) return false;
    out = std::move(items[pos++]);
    return true;
  }
};

// _prepare_attribute_parts
std::vector<Value> attribute_parts(const Value* attr) {
  std::vector<Value> parts;
  if (attr == nullptr || attr->is(Kind::None)) return parts;
  if (attr->is_str()) {
    std::string_view s = attr->str();
    std::string_view dot = ".";
    for (auto p : pystr::split(s, &dot, -1)) {
      bool digits = !p.empty();
      for (std::size_t i = 0; i < p.size();) {
        if (!py_isdigit(next_cp(p, i))) digits = false;
      }
      if (digits && is_ascii(p)) {
        std::int64_t v = 0;
        for (char c : p) v = checked_add(checked_mul(v, 10), c - '0');
        parts.push_back(Value::integer(v));
      } else {
        parts.push_back(Value::view_of(*attr, p));
      }
    }
    return parts;
  }
  parts.push_back(*attr);
  return parts;
}

}  // namespace

Value soft_str(const Value& v) {
  if (v.is_str()) return v;
  return Value::string(to_str(v));
}

Value make_gen(std::vector<Value> items, const char* type) {
  charge_alloc(items.size() * sizeof(Value));
  auto g = Rc<VecIter>::adopt(new VecIter());
  std::uint32_t d = 0;
  for (const auto& x : items) d = std::max(d, value_depth(x));
  check_value_depth(d + 1);
  g->depth = d + 1;
  g->items = std::move(items);
  g->py_type = type;
  return Value::object(Kind::Iterator, g.get());
}

bool arg_true(const Value* v, bool dflt) { return v == nullptr ? dflt : truthy(*v); }

std::int64_t arg_int(const Value* v, std::int64_t dflt, const char* what) {
  if (v == nullptr) return dflt;
  if (!v->is_int_like())
    fail(PyError::TypeError, "'" + type_name(*v) + "' object cannot be interpreted as an integer (" + what + ")");
  return v->as_int();
}

Value ignore_case(const Value& v) {
  if (v.is_str()) return Value::string(py_lower(v.str()));
  return v;
}

Value AttrGetter::operator()(Interp& in, Value item) const {
  for (const auto& part : parts) {
    item = in.getitem(item, part);
    if (has_default && item.is_undefined()) item = dflt;
  }
  return lower ? ignore_case(item) : item;
}

AttrGetter make_attrgetter(const Value* attribute, bool lower, const Value* dflt) {
  AttrGetter g;
  g.parts = attribute_parts(attribute);
  g.lower = lower;
  if (dflt != nullptr && !dflt->is(Kind::None)) {
    g.dflt = *dflt;
    g.has_default = true;
  }
  return g;
}

int filter_id(const std::string& name) {
  static const std::unordered_map<std::string, int> table = [] {
    std::unordered_map<std::string, int> t;
    for (int i = 0; i < f_count_of_filters; ++i) t.emplace(kFilterNames[i], i);
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? -1 : it->second;
}

Value apply_filter(Interp& in, int id, const Value& value, Args& args) {
  if (id < 0 || id >= f_count_of_filters) fail(PyError::RuntimeError, "internal error: unknown filter id");
  return kFilters[static_cast<std::size_t>(id)](in, value, args);
}

}  // namespace openrecipes::rows::template_engine
