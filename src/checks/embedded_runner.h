// The component-test runner (data/component_test.py) compiled into the binary (cmake/embed_files.cmake): `build`
// names the runner its raw outputs must come from by this file's sha256, and `component-test` checks that the runner
// it starts is this one.
#pragma once

#include <string_view>
#include <vector>

#include "core/embedded_file.h"

namespace openrecipes::checks {

/// Every embedded runner file ("component_test.py").
const std::vector<EmbeddedFile>& runner_files();

/// The content of embedded `path`. Throws std::logic_error when there is none (a bug in the tool).
std::string_view runner_file(std::string_view path);

}  // namespace openrecipes::checks
