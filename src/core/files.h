// File access for untrusted input: bounded reads and evidence paths that may not escape their recipe's folder
// (DESIGN.md "Untrusted input", "Output").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace openrecipes {

/// Default upper bound for one text file read from a registry (logs, YAML, JSON): 64 MiB.
inline constexpr std::uint64_t kMaxTextFileBytes = 64ull << 20;

/// `path` without a trailing separator: "site/" is "site", "registry/recipes/m/g/ref/" is ".../ref" (what tab
/// completion gives for a folder), so its filename() is the folder's name; "/" stays "/".
std::filesystem::path without_trailing_separator(const std::filesystem::path& path);

/// Reads a whole file as bytes. Throws InputError naming the path when it is missing, not a regular file,
/// unreadable, or larger than `max_bytes` (with the size and the limit). The string's capacity is at least its size
/// plus `spare_capacity` (for a parser that reads past the end, e.g. simdjson's padding).
std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes = kMaxTextFileBytes,
                      std::size_t spare_capacity = 0);

/// Resolves `relative` (as written in a recipe, `field` names it for messages) inside `base`. Rejects
/// absolute paths, empty paths, `..` components and anything whose resolved location (symlinks followed)
/// leaves `base`. Returns the resolved path. Throws InputError naming the field and the fix.
std::filesystem::path resolve_inside(const std::filesystem::path& base, const std::string& relative,
                                     const std::string& field);

}  // namespace openrecipes
