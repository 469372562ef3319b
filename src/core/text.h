// Small string helpers used by every parser: trimming, splitting, strict number parsing (locale-free).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes {

/// `s` without leading and trailing ASCII whitespace (space, tab, CR, LF, VT, FF).
std::string_view trim(std::string_view s);

/// Splits `s` at every `sep`; keeps empty fields.
std::vector<std::string_view> split(std::string_view s, char sep);

/// Splits a file's bytes into lines (LF or CRLF); the last line needs no newline. Views point into `text`.
std::vector<std::string_view> lines_of(std::string_view text);

/// Parses the whole of `s` (after trimming) as a finite or non-finite double: decimal, exponent, "nan", "inf",
/// "-inf" (any case). Returns nullopt when anything else is present. Locale-independent (std::from_chars).
std::optional<double> parse_double(std::string_view s);

/// Parses the whole of `s` (after trimming) as a base-10 signed 64-bit integer; nullopt on anything else or
/// overflow.
std::optional<std::int64_t> parse_int(std::string_view s);

/// Shortest round-trip decimal for a double ("%.17g" trimmed to the shortest exact form), for output.
std::string format_double(double v);

/// Quotes `s` for a one-line message: printable ASCII kept, everything else \xNN, cut after `max` bytes.
std::string quote_for_message(std::string_view s, std::size_t max = 80);

/// Makes a message safe to print on a terminal: C0 controls (0x00-0x1f, newline and tab included), DEL (0x7f),
/// C1 controls (U+0080-U+009F, i.e. UTF-8 C2 80..C2 9F) and bytes that are not well-formed UTF-8 become visible
/// `\xNN` escapes (one per byte); other UTF-8 text is kept. A message longer than `max_bytes` is cut there (at a
/// character boundary) with "... (N more bytes)". A hostile file thus cannot send terminal escapes through an
/// error message that quotes it.
std::string escape_controls(std::string_view s, std::size_t max_bytes = 4096);

/// Length in bytes (1..4) of the well-formed UTF-8 sequence starting at s[i] (RFC 3629 / Unicode Table 3-7: no
/// overlongs, surrogates or values over U+10FFFF; a truncated sequence is not one), or 0 when the byte at `i`
/// does not start one. Requires i < s.size().
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace openrecipes
