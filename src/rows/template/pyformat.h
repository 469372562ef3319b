// Python text formatting used by chat templates: json.dumps as transformers' tojson filter calls it (pyjson.cpp),
// printf-style `str % args` (pypercent.cpp), str.format through Jinja2's sandboxed formatter (pyformat.cpp), and
// datetime.strftime for strftime_now (pystrftime.cpp) (CPython 3.11 behaviour).
#pragma once

#include <string>
#include <string_view>

#include "rows/template/value.h"

namespace openrecipes::rows::template_engine {

class Interp;

/// json.dumps(v, ensure_ascii, indent, separators, sort_keys) (transformers' tojson). `indent` is None (compact),
/// an int (spaces) or a str; `separators` None or a 2-item list/tuple of str. Throws TypeError like Python for
/// values that are not JSON serializable (Undefined, generators, namespaces...).
std::string json_dumps(const Value& v, bool ensure_ascii, const Value& indent, const Value& separators, bool sort_keys);

/// `fmt % args` (PyUnicode_Format): args is a tuple, a mapping (for %(name)s), or a single value. With
/// `escape_args` (the format string is a Markup), %s/%r/%a text from non-Markup arguments is HTML-escaped.
std::string percent_format(std::string_view fmt, const Value& args, bool escape_args = false);

/// ascii(x): repr(x) with non-ASCII characters as \x, \u or \U escapes (pypercent.cpp).
std::string ascii_repr(const Value& v);

/// str.format(*args, **kwargs) with field access through the sandbox (Interp::getattr/getitem).
struct Args;
std::string str_format(Interp& in, std::string_view fmt, const Args& args);

/// format(value, spec) for str/int/float/bool (Python's format mini-language); other types need an empty spec.
std::string format_value(const Value& v, std::string_view spec);

/// datetime.strftime(fmt) for the date `today` (YYYY-MM-DD) at 00:00:00, naive (%z, %Z empty, %f 000000).
std::string strftime_date(std::string_view today, std::string_view fmt);

}  // namespace openrecipes::rows::template_engine
