// `openrecipes rows build|verify|export` and `openrecipes tokenize` as a user runs them.
#include <filesystem>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/atomic_output.h"
#include "core/files.h"
#include "core/sha256.h"
#include "testing/mixture_registry.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;
using testing::run_cli;
using testing::TempDir;

std::string tulu() { return (testing::fixtures_dir() / "tulu3/sft_sample.jsonl").string(); }
std::string qwen3() { return (testing::fixtures_dir() / "tokenizers/qwen3").string(); }

// `rows build` of the fixture conversations with the Qwen3 tokenizer at L 512 into `out`, quietly, with `more`.
testing::ProcessResult build_qwen3_512(const std::string& out, const std::vector<std::string>& more = {}) {
  std::vector<std::string> args{"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512"};
  args.insert(args.end(), more.begin(), more.end());
  args.insert(args.end(), {"-o", out, "--quiet"});
  return run_cli(args);
}

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
  EXPECT_THAT(bad.out, ::testing::HasSubstr("expected aaaa"));
  auto too_many = run_cli({"rows", "verify", out, "--rows", "82", "--sha256", kQwen3Sha});
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_THAT(too_many.err, ::testing::HasSubstr("81"));

  auto e = run_cli({"rows", "export", out, "--format", "megatron", "-o", (d / "tulu").string()});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_EQ(fs::file_size(d / "tulu.bin"), 81u * 512 * 4);  // int32 ids, no header
  EXPECT_NE(e.out.find(kQwen3Sha), std::string::npos);
}

// The summary says which chat template and date rendered the rows (another template or date gives other rows), and a
// tokenizer folder without tokenizer_config.json names the two options that supply it.
TEST(RowsCli, build_summary_names_the_template_and_date_and_a_missing_config_names_the_options) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  auto b = run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "--rows", "4",
                    "--date", "2026-02-03", "-o", out, "--quiet"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // The fixture folder holds chat_template.jinja, which wins over the config's template (transformers' order).
  const std::string jinja = (fs::path(qwen3()) / "chat_template.jinja").string();
  const std::string sha = sha256_hex(read_file(jinja));
  EXPECT_NE(b.out.find("template    " + jinja + " (sha256 " + sha + "), strftime_now date 2026-02-03\n"),
            std::string::npos)
      << b.out;
  fs::create_directories(d / "tok");
  fs::copy_file(fs::path(qwen3()) / "tokenizer.json", d / "tok" / "tokenizer.json");
  auto no_config = run_cli({"rows", "build", "--source", tulu(), "--tokenizer", (d / "tok").string(), "--rows", "1",
                            "-o", (d / "x.parquet").string(), "--quiet"});
  EXPECT_EQ(no_config.exit_code, 2);
  EXPECT_THAT(no_config.err, ::testing::HasSubstr("no tokenizer_config.json beside tokenizer.json"));
  EXPECT_THAT(no_config.err, ::testing::HasSubstr("--tokenizer-config FILE"));
  EXPECT_THAT(no_config.err, ::testing::HasSubstr("--chat-template FILE"));
}

