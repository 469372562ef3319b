// File access for untrusted input and deterministic output: bounded reads, atomic writes (temp file + rename),
// and evidence paths that may not escape their recipe's folder (DESIGN.md "Untrusted input", "Output").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace openrecipes {

/// Default upper bound for one text file read from a registry (logs, YAML, JSON): 64 MiB.
inline constexpr std::uint64_t kMaxTextFileBytes = 64ull << 20;

/// Reads a whole file as bytes. Throws InputError naming the path when it is missing, not a regular file,
/// unreadable, or larger than `max_bytes` (with the size and the limit).
std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes = kMaxTextFileBytes);

/// Writes `content` to `path` atomically: a temp file in the same folder, fsync, rename. An interrupted run
/// leaves either the old file or the new one, never half a file. Throws InputError when the folder cannot
/// be written or `path` is a folder (with its path and a fix; nothing is written then).
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

/// Creates `path` (which must not exist: O_EXCL), writes `content` and fsyncs it; no rename. The building block of
/// write_file_atomic and of callers that rename several temp files together. Throws InputError naming the path
/// (the partial file is removed on a write error).
void write_file_synced(const std::filesystem::path& path, std::string_view content);

/// Resolves `relative` (as written in a recipe, `field` names it for messages) inside `base`. Rejects
/// absolute paths, empty paths, `..` components and anything whose resolved location (symlinks followed)
/// leaves `base`. Returns the resolved path. Throws InputError naming the field and the fix.
std::filesystem::path resolve_inside(const std::filesystem::path& base, const std::string& relative,
                                     const std::string& field);

}  // namespace openrecipes
