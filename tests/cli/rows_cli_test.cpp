// `openrecipes rows build|verify|export` and `openrecipes tokenize` as a user runs them.
#include <filesystem>
#include <vector>

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
  auto b = run_cli(
      {"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "-o", out, "--json"});
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
                     "-o", out, "--quiet"})
                .exit_code,
            0);
  // A non-standard recipe records no rows.
  auto r = run_cli({"rows", "verify", out, "--recipe",
                    (testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/ref/recipe.yaml").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("non-standard workload"), std::string::npos) << r.err;
  // A missing and a corrupt rows file.
  EXPECT_EQ(run_cli({"rows", "verify", (d / "none.parquet").string(), "--rows", "1", "--sha256", kQwen3Sha}).exit_code,
            2);
  auto junk = d.write("junk.parquet", "PAR1 this is not parquet");
  auto c = run_cli({"rows", "verify", junk.string(), "--rows", "1", "--sha256", kQwen3Sha});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("junk.parquet"), std::string::npos) << c.err;
  EXPECT_EQ(run_cli({"rows", "verify", out}).exit_code, 2);  // nothing to verify against
}

TEST(RowsCli, a_manifest_path_that_is_a_folder_fails_before_touching_the_old_rows_file) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto old = d.write("r.parquet", "old rows");
  fs::create_directories(d / "r.manifest.json");
  auto b = run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "--rows", "4",
                    "-o", old.string(), "--quiet"});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find((d / "r.manifest.json").string() + ": is a folder"), std::string::npos) << b.err;
  EXPECT_EQ(read_file(old), "old rows");
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path()), fs::directory_iterator()), 2);  // no temp files left
}

TEST(RowsCli, output_onto_a_source_file_is_refused_by_any_path) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto src = d.write("src.jsonl", read_file(tulu()));
  fs::create_symlink(src, d / "link.jsonl");
  for (const fs::path& out : {src, d / "link.jsonl", d / "." / "src.jsonl"}) {
    auto b =
        run_cli({"rows", "build", "--source", src.string(), "--tokenizer", qwen3(), "-o", out.string(), "--quiet"});
    EXPECT_EQ(b.exit_code, 2) << out;
    EXPECT_NE(b.err.find("the build would overwrite its input"), std::string::npos) << b.err;
  }
  EXPECT_EQ(read_file(src), read_file(tulu()));
}

TEST(RowsCli, export_keeps_the_previous_pair_when_the_idx_is_a_folder_and_refuses_its_input) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  ASSERT_EQ(run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "--rows", "4",
                     "-o", out, "--quiet"})
                .exit_code,
            0);
  auto bin = d.write("old.bin", "previous bin");
  d.write("old.idx/keep", "x");  // a non-empty folder where the .idx goes
  auto e = run_cli({"rows", "export", out, "-o", (d / "old").string()});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(e.err.find("old.idx: is a folder"), std::string::npos) << e.err;
  EXPECT_EQ(read_file(bin), "previous bin");
  // The prefix's .bin being the rows file itself.
  fs::copy_file(out, d / "self.bin");
  auto self = run_cli({"rows", "export", (d / "self.bin").string(), "-o", (d / "self").string()});
  EXPECT_EQ(self.exit_code, 2);
  EXPECT_NE(self.err.find("the export would overwrite it"), std::string::npos) << self.err;
}

TEST(RowsCli, numeric_options_are_checked_with_their_bounds) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "r.parquet").string();
  auto build = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "-o", out, "--quiet"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  auto big = build({"--row-length", "4194305"});
  EXPECT_EQ(big.exit_code, 2) << big.err;
  EXPECT_NE(big.err.find("--row-length: '4194305' is not a whole number from 1 to 4194304"), std::string::npos)
      << big.err;
  auto whole = build({"--row-length", "4194304"});  // 100 conversations give far fewer tokens than one such row
  EXPECT_EQ(whole.exit_code, 2) << whole.err;
  EXPECT_NE(whole.err.find("tokens, fewer than one row of 4194304"), std::string::npos) << whole.err;
  EXPECT_FALSE(fs::exists(out));
  auto zero = build({"--rows", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--rows: '0' is not a whole number from 1"), std::string::npos) << zero.err;
  auto neg = build({"--seed", "-1"});
  EXPECT_EQ(neg.exit_code, 2);
  EXPECT_NE(neg.err.find("--seed: '-1' is negative"), std::string::npos) << neg.err;
  EXPECT_NE(neg.err.find("numpy's default_rng accepts 0..2^128-1"), std::string::npos) << neg.err;
  EXPECT_EQ(build({"--threads", "0"}).exit_code, 2);
  EXPECT_EQ(build({"--threads", "100000"}).exit_code, 2);
  auto date = build({"--date", "2026-02-30"});
  EXPECT_EQ(date.exit_code, 2);
  EXPECT_NE(date.err.find("--date: '2026-02-30' is not a calendar date"), std::string::npos) << date.err;
  auto ex = run_cli({"rows", "export", out, "--rows", "0", "-o", (d / "x").string()});
  EXPECT_EQ(ex.exit_code, 2);
}

TEST(RowsCli, a_template_failure_carries_one_fix_not_two) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto src = d.write("empty.jsonl", "{\"messages\": []}\n");
  auto b = run_cli(
      {"rows", "build", "--source", src.string(), "--tokenizer", qwen3(), "-o", (d / "r.parquet").string(), "--quiet"});
  EXPECT_EQ(b.exit_code, 2) << b.err;
  const auto first = b.err.find("(fix:");
  EXPECT_NE(first, std::string::npos) << b.err;
  EXPECT_EQ(b.err.find("(fix:", first + 1), std::string::npos) << b.err;
}

TEST(TokenizeCli, invalid_utf8_text_warns_with_the_byte_offset_and_keeps_the_ids) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto f = d.write("bad.txt", "Hello\xff world");
  auto t = run_cli({"tokenize", "--tokenizer", qwen3(), "--text-file", f.string()});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.err.find("warning: " + f.string() + ": not valid UTF-8 at byte 5"), std::string::npos) << t.err;
  EXPECT_NE(t.err.find("rows build refuses"), std::string::npos) << t.err;
  auto good = run_cli({"tokenize", "--tokenizer", qwen3(), "--text", "Hello world"});
  EXPECT_EQ(good.err, "");
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
