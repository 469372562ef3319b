// Writing a folder into the registry all or nothing (registry/folder_writer.h).
#include "registry/folder_writer.h"

#include <string>

#include "core/error.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;

void write_folder(const fs::path& target, const fs::path& nest, const char* purpose, bool replace,
                  const std::function<void(const fs::path&)>& fill, const std::function<void(const fs::path&)>& check) {
  std::error_code ec;
  if (!replace && fs::exists(target, ec))
    throw InputError(target.string(), "a folder of that name exists", "give another name");
  const fs::path outer = target.parent_path() / ("." + target.filename().string() + "." + purpose + ".tmp");
  const fs::path staged = nest.empty() ? outer : outer / nest;
  fs::create_directories(target.parent_path());
  fs::remove_all(outer);
  struct RemoveOnExit {
    fs::path dir;
    ~RemoveOnExit() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{outer};
  fs::create_directories(staged);
  fill(staged);
  check(staged);
  if (replace) fs::remove_all(target);
  fs::rename(staged, target);
}

}  // namespace openrecipes::registry
