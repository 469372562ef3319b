// Python str methods on UTF-8 text with code point indices (strip, split, rsplit, splitlines, find, count,
// replace, startswith, center, zfill, expandtabs, slicing...), exactly as CPython 3.11 computes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::rows::template_engine::pystr {

/// str.strip/lstrip/rstrip: `chars` null strips Python whitespace, else any code point of *chars.
std::string_view strip(std::string_view s, const std::string_view* chars, bool left, bool right);
/// str.split(sep, maxsplit) (sep null: runs of whitespace). `sep` must not be empty (caller raises ValueError).
std::vector<std::string_view> split(std::string_view s, const std::string_view* sep, std::int64_t maxsplit);
std::vector<std::string_view> rsplit(std::string_view s, const std::string_view* sep, std::int64_t maxsplit);
std::vector<std::string_view> splitlines(std::string_view s, bool keepends);
/// str.replace(old, new, count) (count < 0: all).
std::string replace(std::string_view s, std::string_view old, std::string_view neu, std::int64_t count);

/// Resolves Python slice-style [start:end] bounds (code points, negatives from the end, clamped) to byte
/// offsets; returns false when start > len (find/startswith then fail).
bool byte_range(std::string_view s, std::optional<std::int64_t> start, std::optional<std::int64_t> end, std::size_t& b0,
                std::size_t& b1, std::int64_t& cp_start);
/// str.find / rfind (code point index or -1).
std::int64_t find(std::string_view s, std::string_view sub, std::optional<std::int64_t> start,
                  std::optional<std::int64_t> end, bool reverse);
std::int64_t count(std::string_view s, std::string_view sub, std::optional<std::int64_t> start,
                   std::optional<std::int64_t> end);
bool startswith(std::string_view s, std::string_view prefix, std::optional<std::int64_t> start,
                std::optional<std::int64_t> end, bool ends);

std::string center(std::string_view s, std::int64_t width, char32_t fill);
std::string ljust(std::string_view s, std::int64_t width, char32_t fill, bool right);
std::string zfill(std::string_view s, std::int64_t width);
std::string expandtabs(std::string_view s, std::int64_t tabsize);

/// Python slice indices: resolves start/stop/step (nullopt = None) against `len` like slice.indices(); returns
/// the selected indices' count. step must not be 0.
std::int64_t slice_indices(std::int64_t len, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                           std::int64_t step, std::int64_t& out_start);
/// s[start:stop:step] on code points.
std::string slice(std::string_view s, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                  std::int64_t step);

}  // namespace openrecipes::rows::template_engine::pystr
