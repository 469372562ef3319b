// Guards for parsing untrusted JSON with nlohmann (DESIGN.md "Untrusted input"): a nesting-depth bound checked
// on the raw bytes before any tree is built (nlohmann copies and compares trees recursively, so a 170k-deep
// file would overflow the stack), and a parse that refuses duplicate object keys (nlohmann keeps the last).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace openrecipes {

/// Default nesting bound for configuration-like JSON files (config.json, tokenizer_config.json, index.json).
inline constexpr std::size_t kMaxJsonConfigDepth = 64;

/// Throws InputError(`where`, "JSON nested deeper than `max_depth` levels (at byte B)", `fix`) when an array or
/// object opens more than `max_depth` levels deep. Scans the bytes once (strings and escapes skipped); malformed
/// JSON otherwise passes through for the parser to report. Depth 1 is the top-level value.
void check_json_depth(std::string_view text, std::size_t max_depth, const std::string& where, const std::string& fix);

/// Every JSON the project reads goes through one of the three parsers below (tests/core/json_limits_test.cpp holds
/// src/ to it): each bounds the nesting before a tree is built and throws InputError, never nlohmann's exceptions.

/// Parses `text` as JSON after check_json_depth, keeping nlohmann's own reading otherwise (a duplicate key: the last
/// wins): for formats whose reference reader does the same (a JSONL source row, tokenizer.json). Throws InputError
/// naming `where`: invalid JSON (with the byte offset) or nesting over `max_depth`.
nlohmann::json parse_json_bounded(std::string_view text, const std::string& where, const std::string& fix,
                                  std::size_t max_depth);

/// Parses `text` as JSON after check_json_depth, refusing duplicate keys within one object. Throws InputError
/// naming `where`: invalid JSON (with the byte offset), nesting over `max_depth`, or "the key K appears twice"
/// (with the object's path, e.g. text_config.hidden_size). Never throws nlohmann exceptions.
nlohmann::json parse_json_strict(std::string_view text, const std::string& where, const std::string& fix,
                                 std::size_t max_depth = kMaxJsonConfigDepth);

/// parse_json_strict that also reads Python json's spellings of the non-finite floats, the bare words NaN, Infinity
/// and -Infinity that json.dump writes (they are not JSON), as those doubles. A string "NaN" stays a string, a word
/// like NaNa stays invalid, and byte positions in errors are the file's own. Throws as parse_json_strict.
nlohmann::json parse_json_python(std::string_view text, const std::string& where, const std::string& fix,
                                 std::size_t max_depth = kMaxJsonConfigDepth);

/// `dump` (a value echoed into a message) cut to its first `max` bytes with "..." appended when longer, so a
/// message never quotes a huge value whole.
/// A JSON library error in the project's words: nlohmann's what() without its "[json.exception.parse_error.101] " tag
/// and, for a parse error, without the "parse error at line L, column C: " the message already gives as a byte offset.
std::string json_error_text(std::string_view what);

inline std::string json_excerpt(const std::string& dump, std::size_t max = 200) {
  return dump.size() <= max ? dump : dump.substr(0, max) + "...";
}

}  // namespace openrecipes
