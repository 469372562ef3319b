// Writing a folder into the registry all or nothing: the one writer of submit, `rows register` and the recipe drafts
// of tune and relayout.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace openrecipes::registry {

/// Writes the folder `target` whole or not at all:
/// 1. stage: a hidden folder beside `target` (`.<name>.<purpose>.tmp`, which load_registry passes over, so one that a
///    killed writer left is never read as a recipe) gets `nest` below it (e.g. "<model>/<gpu>/<name>", so that a recipe
///    loads there under the id it will have; empty: the staging folder itself), and `fill(staged)` writes the files;
/// 2. check: `check(staged)` reads the staged folder as the registry will and throws to refuse it;
/// 3. swap: the staged folder is renamed onto `target` (an existing `target` is removed first only when `replace`).
/// Throws what `fill` or `check` throw, InputError (naming the path) for a failure of the file system (a full disk, a
/// file where a folder must be, no permission), and InputError (naming `target`) when `target` exists and `replace`
/// is false. Whatever fails before the swap, `target` is as it was and no staging folder is left, nor a folder above
/// `target` that the write made; with `replace`, the old folder is removed just before the rename, so a rename that
/// fails then (a full or read-only disk) leaves no folder at `target`.
/// True for the name of write_folder's staging folder (".<name>.<purpose>.tmp"), which load_registry passes over.
bool is_staging_name(const std::string& name);

void write_folder(const std::filesystem::path& target, const std::filesystem::path& nest, const char* purpose,
                  bool replace, const std::function<void(const std::filesystem::path&)>& fill,
                  const std::function<void(const std::filesystem::path&)>& check);

struct Recipe;

/// Writes `draft` as a recipe draft (recipe_draft_yaml with `comment` at its top: what `openrecipes run` takes) into
/// `target`, whole or not at all (write_folder): its recipe.yaml and a copy of each of its patches (read from
/// `Patch::path`, written under `target` at `Patch::relative`). The draft's folder names are its id:
/// `target` ends in `<draft.model>/<draft.gpu>/<draft.name>`. The staged folder is read back as run reads it
/// (load_recipe, RecipeLoad::draft) before it replaces anything. Throws what write_folder throws, and InputError
/// (naming `target`) when `target` exists and `replace` is false or the draft does not read back.
void write_recipe_draft(const Recipe& draft, const std::filesystem::path& target, const std::string& comment,
                        bool replace);

}  // namespace openrecipes::registry
