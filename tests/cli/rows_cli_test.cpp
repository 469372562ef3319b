// `openrecipes rows build|verify|export` and `openrecipes tokenize` as a user runs them.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;
using testing::run_cli;
using testing::TempDir;

std::string tulu() { return (testing::fixtures_dir() / "tulu3/sft_sample.jsonl").string(); }
std::string qwen3() { return (testing::fixtures_dir() / "tokenizers/qwen3").string(); }

// rows_sha256 of the Qwen3, L=512, seed-0 build of the 100 fixture conversations, as the independent reference
// (tests/oracles/rows_build_reference.py: Jinja2 + tokenizers 0.23.2 + numpy) computes it; the library test
// RowsBuild.qwen3_row_length_512_seed_0_matches_the_independent_reference runs that reference live.
const char* kQwen3Sha = "30eb27066ab49cc9eeef9edb3862a39c6d98649683cbfc9cfe28e19dbef4aca8";

TEST(RowsCli, build_then_verify_and_export) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  auto b = run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "-o", out, "--json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto j = nlohmann::json::parse(b.out);
  EXPECT_EQ(j["rows_written"], 81);
  EXPECT_EQ(j["rows_sha256"], kQwen3Sha);
  EXPECT_TRUE(fs::exists(d / "rows.manifest.json"));

  auto ok = run_cli({"rows", "verify", out, "--rows", "81", "--sha256", kQwen3Sha});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  auto bad = run_cli({"rows", "verify", out, "--rows", "81", "--sha256", std::string(64, 'a')});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("expected aaaa"), std::string::npos) << bad.out;
  auto too_many = run_cli({"rows", "verify", out, "--rows", "82", "--sha256", kQwen3Sha});
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_NE(too_many.err.find("81"), std::string::npos) << too_many.err;

  auto e = run_cli({"rows", "export", out, "--format", "megatron", "-o", (d / "tulu").string()});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_EQ(fs::file_size(d / "tulu.bin"), 81u * 512 * 4);  // int32 ids, no header
  EXPECT_NE(e.out.find(kQwen3Sha), std::string::npos);
}

TEST(RowsCli, verify_against_a_recipe_and_bad_inputs) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  ASSERT_EQ(run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "--rows", "16",
                     "-o", out, "--quiet"}).exit_code, 0);
  // A non-standard recipe records no rows.
  auto r = run_cli({"rows", "verify", out, "--recipe",
                    (testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/ref/recipe.yaml").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("non-standard workload"), std::string::npos) << r.err;
  // A missing and a corrupt rows file.
  EXPECT_EQ(run_cli({"rows", "verify", (d / "none.parquet").string(), "--rows", "1", "--sha256", kQwen3Sha}).exit_code, 2);
  auto junk = d.write("junk.parquet", "PAR1 this is not parquet");
  auto c = run_cli({"rows", "verify", junk.string(), "--rows", "1", "--sha256", kQwen3Sha});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("junk.parquet"), std::string::npos) << c.err;
  EXPECT_EQ(run_cli({"rows", "verify", out}).exit_code, 2);  // nothing to verify against
}

TEST(TokenizeCli, text_and_conversations) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // "Hello world" with Qwen3: the fixture test vectors give 9707 ("Hello") 1879 (" world").
  auto t = run_cli({"tokenize", "--tokenizer", qwen3(), "--text", "Hello world"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.out, "[9707,1879]\n");
  auto c = run_cli({"tokenize", "--tokenizer", qwen3(), "--conversations", tulu()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto first = nlohmann::json::parse(c.out.substr(0, c.out.find('\n')));
  std::string golden = read_file(testing::fixtures_dir() / "golden/tulu3_first100/qwen3.jsonl");
  auto g = nlohmann::json::parse(golden.substr(0, golden.find('\n')));
  EXPECT_EQ(first["rendered"], g["rendered"]);
  EXPECT_EQ(first["input_ids"], g["input_ids"]);
}

}  // namespace
}  // namespace openrecipes
