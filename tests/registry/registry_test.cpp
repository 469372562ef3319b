// Registry loader (registry/registry.h): folder links in the recipes tree are listed with a reason, never
// followed and never dropped silently.
#include "registry/registry.h"

#include <fstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "registry/folder_writer.h"

#include "registry/recipe.h"
#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using scratch::Scratch;

TEST(RegistryFolders, recipe_folder_that_is_a_symlink_is_listed_unreadable_with_a_reason) {
  Scratch s;
  const auto elsewhere = s.dir / "elsewhere_mbs2";
  fs::rename(s.recipe("mbs2"), elsewhere);
  fs::create_directory_symlink(elsewhere, s.recipe("mbs2"));
  auto reg = load_registry(s.root);
  ASSERT_EQ(reg.recipes.size(), 3u);
  const RecipeEntry* mbs2 = nullptr;
  for (const auto& e : reg.recipes)
    if (e.id == "qwen3-0.6b/H200/mbs2") mbs2 = &e;
  ASSERT_NE(mbs2, nullptr);
  EXPECT_FALSE(mbs2->recipe);
  EXPECT_NE(mbs2->load_error.find("the folder is a symbolic link (to '" + elsewhere.string() +
                                  "'); the registry does not follow links"),
            std::string::npos)
      << mbs2->load_error;
}

// A staging folder that a killed writer left (write_folder's ".<name>.<purpose>.tmp") is no recipe; another folder
// of the recipes tree is read (and listed unreadable when it is not a recipe).
TEST(RegistryFolders, a_staging_folder_left_by_a_killed_writer_is_not_read) {
  Scratch s;
  fs::create_directories(s.recipe(".p.draft.tmp") / "qwen3-0.6b/H200/p");
  fs::create_directories(s.recipe("not-a-recipe"));
  auto reg = load_registry(s.root);
  ASSERT_EQ(reg.recipes.size(), 4u);
  for (const auto& e : reg.recipes) EXPECT_EQ(e.id.find(".p.draft.tmp"), std::string::npos) << e.id;
}

// The folder written all or nothing: a write that fails leaves neither its staging folder nor a folder it made above
// the target, and says what failed as bad input; a file in the path is named.
TEST(FolderWriter, a_failed_write_leaves_nothing_it_made) {
  Scratch s;
  const fs::path base = s.dir / "out";
  fs::create_directory(base);
  auto fill = [](const fs::path& dir) { std::ofstream(dir / "recipe.yaml") << "x"; };
  auto refuse = [](const fs::path&) { throw InputError("check", "refused"); };
  EXPECT_THROW(write_folder(base / "a/b/c", "", "draft", false, fill, refuse), InputError);
  EXPECT_TRUE(fs::is_empty(base));  // not even a/ or a/b/
  std::ofstream(base / "file") << "x";
  try {
    write_folder(base / "file/b/c", "", "draft", false, fill, [](const fs::path&) {});
    ADD_FAILURE() << "wrote under a file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Not a directory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(base), fs::directory_iterator()), 1);  // the file alone
  write_folder(base / "a/b/c", "", "draft", false, fill, [](const fs::path&) {});
  EXPECT_TRUE(fs::exists(base / "a/b/c/recipe.yaml"));
}

TEST(RecipeFolder, a_recipe_yaml_given_alone_is_this_folder) {
  EXPECT_EQ(recipe_folder("recipe.yaml"), fs::path("."));
  EXPECT_EQ(recipe_folder("x/recipe.yaml"), fs::path("x"));
  EXPECT_EQ(recipe_folder("x/"), fs::path("x/"));
}

TEST(RegistryFolders, gpu_folder_that_is_a_symlink_is_listed_too) {
  Scratch s;
  fs::create_directory_symlink(s.root / "recipes/qwen3-0.6b/H200", s.root / "recipes/qwen3-0.6b/H100");
  auto reg = load_registry(s.root);
  ASSERT_EQ(reg.recipes.size(), 4u);
  EXPECT_EQ(reg.recipes[0].id, "qwen3-0.6b/H100");  // sorted by id
  EXPECT_NE(reg.recipes[0].load_error.find("symbolic link"), std::string::npos);
}

// Regression: a recipe's patches were held to its folder as given, while their paths are resolved, so through a
// relative or linked path to the registry every patch was refused as "not in the recipe's patches/".
TEST(RecipePatches, a_recipes_patches_load_through_a_linked_path_to_the_registry) {
  Scratch s;
  fs::create_directories(s.recipe("ref") / "patches");
  s.write(s.recipe("ref") / "patches/openrecipes_probe.py", "x = 1\n");
  s.replace(s.recipe("ref") / "recipe.yaml", "\ncommand: |",
            "\npatches:\n  - path: patches/openrecipes_probe.py\n"
            "    sha256: 9e26bf369911c45c243c684147b23fc9e1dcfcf257d299a1c632016a6fcd33f4\ncommand: |");
  const fs::path link = s.dir / "linked-registry";
  fs::create_directory_symlink(s.root, link);
  const Recipe r = load_recipe(link / "recipes/qwen3-0.6b/H200/ref");
  ASSERT_EQ(r.patches.size(), 1u);
  EXPECT_EQ(r.patches[0].relative, "patches/openrecipes_probe.py");
  EXPECT_EQ(patch_modules(r), std::vector<std::string>{"openrecipes_probe"});
  EXPECT_EQ(patch_problem(r.patches[0]), std::nullopt);  // the sha256 above is `printf 'x = 1\n' | sha256sum`
}

}  // namespace
}  // namespace openrecipes::registry
