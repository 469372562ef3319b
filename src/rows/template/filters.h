// Jinja2's builtin filters (jinja2/filters.py FILTERS) as one function per filter, `do_<name>` like Jinja2's,
// registered by FilterId in filters.cpp; the helpers the filter files share (soft_str, attribute getters,
// generators).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rows/template/interp.h"
#include "rows/template/objects.h"
#include "rows/template/value.h"

namespace openrecipes::rows::template_engine {

/// A filter: `value|name(*args, **kwargs)`.
using FilterFn = Value (*)(Interp& in, const Value& value, Args& args);

// ---- shared by the filter files (filters.cpp) ----

/// soft_str: str(value), keeping Markup.
Value soft_str(const Value& v);
/// A generator over precomputed items (single pass, like a Python generator) of Python type `type`.
Value make_gen(std::vector<Value> items, const char* type = "generator");
/// An optional boolean argument (`dflt` when not given).
bool arg_true(const Value* v, bool dflt);
/// An optional integer argument (`dflt` when not given); TypeError for non-integers.
std::int64_t arg_int(const Value* v, std::int64_t dflt, const char* what);
/// x.lower() for strings, x otherwise (Jinja2's ignore_case).
Value ignore_case(const Value& v);

/// jinja2.filters.make_attrgetter: item lookup along "a.0.b" (digits become int indexes), optionally lowered,
/// with an optional default for Undefined results.
struct AttrGetter {
  std::vector<Value> parts;
  bool lower = false;
  Value dflt;
  bool has_default = false;
  Value operator()(Interp& in, Value item) const;
};
AttrGetter make_attrgetter(const Value* attribute, bool lower, const Value* dflt = nullptr);

/// Python float(str); returns false on ValueError (filters_num.cpp).
bool parse_py_float(std::string_view s, double& out);

// ---- numbers (filters_num.cpp) ----
Value do_abs(Interp& in, const Value& value, Args& args);
Value do_float(Interp& in, const Value& value, Args& args);
Value do_int(Interp& in, const Value& value, Args& args);
Value do_round(Interp& in, const Value& value, Args& args);

// ---- text (filters_text.cpp) ----
Value do_capitalize(Interp& in, const Value& value, Args& args);
Value do_center(Interp& in, const Value& value, Args& args);
Value do_escape(Interp& in, const Value& value, Args& args);
Value do_forceescape(Interp& in, const Value& value, Args& args);
Value do_filesizeformat(Interp& in, const Value& value, Args& args);
Value do_format(Interp& in, const Value& value, Args& args);
Value do_indent(Interp& in, const Value& value, Args& args);
Value do_lower(Interp& in, const Value& value, Args& args);
Value do_upper(Interp& in, const Value& value, Args& args);
Value do_pprint(Interp& in, const Value& value, Args& args);
Value do_replace(Interp& in, const Value& value, Args& args);
Value do_mark_safe(Interp& in, const Value& value, Args& args);
Value do_string(Interp& in, const Value& value, Args& args);
Value do_striptags(Interp& in, const Value& value, Args& args);
Value do_title(Interp& in, const Value& value, Args& args);
Value do_trim(Interp& in, const Value& value, Args& args);
Value do_truncate(Interp& in, const Value& value, Args& args);
Value do_urlencode(Interp& in, const Value& value, Args& args);
Value do_urlize(Interp& in, const Value& value, Args& args);
Value do_wordcount(Interp& in, const Value& value, Args& args);
Value do_wordwrap(Interp& in, const Value& value, Args& args);
Value do_xmlattr(Interp& in, const Value& value, Args& args);
Value do_tojson(Interp& in, const Value& value, Args& args);

// ---- sequences and mappings (filters_seq.cpp) ----
Value do_attr(Interp& in, const Value& value, Args& args);
Value do_batch(Interp& in, const Value& value, Args& args);
Value do_length(Interp& in, const Value& value, Args& args);
Value do_default(Interp& in, const Value& value, Args& args);
Value do_dictsort(Interp& in, const Value& value, Args& args);
Value do_first(Interp& in, const Value& value, Args& args);
Value do_groupby(Interp& in, const Value& value, Args& args);
Value do_join(Interp& in, const Value& value, Args& args);
Value do_last(Interp& in, const Value& value, Args& args);
Value do_list(Interp& in, const Value& value, Args& args);
Value do_items(Interp& in, const Value& value, Args& args);
Value do_map(Interp& in, const Value& value, Args& args);
Value do_min(Interp& in, const Value& value, Args& args);
Value do_max(Interp& in, const Value& value, Args& args);
Value do_random(Interp& in, const Value& value, Args& args);
Value do_reject(Interp& in, const Value& value, Args& args);
Value do_rejectattr(Interp& in, const Value& value, Args& args);
Value do_select(Interp& in, const Value& value, Args& args);
Value do_selectattr(Interp& in, const Value& value, Args& args);
Value do_reverse(Interp& in, const Value& value, Args& args);
Value do_slice(Interp& in, const Value& value, Args& args);
Value do_sort(Interp& in, const Value& value, Args& args);
Value do_sum(Interp& in, const Value& value, Args& args);
Value do_unique(Interp& in, const Value& value, Args& args);

}  // namespace openrecipes::rows::template_engine
