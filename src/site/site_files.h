// The files the site is made from, compiled into the binary (CMake's cmake/embed_files.cmake writes
// site_files_data.cpp from src/site/templates/ and src/site/assets/), so `build -o` needs nothing at run time.
#pragma once

#include <string_view>
#include <vector>

#include "core/embedded_file.h"

namespace openrecipes::site {

/// Every embedded file, sorted by path (relative to src/site: "templates/index.mustache", "assets/site.js").
const std::vector<EmbeddedFile>& site_files();

/// The content of embedded `path`. Throws std::logic_error when there is none (a bug in the tool).
std::string_view site_file(std::string_view path);

}  // namespace openrecipes::site
