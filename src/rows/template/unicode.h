// UTF-8 and Python's Unicode string semantics (code point indexing, str.isspace/upper/lower/title/capitalize/
// swapcase/casefold and the isX() tests) for the chat-template engine; upstream behaviour: CPython 3.11 str.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/utf8.h"

namespace openrecipes::rows::template_engine {

/// True when `s` is well-formed UTF-8 (core/utf8.h: no surrogates, no overlongs, at most U+10FFFF).
inline bool valid_utf8(std::string_view s) { return is_valid_utf8(s); }
/// Decodes the code point at byte `i` of valid UTF-8 `s` and advances `i` past it.
char32_t next_cp(std::string_view s, std::size_t& i);
/// Decodes the code point that ends at byte `i` (exclusive) and moves `i` back to its first byte.
char32_t prev_cp(std::string_view s, std::size_t& i);
using ::openrecipes::append_utf8;  // core/utf8.h
/// Number of code points (Python len()).
std::size_t cp_count(std::string_view s);
bool is_ascii(std::string_view s);
/// Byte offset of code point index `cp_index` (0..cp_count); clamps to s.size().
std::size_t cp_offset(std::string_view s, std::size_t cp_index);

// Character classes exactly as Python's str.isX() on a one-character string.
bool py_isspace(char32_t c);
bool py_isalpha(char32_t c);
bool py_isdecimal(char32_t c);
bool py_isdigit(char32_t c);
bool py_isnumeric(char32_t c);
bool py_isalnum(char32_t c);
bool py_isprintable(char32_t c);
bool py_is_lower_char(char32_t c);
bool py_is_upper_char(char32_t c);
bool py_is_title_char(char32_t c);
bool py_is_cased(char32_t c);
bool py_is_case_ignorable(char32_t c);

// Whole-string methods, as Python's str methods.
std::string py_upper(std::string_view s);
std::string py_lower(std::string_view s);
std::string py_title(std::string_view s);
std::string py_capitalize(std::string_view s);
std::string py_swapcase(std::string_view s);
std::string py_casefold(std::string_view s);
bool py_islower(std::string_view s);
bool py_isupper(std::string_view s);
bool py_istitle(std::string_view s);
/// str.isspace/isalpha/isdecimal/isdigit/isnumeric/isalnum/isprintable/isascii over a whole string (empty
/// string: False, except isprintable: True and isascii: True).
bool py_str_all(std::string_view s, bool (*pred)(char32_t));

}  // namespace openrecipes::rows::template_engine
