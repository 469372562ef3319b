// Small string helpers used by every parser: trimming, splitting, strict number parsing (locale-free).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes {

/// `s` without leading and trailing ASCII whitespace (space, tab, CR, LF, VT, FF).
/// The ASCII whitespace trim() removes: space, tab, CR, LF, VT, FF.
inline bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
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

/// `v` rounded to the nearest multiple of `unit` (> 0), as JSON outputs write a figure: round_to(12.345, 0.1) = 12.3.
/// A unit of 10^-k divides by 10^k rather than multiplying by the unit, so the figure is the double nearest its
/// decimal and prints as written (0.4074, not 0.40740000000000004).
double round_to(double v, double unit);

/// `v` rounded to `unit`, or to `digits` significant digits where that keeps more: a small figure keeps its digits
/// (round_to_figures(0.000004321, 1e-4, 2) = 0.0000043, never 0). Zero, NaN and infinities come back as they are.
double round_to_figures(double v, double unit, int digits);

/// Quotes `s` for a one-line message: printable ASCII kept, everything else \xNN, cut after `max` bytes.
std::string quote_for_message(std::string_view s, std::size_t max = 80);

/// Makes a message safe to print on a terminal: C0 controls (0x00-0x1f, newline and tab included), DEL (0x7f),
/// C1 controls (U+0080-U+009F, i.e. UTF-8 C2 80..C2 9F) and bytes that are not well-formed UTF-8 become visible
/// `\xNN` escapes (one per byte); other UTF-8 text is kept. A message longer than `max_bytes` is cut there (at a
/// character boundary) with "... (N more bytes)". A hostile file thus cannot send terminal escapes through an
/// error message that quotes it.
std::string escape_controls(std::string_view s, std::size_t max_bytes = 4096);

/// `s` for a terminal, the form every registry field is shown in: C0 controls (when `escape_c0`; newline and tab
/// included), DEL and bytes that are not well-formed UTF-8 become "\xNN", a C1 control (U+0080..U+009F) becomes
/// "\u00NN", and (when `escape_c0`) a bidirectional control "\u202E" (core/utf8.h inert_text); other UTF-8 text is
/// kept. With `escape_c0` false, C0 bytes and bidi controls are left for a JSON encoder and a page to escape.
std::string terminal_safe(std::string_view s, bool escape_c0);

/// The one name of `names` closest to `word` by edit distance (optimal string alignment: a swap of two neighbours is
/// one edit; ASCII case folded) when it is near enough to be a typo: one edit for names of 3 to 5 characters, two for
/// longer ones; "" when none is, or two tie. For "did you mean" hints (an unknown field or model).
std::string nearest_name(std::string_view word, const std::vector<std::string>& names);

/// `text` broken at spaces into lines of at most `width` bytes (a word longer than `width` gets a line of its own);
/// runs of spaces collapse. For terminal output that must stay readable (build's ≤ 120-character lines).
std::vector<std::string> wrap_words(std::string_view text, std::size_t width);

/// "1 GPU", "2 GPUs": `n` and the noun in its number (`plural` when not the singular + "s"), for messages that count.
std::string counted(std::int64_t n, std::string_view singular, std::string_view plural = {});

/// `n` in decimal with a comma between each group of three digits ("-1,234,567"), for reports.
std::string with_thousands(std::int64_t n);

/// `v` fixed-point with `decimals` digits after the point and commas grouping the integer part
/// (with_thousands(20405.05, 1) == "20,405.1"); rounding as fmt's "{:.Nf}".
std::string with_thousands(double v, int decimals);

}  // namespace openrecipes
#include "core/text.h"
