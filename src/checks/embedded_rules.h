// The registry rules every command applies whatever registry or recipe folder it reads, compiled into the binary
// from registry/rules/ (cmake/embed_files.cmake): the program policy (command.yaml) and the frameworks' argument
// tables (options/<framework>.json). A recipe comes from a stranger, and so may the registry folder it sits in; the
// policy that decides what its command may run is the tool's own.
#pragma once

#include <string_view>
#include <vector>

#include "core/embedded_file.h"

namespace openrecipes::checks {

/// Every embedded rules file, sorted by path (relative to registry/rules: "command.yaml", "options/megatron-lm.json").
const std::vector<EmbeddedFile>& rules_files();

/// The content of embedded `path`. Throws std::logic_error when there is none (a bug in the tool).
std::string_view rules_file(std::string_view path);

}  // namespace openrecipes::checks
