#include "core/files.h"

#include <filesystem>

#include <gmock/gmock.h>
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
  EXPECT_THAT(testing::message_of([&] { read_file(p, 99); }), ::testing::HasSubstr("over the limit of 99 bytes"));
}

TEST(Files, read_file_names_a_missing_file) {
  TempDir d;
  EXPECT_THAT(testing::message_of([&] { read_file(d / "nope.log"); }),
              ::testing::HasSubstr("nope.log: file not found"));
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
