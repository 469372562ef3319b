// Writing a folder into the registry all or nothing (registry/folder_writer.h).
#include "registry/folder_writer.h"

#include <string>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "registry/recipe.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;

bool is_staging_name(const std::string& name) { return name.starts_with('.') && name.ends_with(".tmp"); }

void write_folder(const fs::path& target, const fs::path& nest, const char* purpose, bool replace,
                  const std::function<void(const fs::path&)>& fill, const std::function<void(const fs::path&)>& check) {
  std::error_code ec;
  if (!replace && fs::exists(target, ec))
    throw InputError(target.string(),
                     fs::is_directory(target, ec) ? "a folder of that name exists" : "a file of that name exists",
                     "give another name");
  const fs::path outer = target.parent_path() / ("." + target.filename().string() + "." + purpose + ".tmp");
  const fs::path staged = nest.empty() ? outer : outer / nest;
  // The first folder above `target` that does not exist yet: made here, so removed again when the write fails.
  fs::path made;
  for (fs::path p = target.parent_path(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) made = p;
  struct RemoveOnExit {
    fs::path dir;
    bool keep = false;
    ~RemoveOnExit() {
      std::error_code e;
      if (!keep && !dir.empty()) fs::remove_all(dir, e);
    }
  } parents{made}, cleanup{outer};
  try {
    fs::create_directories(target.parent_path());
    fs::remove_all(outer);
    fs::create_directories(staged);
    fill(staged);
    check(staged);
    if (replace) fs::remove_all(target);
    fs::rename(staged, target);
  } catch (const fs::filesystem_error& e) {  // a full disk, a file where a folder must be, no permission: bad input
    throw InputError(e.path1().empty() ? target.string() : e.path1().string(), e.code().message(),
                     "give a folder that can be written (free space, permissions, no file in its path)");
  }
  parents.keep = true;
}

void write_recipe_draft(const Recipe& draft, const fs::path& target, const std::string& comment, bool replace) {
  auto fill = [&](const fs::path& dir) {
    for (const auto& p : draft.patches) {
      const fs::path dest = resolve_inside(dir, p.relative, "patches");
      fs::create_directories(dest.parent_path());
      fs::copy_file(p.path, dest, fs::copy_options::overwrite_existing);
    }
    write_file_atomic(dir / "recipe.yaml", recipe_draft_yaml(draft, comment));
  };
  auto loads = [](const fs::path& dir) { load_recipe(dir, RecipeLoad::draft); };
  write_folder(target, fs::path(draft.model) / draft.gpu / draft.name, "draft", replace, fill, loads);
}

}  // namespace openrecipes::registry
