// A file compiled into the binary by cmake/embed_files.cmake (the site's templates and assets, the registry's rules
// every command applies), so the tool needs nothing beside it at run time and no folder it reads can replace them.
#pragma once

#include <string_view>

namespace openrecipes {

struct EmbeddedFile {
  std::string_view path;   ///< relative to the folder it was embedded from: "templates/index.mustache", "command.yaml"
  std::string_view bytes;  ///< the file's content
};

}  // namespace openrecipes
