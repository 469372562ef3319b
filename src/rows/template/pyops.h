// Python semantics of values that do not need the interpreter: str(), repr(), bool(), ==, ordering, arithmetic,
// len(), type names and Jinja2's object_type_repr (CPython 3.11 and jinja2.utils behaviour).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rows/template/ast.h"
#include "rows/template/value.h"

namespace openrecipes::rows::template_engine {

/// Python type(x).__name__ ("str", "int", "NoneType", "dict", "Undefined", "Namespace", "LoopContext"...).
std::string type_name(const Value& v);
/// jinja2.utils.object_type_repr: "None", "dict object", "jinja2.utils.Namespace object"...
std::string object_type_repr(const Value& v);

/// bool(x).
bool truthy(const Value& v);
/// Appends str(x). Throws Unsupported for objects whose Python str() shows a memory address.
void append_str(std::string& out, const Value& v);
std::string to_str(const Value& v);
/// Appends CPython's escape of code point `c` as repr() writes a non-printable one: \xNN up to U+00FF, \uNNNN up
/// to U+FFFF, \UNNNNNNNN above.
void append_unicode_escape(std::string& out, char32_t c);
/// repr(x).
void append_repr(std::string& out, const Value& v);
std::string repr(const Value& v);
/// repr() of a str.
void append_str_repr(std::string& out, std::string_view s);
/// float.__repr__ (shortest round trip, Python's fixed/exponent choice).
std::string float_repr(double v);

/// Python ==.
bool py_eq(const Value& a, const Value& b);
/// Python <, <=, >, >= (TypeError for unorderable types; UndefinedError for Undefined).
bool py_order(const Value& a, const Value& b, CmpOp op);
/// Python `a in b` (TypeError when b is not a container; iterators are not accepted here).
bool py_contains(const Value& container, const Value& item);

/// Python + - * / // % ** on numbers, strings, lists, tuples (str % args is handled by the caller).
Value py_binary(BinOp op, const Value& a, const Value& b);
Value py_negate(const Value& v, bool negative);

/// hash(x) works: not a list, dict or dict view (nor a tuple containing one).
bool is_hashable(const Value& v);

/// len(x), or fails with TypeError "object of type 'int' has no len()".
std::size_t py_len(const Value& v);
/// Whether len(x) works (used by tests and loop.length).
bool has_len(const Value& v);

/// Raises the UndefinedError (or SecurityError) an Undefined raises when used.
[[noreturn]] void fail_undefined(const Value& v);

/// Python's html escape used by Jinja2's |escape (markupsafe.escape).
std::string html_escape(std::string_view s);

/// Checked 64-bit integer arithmetic; fails with Unsupported on overflow (Python would grow a big integer).
std::int64_t checked_add(std::int64_t a, std::int64_t b);
std::int64_t checked_mul(std::int64_t a, std::int64_t b);

}  // namespace openrecipes::rows::template_engine