TEST(RowsCli, verify_against_a_recipe_and_bad_inputs) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  ASSERT_EQ(build_qwen3_512(out, {"--rows", "16"}).exit_code, 0);
  // A non-standard recipe that records no rows (Megatron-LM's mock data).
  auto r = run_cli({"rows", "verify", out, "--recipe",
                    (testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/ref/recipe.yaml").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("records no rows to verify (workload.rows)"));
  // A missing and a corrupt rows file.
  EXPECT_EQ(run_cli({"rows", "verify", (d / "none.parquet").string(), "--rows", "1", "--sha256", kQwen3Sha}).exit_code,
            2);
  auto junk = d.write("junk.parquet", "PAR1 this is not parquet");
  auto c = run_cli({"rows", "verify", junk.string(), "--rows", "1", "--sha256", kQwen3Sha});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_THAT(c.err, ::testing::HasSubstr("junk.parquet"));
  EXPECT_EQ(run_cli({"rows", "verify", out}).exit_code, 2);  // nothing to verify against
}

// A registry in which the fixture's 100 conversations are passed off as the Tulu 3 mixture: a rows build of
// ../shared/fixtures/tulu3 labelled allenai/tulu-3-sft-mixture at the pinned revision, and the bundled tulu3-ref run
// (a real H200 run that trained on exactly these 81 rows, at L 512 and 32 rows a step) recorded as a standard-workload
// recipe. What a forger would submit: the tests hold that it never verifies.
struct FixtureMixtureRegistry : testing::MixtureRegistry {
  FixtureMixtureRegistry() : MixtureRegistry(kQwen3Sha) {}
  // `rows build` of the fixture "mixture" labelled as the real one, as rows.parquet beside rows.manifest.json.
  std::string build_mixture_rows() const {
    const auto rows = (d / "rows.parquet").string();
    EXPECT_EQ(run_cli(testing::mixture_rows_build_args(rows)).exit_code, 0);
    return rows;
  }
  // The build's verdict on the recipe: (verified, the rows check's line, its reasons with their fixes).
  nlohmann::json result() const {
    auto r = run_cli({"build", root.string(), "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& pair : j["pairs"])
      for (const char* list : {"ranked", "unranked"})
        for (const auto& x : pair[list])
          if (x["id"] == "qwen3-0.6b/H200/tulu3-ref") return x;
    ADD_FAILURE() << "no tulu3-ref in " << r.out;
    return {};
  }
};

// Regression (SPEC §5, reference rows): a rows build of the 100-conversation fixture at L 512, registered with `rows
// register` claiming the mixture's dataset id and revision, made a recipe of 32 rows a step rank as the protocol's
// standard workload. The build is refused (nothing written), and the recipe stays unverified whatever the registry
// holds.
TEST(RowsCli, a_fixture_build_labelled_as_the_mixture_is_refused_and_its_recipe_stays_unverified) {
  OPENRECIPES_REQUIRE_FIXTURES();
  FixtureMixtureRegistry reg;
  auto before = reg.result();
  EXPECT_FALSE(before["verified"].get<bool>());
  EXPECT_EQ(before["checks"]["rows"],
            "not verified: a standard recipe trains on rows of 8192 tokens, 128 a step; this one records row_length "
            "512 and global_batch 32");
  reg.build_mixture_rows();
  const auto models_before = read_file(reg.root / "models/qwen3-0.6b.yaml");
  auto r = run_cli({"rows", "register", (reg.d / "rows.manifest.json").string(), "--registry", reg.root.string(),
                    "--model", "qwen3-0.6b"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err, ::testing::HasSubstr(
                         "the build is not the protocol's workload: its rows are 512 tokens long, the protocol's 8192; "
                         "it did not read the protocol's train-00000-of-00006.parquet, train-00001-of-00006.parquet, "
                         "train-00002-of-00006.parquet, train-00003-of-00006.parquet, train-00004-of-00006.parquet, "
                         "train-00005-of-00006.parquet; it read sft_sample.jsonl, which is not among the protocol's "
                         "files"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("fix: a reference rows build is the protocol's dataset files at its revision "
                                          "(registry/rules/workload.yaml)"));
  EXPECT_FALSE(fs::exists(reg.root / "rows"));
  EXPECT_EQ(read_file(reg.root / "models/qwen3-0.6b.yaml"), models_before);
  EXPECT_FALSE(reg.result()["verified"].get<bool>());
}

TEST(RowsCli, verify_reads_the_rows_the_bundled_tulu3_recipes_record) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  ASSERT_EQ(build_qwen3_512(out).exit_code, 0);
  for (const char* recipe : {"tulu3-ref", "tulu3-mbs16"}) {
    auto r = run_cli({"rows", "verify", out, "--recipe",
                      (testing::source_dir() / "registry/recipes/qwen3-0.6b/H200" / recipe).string()});
    EXPECT_EQ(r.exit_code, 0) << recipe << r.out << r.err;
    EXPECT_NE(r.out.find(std::string("the first 81 rows (L = 512) match sha256 ") + kQwen3Sha), std::string::npos)
        << r.out;
  }
}

TEST(RowsCli, a_manifest_path_that_is_a_folder_fails_before_touching_the_old_rows_file) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto old = d.write("r.parquet", "old rows");
  fs::create_directories(d / "r.manifest.json");
  auto b = build_qwen3_512(old.string(), {"--rows", "4"});
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
    EXPECT_THAT(b.err, ::testing::HasSubstr("the build would overwrite its input"));
  }
  EXPECT_EQ(read_file(src), read_file(tulu()));
}

TEST(RowsCli, export_keeps_the_previous_pair_when_the_idx_is_a_folder_and_refuses_its_input) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  ASSERT_EQ(build_qwen3_512(out, {"--rows", "4"}).exit_code, 0);
  auto bin = d.write("old.bin", "previous bin");
  d.write("old.idx/keep", "x");  // a non-empty folder where the .idx goes
  auto e = run_cli({"rows", "export", out, "-o", (d / "old").string()});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_THAT(e.err, ::testing::HasSubstr("old.idx: is a folder"));
  EXPECT_EQ(read_file(bin), "previous bin");
  // The prefix's .bin being the rows file itself.
  fs::copy_file(out, d / "self.bin");
  auto self = run_cli({"rows", "export", (d / "self.bin").string(), "-o", (d / "self").string()});
  EXPECT_EQ(self.exit_code, 2);
  EXPECT_THAT(self.err, ::testing::HasSubstr("the export would overwrite it"));
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
  EXPECT_THAT(big.err, ::testing::HasSubstr("--row-length: '4194305' is not a whole number from 1 to 4194304"));
  auto whole = build({"--row-length", "4194304"});  // 100 conversations give far fewer tokens than one such row
  EXPECT_EQ(whole.exit_code, 2) << whole.err;
  EXPECT_THAT(whole.err, ::testing::HasSubstr("tokens, fewer than one row of 4194304"));
  EXPECT_FALSE(fs::exists(out));
  auto zero = build({"--rows", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_THAT(zero.err, ::testing::HasSubstr("--rows: '0' is not a whole number from 1"));
  auto neg = build({"--seed", "-1"});
  EXPECT_EQ(neg.exit_code, 2);
  EXPECT_THAT(neg.err, ::testing::HasSubstr("--seed: '-1' is negative"));
  EXPECT_THAT(neg.err, ::testing::HasSubstr("numpy's default_rng accepts 0..2^128-1"));
  EXPECT_EQ(build({"--threads", "0"}).exit_code, 2);
  EXPECT_EQ(build({"--threads", "100000"}).exit_code, 2);
  auto date = build({"--date", "2026-02-30"});
  EXPECT_EQ(date.exit_code, 2);
  EXPECT_THAT(date.err, ::testing::HasSubstr("--date: '2026-02-30' is not a calendar date"));
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
  EXPECT_THAT(t.err, ::testing::HasSubstr("rows build refuses"));
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
