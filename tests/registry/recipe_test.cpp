// recipe.yaml loader (registry/recipe.h): the date is a real calendar day, and a recipe.yaml that is a symbolic
// link out of its folder is refused without being read.
#include "registry/recipe.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "registry/scratch_registry.h"
#include "testing/support.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using scratch::Scratch;

std::string load_error(const fs::path& dir) {
  return testing::message_of([&] { load_recipe(dir); });
}

TEST(RecipeFolders, a_model_or_gpu_folder_name_with_a_line_break_is_refused) {
  // Found by a review: a model folder (and the matching model: field) "x\ntouch PWNED\n#" reached a comment line of
  // run's batch script as a line of its own. Folder names use the ids' alphabet.
  Scratch s;
  for (const auto& [model, gpu] : {std::pair<std::string, std::string>{"x\ntouch PWNED\n#", "H200"},
                                   std::pair<std::string, std::string>{"qwen3-0.6b", "H200\nrm"}}) {
    const fs::path dir = s.root / "recipes" / model / gpu / "mbs2";
    fs::create_directories(dir.parent_path());
    fs::copy(s.recipe("mbs2"), dir, fs::copy_options::recursive);
    try {
      load_recipe(dir);
      ADD_FAILURE() << model << "/" << gpu;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(model == "qwen3-0.6b" ? "the GPU folder name must be"
                                                                 : "the model folder name must be"),
                std::string::npos)
          << e.what();
    }
  }
}

// A commit reaches pages, terminals and `git checkout` lines: 7 to 40 lowercase hex digits only; a version is one word
// of the characters versions use (no shell text, no terminal escape).
TEST(RecipeStack, a_commit_is_hex_and_a_version_is_a_plain_word) {
  Scratch s;
  const auto y = s.recipe("mbs2") / "recipe.yaml";
  const std::string good = "commit: d98e8a64ddf34856e74b24714e3bedb2f5a39553";
  for (const char* bad :
       {"commit: \"d98e8a64;curl${IFS}x|sh\"", "commit: D98E8A64", "commit: d98e8a", "commit: main"}) {
    s.replace(y, good, bad);
    EXPECT_NE(load_error(s.recipe("mbs2")).find("stack.framework.commit: a"), std::string::npos) << bad;
    s.replace(y, bad, good);
  }
  EXPECT_NO_THROW(load_recipe(s.recipe("mbs2")));
  s.replace(y, "pytorch: 2.11.0+cu130", "pytorch: \"2.11\\e[31m\"");
  EXPECT_NE(load_error(s.recipe("mbs2")).find("stack.pytorch: a version is one word"), std::string::npos);
}

TEST(RecipeDate, day_that_the_month_does_not_have_is_rejected) {
  Scratch s;
  const auto y = s.recipe("mbs2") / "recipe.yaml";
  s.replace(y, "date: 2026-11-29", "date: 2026-02-30");
  auto err = load_error(s.recipe("mbs2"));
  EXPECT_NE(err.find("recipe.yaml:10: date: '2026-02-30' is not a calendar date YYYY-MM-DD"), std::string::npos) << err;
  s.replace(y, "date: 2026-02-30", "date: 2026-04-31");  // April has 30 days
  EXPECT_NE(load_error(s.recipe("mbs2")).find("'2026-04-31' is not a calendar date"), std::string::npos);
}

TEST(RecipeDate, february_29_only_in_leap_years) {
  Scratch s;
  const auto y = s.recipe("mbs2") / "recipe.yaml";
  s.replace(y, "date: 2026-11-29", "date: 2025-02-29");  // 2025 is not a leap year
  EXPECT_NE(load_error(s.recipe("mbs2")).find("'2025-02-29' is not a calendar date"), std::string::npos);
  s.replace(y, "date: 2025-02-29", "date: 2024-02-29");  // divisible by 4
  EXPECT_NO_THROW(load_recipe(s.recipe("mbs2")));
  EXPECT_EQ(load_recipe(s.recipe("mbs2")).date, "2024-02-29");
  s.replace(y, "date: 2024-02-29", "date: 2000-02-29");  // divisible by 400
  EXPECT_NO_THROW(load_recipe(s.recipe("mbs2")));
  s.replace(y, "date: 2000-02-29", "date: 2026-12-31");
  EXPECT_NO_THROW(load_recipe(s.recipe("mbs2")));
}

TEST(RecipeFile, recipe_yaml_linked_outside_its_folder_is_refused_unread) {
  Scratch s;
  const auto secret =
      s.dir.write("outside/secret.yaml", "id: mbs2\nmodel: qwen3-0.6b\ngpu: H200\ngpus: SECRET_TOKEN_42\n");
  fs::remove(s.recipe("mbs2") / "recipe.yaml");
  fs::create_symlink(secret, s.recipe("mbs2") / "recipe.yaml");
  auto err = load_error(s.recipe("mbs2"));
  EXPECT_NE(err.find("recipe.yaml: recipe.yaml is a symbolic link to '" + secret.string() +
                     "', outside the recipe's folder; it is not read"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("SECRET_TOKEN_42"), std::string::npos) << err;
}

TEST(RecipeFile, recipe_yaml_linked_inside_its_folder_is_read) {
  Scratch s;
  fs::rename(s.recipe("mbs2") / "recipe.yaml", s.recipe("mbs2") / "evidence/recipe.yaml");
  fs::create_symlink("evidence/recipe.yaml", s.recipe("mbs2") / "recipe.yaml");
  EXPECT_NO_THROW(load_recipe(s.recipe("mbs2")));
}

}  // namespace
}  // namespace openrecipes::registry

namespace openrecipes::registry {
namespace {

TEST(RecipeFile, an_evidence_path_that_is_a_folder_says_so_and_a_missing_one_says_that) {
  Scratch s;
  fs::rename(s.recipe("mbs2") / "evidence/times.txt", s.recipe("mbs2") / "evidence/times.bak");
  EXPECT_NE(load_error(s.recipe("mbs2")).find("evidence file 'evidence/times.txt' does not exist"), std::string::npos)
      << load_error(s.recipe("mbs2"));
  fs::create_directory(s.recipe("mbs2") / "evidence/times.txt");
  const auto err = load_error(s.recipe("mbs2"));
  EXPECT_NE(err.find("evidence file 'evidence/times.txt' is not a regular file (a folder, a device or a pipe)"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace openrecipes::registry
