// Tests for src/site/static_files: what `serve` answers for each request path, worked out by hand on a small site
// with a symbolic link out of it, percent-encoded traversal, hidden files and folders.
#include "site/static_files.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "testing/support.h"

namespace openrecipes::site {
namespace {
namespace fs = std::filesystem;

struct Site {
  testing::TempDir dir;
  fs::path root = dir / "site";
  Site() {
    dir.write("site/index.html", "<h1>index</h1>");
    dir.write("site/models/qwen3/index.html", "model");
    dir.write("site/data/recipes.csv", "id\r\n");
    dir.write("site/.index.html.1234abcd.tmp", "half");
    dir.write("secret.txt", "outside");
    fs::create_symlink(dir / "secret.txt", root / "leak.txt");
    fs::create_symlink(root / "data" / "recipes.csv", root / "alias.csv");
  }
  fs::path at(const std::string& rel) const { return fs::canonical(root / rel); }
};

TEST(StaticFiles, a_file_and_a_folder_with_its_slash_resolve_inside_the_site) {
  Site s;
  EXPECT_EQ(resolve_static_path(s.root, "/"), s.at("index.html"));
  EXPECT_EQ(resolve_static_path(s.root, "/index.html"), s.at("index.html"));
  EXPECT_EQ(resolve_static_path(s.root, "/models/qwen3/"), s.at("models/qwen3/index.html"));
  EXPECT_EQ(resolve_static_path(s.root, "/data/recipes.csv"), s.at("data/recipes.csv"));
  EXPECT_EQ(resolve_static_path(s.root, "/data/recipes%2Ecsv"), s.at("data/recipes.csv"));  // %2E is '.'
  EXPECT_EQ(resolve_static_path(s.root, "/alias.csv"), s.at("data/recipes.csv"));           // a link that stays inside
}

TEST(StaticFiles, traversal_in_any_spelling_hidden_files_links_out_and_listings_are_refused) {
  Site s;
  for (const char* t :
       {"/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/models/../../secret.txt", "/./index.html",
        "/models//qwen3/", "/.index.html.1234abcd.tmp", "/leak.txt", "/models/qwen3", "/models", "index.html", "",
        "/data\\recipes.csv", "/%5c..%5csecret.txt", "/%", "/%2", "/%zz", "/index%00.html", "/no-such-page.html"})
    EXPECT_EQ(resolve_static_path(s.root, t), std::nullopt) << t;
  EXPECT_EQ(resolve_static_path(s.root, "/" + std::string(kMaxRequestPathBytes, 'a')), std::nullopt);
}

TEST(StaticFiles, percent_decoding_is_strict) {
  EXPECT_EQ(percent_decode("/a%20b%2Fc"), "/a b/c");
  EXPECT_EQ(percent_decode("/%e2%9c%93"), "/\xe2\x9c\x93");
  EXPECT_EQ(percent_decode("/%G0"), std::nullopt);
  EXPECT_EQ(percent_decode("/%0"), std::nullopt);
  EXPECT_EQ(percent_decode("/%00"), std::nullopt);
}

TEST(StaticFiles, content_types_follow_the_extension) {
  EXPECT_EQ(content_type_for("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(content_type_for("site.css"), "text/css; charset=utf-8");
  EXPECT_EQ(content_type_for("sort.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(content_type_for("recipes.json"), "application/json");
  EXPECT_EQ(content_type_for("recipes.csv"), "text/csv; charset=utf-8");
  EXPECT_EQ(content_type_for("loss.svg"), "image/svg+xml");
  EXPECT_EQ(content_type_for("index.png"), "image/png");
  EXPECT_EQ(content_type_for("train.log"), "text/plain; charset=utf-8");
  EXPECT_EQ(content_type_for("weights.bin"), "application/octet-stream");
}

}  // namespace
}  // namespace openrecipes::site
