// Strict UTF-8 validation of source text (SPEC §1.1: conversations are Unicode text; invalid bytes are bad
// input, reported with the file and row rather than passed on to the template and tokenizer).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace openrecipes::rows {

/// Byte offset of the first byte that does not start a well-formed UTF-8 sequence in `s` (RFC 3629 / Unicode
/// Table 3-7: no overlong forms, no surrogates U+D800..U+DFFF, nothing above U+10FFFF, no truncated
/// sequence), or std::string_view::npos when all of `s` is valid. The same rule as Python's and Rust's decoders.
std::size_t find_invalid_utf8(std::string_view s);

/// True when `s` is well-formed UTF-8 (find_invalid_utf8(s) == npos).
inline bool is_valid_utf8(std::string_view s) { return find_invalid_utf8(s) == std::string_view::npos; }

/// For messages: "byte N (0xAB 0xCD ...)" showing up to 4 bytes from `offset`.
std::string describe_invalid_utf8(std::string_view s, std::size_t offset);

}  // namespace openrecipes::rows
