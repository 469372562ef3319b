// Registry loader (registry/registry.h): folder links in the recipes tree are listed with a reason, never
// followed and never dropped silently.
#include "registry/registry.h"

#include <gtest/gtest.h>

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

TEST(RegistryFolders, gpu_folder_that_is_a_symlink_is_listed_too) {
  Scratch s;
  fs::create_directory_symlink(s.root / "recipes/qwen3-0.6b/H200", s.root / "recipes/qwen3-0.6b/H100");
  auto reg = load_registry(s.root);
  ASSERT_EQ(reg.recipes.size(), 4u);
  EXPECT_EQ(reg.recipes[0].id, "qwen3-0.6b/H100");  // sorted by id
  EXPECT_NE(reg.recipes[0].load_error.find("symbolic link"), std::string::npos);
}

}  // namespace
}  // namespace openrecipes::registry
