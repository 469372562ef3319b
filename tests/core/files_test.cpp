#include "core/files.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes {
namespace fs = std::filesystem;
using testing::TempDir;

TEST(Files, read_file_enforces_the_size_bound) {
  TempDir d;
  auto p = d.write("big.txt", std::string(100, 'x'));
  EXPECT_EQ(read_file(p, 100).size(), 100u);
  try {
    read_file(p, 99);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit of 99 bytes"), std::string::npos) << e.what();
  }
}

TEST(Files, read_file_names_a_missing_file) {
  TempDir d;
  try {
    read_file(d / "nope.log");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.log: file not found"), std::string::npos) << e.what();
  }
}

TEST(Files, resolve_inside_accepts_a_relative_path_in_the_folder) {
  TempDir d;
  d.write("recipe/evidence/train.log", "x");
  auto p = resolve_inside(d / "recipe", "evidence/train.log", "evidence.log.path");
  EXPECT_EQ(p, fs::weakly_canonical(d / "recipe/evidence/train.log"));
}

TEST(Files, resolve_inside_rejects_paths_that_escape_the_folder) {
  TempDir d;
  d.write("recipe/x", "x");
  d.write("secret", "s");
  fs::create_symlink(d / "secret", d / "recipe/link");
  EXPECT_THROW(resolve_inside(d / "recipe", "../secret", "f"), InputError);
  EXPECT_THROW(resolve_inside(d / "recipe", "/etc/passwd", "f"), InputError);
  EXPECT_THROW(resolve_inside(d / "recipe", "a/../../secret", "f"), InputError);
  EXPECT_THROW(resolve_inside(d / "recipe", "link", "f"), InputError);
  EXPECT_THROW(resolve_inside(d / "recipe", "", "f"), InputError);
}

}  // namespace openrecipes
