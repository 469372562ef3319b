// Which file of a built site a request names, for `openrecipes serve` (docs/site.md): static files only, no directory
// listing, nothing outside the site (`..`, its percent-encoded forms, symbolic links that leave it), and the
// content type of each file the site holds.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace openrecipes::site {

/// The longest request path resolve_static_path accepts, in bytes (percent-encoded).
inline constexpr std::size_t kMaxRequestPathBytes = 2048;

/// `target` (an HTTP request's path, percent-encoded, without its query) percent-decoded: nullopt when an escape
/// is malformed (`%` not followed by two hex digits) or decodes to NUL.
std::optional<std::string> percent_decode(std::string_view target);

/// The regular file under `root` that GET `target` serves, or nullopt (the server answers 404): `target` must start
/// with '/', be at most kMaxRequestPathBytes long and decode (percent_decode) to segments none of which is empty
/// between slashes, "." or "..", starts with '.' (hidden and temp files) or holds a backslash. A path ending in '/'
/// names that folder's index.html; a folder without the slash is not served (no listing, no redirect). The file,
/// with symbolic links followed, must be a regular file inside `root` (itself resolved).
std::optional<std::filesystem::path> resolve_static_path(const std::filesystem::path& root, std::string_view target);

/// The Content-Type of a site file by its extension: HTML, CSS, JavaScript, CSV and text as UTF-8, JSON, SVG, PNG;
/// application/octet-stream for anything else.
std::string content_type_for(const std::filesystem::path& file);

}  // namespace openrecipes::site
