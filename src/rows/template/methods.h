// The methods of Python's builtin types as the sandbox calls them (str in str_methods.cpp; list, tuple, dict, int,
// float and Jinja2's LoopContext and Cycler in methods.cpp): one function per method, registered by AttrId.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rows/template/builtin_ids.h"
#include "rows/template/interp.h"
#include "rows/template/value.h"

namespace openrecipes::rows::template_engine {

/// A bound method call: `self.name(*args, **kwargs)`.
using MethodFn = Value (*)(Interp& in, const Value& self, Args& args);

/// The methods of one type by AttrId (null: not a method of the type, or one the engine does not implement).
using MethodTable = std::array<MethodFn, a_count_of_ids>;

/// table[id](in, self, args), or Unsupported "<type>.<name>() is not supported by this engine" when the table
/// has no entry (`type` is "str", "list", "tuple" or "dict").
Value call_in_table(const MethodTable& table, const char* type, Interp& in, const Value& self, int id, Args& args);

/// self.<id>(*args) for a method the sandbox found safe (member_of() said Method); `self` is a str, list, tuple,
/// dict, int, bool, float, LoopContext or Cycler. Methods the engine does not implement fail with Unsupported.
Value call_method(Interp& in, const Value& self, int id, Args& args);
/// str.<id>(*args) (str_methods.cpp).
Value call_str_method(Interp& in, const Value& self, int id, Args& args);

// ---- argument checks shared by the method files, with CPython's TypeError texts ----

/// A str argument, or TypeError "<what> must be str, not <type>".
std::string_view need_str(const Value* v, const char* what);
/// An int argument, or TypeError "'<type>' object cannot be interpreted as an integer".
std::int64_t need_int(const Value* v, const char* what);
/// An optional slice index (None or absent: nullopt).
std::optional<std::int64_t> opt_index(const Value* v);
/// The `chars` argument of str.strip/lstrip/rstrip and Jinja2's |trim: null for None or absent (strip
/// whitespace), else the str, kept in `storage`; TypeError "strip arg must be None or str" otherwise.
const std::string_view* strip_chars(const Value* v, std::string_view& storage);
/// Fails with TypeError "<fn>() takes no arguments (N given)" when any argument is given.
void no_args(const Args& a, const std::string& fn);

}  // namespace openrecipes::rows::template_engine
