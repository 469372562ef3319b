// `openrecipes rows build|verify|export` and `openrecipes tokenize` as a user runs them.
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/atomic_output.h"
#include "core/files.h"
#include "core/sha256.h"
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
  EXPECT_NE(no_config.err.find("no tokenizer_config.json beside tokenizer.json"), std::string::npos) << no_config.err;
  EXPECT_NE(no_config.err.find("--tokenizer-config FILE"), std::string::npos) << no_config.err;
  EXPECT_NE(no_config.err.find("--chat-template FILE"), std::string::npos) << no_config.err;
}

TEST(RowsCli, verify_against_a_recipe_and_bad_inputs) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  ASSERT_EQ(run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "--rows", "16",
                     "-o", out, "--quiet"})
                .exit_code,
            0);
  // A non-standard recipe that records no rows (Megatron-LM's mock data).
  auto r = run_cli({"rows", "verify", out, "--recipe",
                    (testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/ref/recipe.yaml").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("records no rows to verify (workload.rows)"), std::string::npos) << r.err;
  // A missing and a corrupt rows file.
  EXPECT_EQ(run_cli({"rows", "verify", (d / "none.parquet").string(), "--rows", "1", "--sha256", kQwen3Sha}).exit_code,
            2);
  auto junk = d.write("junk.parquet", "PAR1 this is not parquet");
  auto c = run_cli({"rows", "verify", junk.string(), "--rows", "1", "--sha256", kQwen3Sha});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("junk.parquet"), std::string::npos) << c.err;
  EXPECT_EQ(run_cli({"rows", "verify", out}).exit_code, 2);  // nothing to verify against
}

// A registry in which the fixture's 100 conversations are passed off as the Tulu 3 mixture: a rows build of
// ../shared/fixtures/tulu3 labelled allenai/tulu-3-sft-mixture at the pinned revision, and the bundled tulu3-ref run
// (a real H200 run that trained on exactly these 81 rows, at L 512 and 32 rows a step) recorded as a standard-workload
// recipe. What a forger would submit: the tests hold that it never verifies.
struct FixtureMixtureRegistry {
  TempDir d;
  fs::path root = d / "registry";
  fs::path recipe = root / "recipes/qwen3-0.6b/H200/tulu3-ref/recipe.yaml";
  FixtureMixtureRegistry() {
    fs::copy(testing::source_dir() / "registry", root, fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(root / "recipes/qwen3-0.6b/H200"))
      if (e.path().filename() != "tulu3-ref") fs::remove_all(e.path());
    std::string y = read_file(recipe);
    const auto begin = y.find("workload:\n"), end = y.find("  row_length: 512\n");
    y.replace(begin, end - begin,
              std::string("workload:\n  kind: standard\n  dataset: allenai/tulu-3-sft-mixture\n"
                          "  revision: b14afda60f1bbebe55d5d2fa1e4df5042f97f8be\n  tokenizer: Qwen/Qwen3-0.6B\n"
                          "  tokenizer_revision: null\n  seed: 0\n  rows: {count: 81, sha256: ") +
                  kQwen3Sha + "}\n");
    write_file_atomic(recipe, y);
  }
  // `rows build` of the fixture "mixture" labelled as the real one, as rows.parquet beside rows.manifest.json.
  std::string build_mixture_rows() const {
    const auto rows = (d / "rows.parquet").string();
    EXPECT_EQ(run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512",
                       "--dataset-id", "allenai/tulu-3-sft-mixture", "--dataset-revision",
                       "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be", "-o", rows, "--quiet"})
                  .exit_code,
              0);
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
  EXPECT_NE(r.err.find("the build is not the protocol's workload: its rows are 512 tokens long, the protocol's 8192; "
                       "it did not read the protocol's train-00000-of-00006.parquet, train-00001-of-00006.parquet, "
                       "train-00002-of-00006.parquet, train-00003-of-00006.parquet, train-00004-of-00006.parquet, "
                       "train-00005-of-00006.parquet; it read sft_sample.jsonl, which is not among the protocol's "
                       "files"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("fix: a reference rows build is the protocol's dataset files at its revision "
                       "(registry/rules/workload.yaml)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(reg.root / "rows"));
  EXPECT_EQ(read_file(reg.root / "models/qwen3-0.6b.yaml"), models_before);
  EXPECT_FALSE(reg.result()["verified"].get<bool>());
}

TEST(RowsCli, verify_reads_the_rows_the_bundled_tulu3_recipes_record) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto out = (d / "rows.parquet").string();
  ASSERT_EQ(run_cli({"rows", "build", "--source", tulu(), "--tokenizer", qwen3(), "--row-length", "512", "-o", out,
                     "--quiet"})
                .exit_code,
            0);
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
