// Tests for src/registry/rows_register: `rows register` of a protocol rows build. The protocol here is a test's: the
// fixture's 100 conversations (../shared/fixtures/tulu3/sft_sample.jsonl, with its sha256) at L 512, 32 rows a step,
// standing for the mixture's six files at L 8,192, so that a build registers and a standard recipe verifies end to end
// on 2 cores (the compiled-in protocol records no sha256 yet: tests/cli/rows_cli_test.cpp shows it refusing).
#include "registry/rows_register.h"

#include <gtest/gtest.h>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "registry/evaluate.h"
#include "registry/registry.h"
#include "testing/mixture_registry.h"
#include "testing/support.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;

const char* kQwen3Sha = "30eb27066ab49cc9eeef9edb3862a39c6d98649683cbfc9cfe28e19dbef4aca8";    // 81 rows at L 512
const char* kFixtureSha = "1250eb7cf35a8c6f28c94a80697d887d3f7647420ee5019e2dad5c08bd769862";  // its SOURCE.txt

ProtocolWorkload fixture_protocol() {
  ProtocolWorkload p;
  p.dataset = "allenai/tulu-3-sft-mixture";
  p.revision = "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be";
  p.sources = {{"sft_sample.jsonl", kFixtureSha}};
  p.row_length = 512;
  p.global_batch = 32;
  p.file = "test-workload.yaml";
  return p;
}

// A scratch registry holding the bundled tulu3-ref run recorded as a standard recipe, and `rows build`'s output.
struct Fixture : testing::MixtureRegistry {
  fs::path manifest = d / "rows.manifest.json";
  Fixture() : MixtureRegistry(kQwen3Sha) {}
  void build_rows(const std::vector<std::string>& more = {}, const std::string& name = "rows") const {
    auto args = testing::mixture_rows_build_args((d / (name + ".parquet")).string());
    args.insert(args.end(), more.begin(), more.end());
    const auto r = testing::run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  RowsRegistered reg(RowsRegistration q) const {
    if (q.manifest.empty()) q.manifest = manifest;
    return register_rows_build(root, q, fixture_protocol());
  }
  std::string refused(RowsRegistration q) const {
    return testing::message_of([&] { reg(std::move(q)); });
  }
  // The build's verdict on tulu3-ref under the test's protocol: its rows check's line.
  std::string rows_check() const {
    auto registry = load_registry(root);
    registry.protocol = fixture_protocol();
    for (const auto& r : evaluate_registry(registry))
      if (r.id == "qwen3-0.6b/H200/tulu3-ref") return r.rows_status;
    return "no result";
  }
};

TEST(RowsRegister, a_protocol_build_registers_as_the_models_and_its_standard_recipe_verifies) {
  OPENRECIPES_REQUIRE_FIXTURES();
  Fixture f;
  EXPECT_EQ(f.rows_check(),
            "not verified: the registry records no rows build for qwen3-0.6b to check rows_sha256 "
            "against");
  f.build_rows();
  RowsRegistration q;
  q.model = "qwen3-0.6b";
  const auto r = f.reg(q);
  const std::string id = "tulu-3-sft-mixture-l512-seed0-r81-tokaeb13307";
  EXPECT_EQ(r.id, id);
  EXPECT_EQ(r.status, "registered");
  EXPECT_EQ(r.manifest.rows_sha256, kQwen3Sha);
  EXPECT_FALSE(r.replaced);
  EXPECT_TRUE(fs::exists(f.root / "rows" / id / "rows.manifest.json"));
  EXPECT_NE(read_file(f.root / "models/qwen3-0.6b.yaml").find("\nrows_build: " + id + "\n"), std::string::npos);
  EXPECT_EQ(f.rows_check(), "verified: the 81 rows of rows build '" + id + "' (registry/rows/" + id + ")");
  // The compiled-in protocol (the mixture's six files at L 8,192) does not take this build.
  auto bundled = load_registry(f.root);
  for (const auto& x : evaluate_registry(bundled)) {
    if (x.id == "qwen3-0.6b/H200/tulu3-ref") {
      EXPECT_EQ(x.rows_status.rfind("not verified: a standard recipe", 0), 0u) << x.rows_status;
    }
  }
  // A recipe that records other rows is refused, naming both values.
  const std::string other(64, 'b');
  std::string y = read_file(f.recipe);
  y.replace(y.find(kQwen3Sha), 64, other);
  write_file_atomic(f.recipe, y);
  EXPECT_EQ(f.rows_check(), "not verified: the recipe's rows are not rows build '" + id +
                                "' of qwen3-0.6b: rows_sha256 " + other + " (the build's: " + kQwen3Sha + ")");
}

// Regression: `rows register --model` silently replaced the model's previous rows build.
TEST(RowsRegister, a_models_rows_build_is_replaced_only_when_asked_and_the_replaced_one_is_named) {
  OPENRECIPES_REQUIRE_FIXTURES();
  Fixture f;
  f.build_rows();
  RowsRegistration q;
  q.model = "qwen3-0.6b";
  f.reg(q);
  const auto model_before = read_file(f.root / "models/qwen3-0.6b.yaml");
  f.build_rows({"--rows", "40"}, "first40");
  RowsRegistration other;
  other.manifest = f.d / "first40.manifest.json";
  other.model = "qwen3-0.6b";
  const std::string e = f.refused(other);
  EXPECT_NE(e.find("qwen3-0.6b already names rows build 'tulu-3-sft-mixture-l512-seed0-r81-tokaeb13307'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("give --replace to make 'tulu-3-sft-mixture-l512-seed0-r40-tokaeb13307' its rows build instead"),
            std::string::npos)
      << e;
  EXPECT_EQ(read_file(f.root / "models/qwen3-0.6b.yaml"), model_before);
  EXPECT_FALSE(fs::exists(f.root / "rows/tulu-3-sft-mixture-l512-seed0-r40-tokaeb13307"));
  other.replace = true;
  const auto r = f.reg(other);
  ASSERT_TRUE(r.replaced);
  EXPECT_EQ(*r.replaced, "tulu-3-sft-mixture-l512-seed0-r81-tokaeb13307");
  EXPECT_NE(read_file(f.root / "models/qwen3-0.6b.yaml").find("\nrows_build: tulu-3-sft-mixture-l512-seed0-r40-"),
            std::string::npos);
  // Registering the model's own build again is no replacement.
  EXPECT_FALSE(f.reg(other).replaced);
}

TEST(RowsRegister, the_manifest_must_describe_its_rows_and_an_id_holds_one_build) {
  OPENRECIPES_REQUIRE_FIXTURES();
  Fixture f;
  f.build_rows({"--rows", "16"});
  // Rows that are not the manifest's: the 16 rows rebuilt with another seed under the same manifest.
  f.build_rows({"--rows", "16", "--seed", "1"}, "other");
  fs::copy_file(f.d / "other.parquet", f.d / "rows.parquet", fs::copy_options::overwrite_existing);
  EXPECT_NE(f.refused({}).find("the manifest records 16 rows with rows_sha256"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.root / "rows"));
  fs::remove(f.d / "rows.parquet");
  EXPECT_NE(f.refused({}).find("the rows file of this manifest is not there"), std::string::npos);
  // The same id for another build.
  RowsRegistration x;
  x.manifest = f.d / "other.manifest.json";
  x.id = "x";
  f.reg(x);
  f.build_rows({"--rows", "16"});
  RowsRegistration clash;
  clash.id = "x";
  EXPECT_NE(f.refused(clash).find("a different rows build is registered under this id"), std::string::npos);
}

TEST(RowsRegister, bad_ids_and_model_files_it_cannot_edit_leave_nothing_behind) {
  OPENRECIPES_REQUIRE_FIXTURES();
  Fixture f;
  f.build_rows();
  const auto models_before = read_file(f.root / "models/qwen3-0.6b.yaml");
  for (const char* id : {"../x", "/tmp/abs", "a/b", "UPPER", "-x", ".hidden", "", "a b"}) {
    RowsRegistration q;
    q.id = id;
    EXPECT_NE(f.refused(q).find("is not a rows build id"), std::string::npos) << id;
  }
  EXPECT_FALSE(fs::exists(f.root / "rows"));
  EXPECT_FALSE(fs::exists(f.root / "x"));
  EXPECT_FALSE(fs::exists("/tmp/abs"));
  // A prefix as long as the build is its rows_sha256, not a prefix.
  RowsRegistration whole;
  whole.prefixes = {81};
  EXPECT_NE(f.refused(whole).find("81 rows is not fewer than the build's 81"), std::string::npos);
  // A model file whose rows_build is written over two lines is left for the maintainer: nothing is written.
  write_file_atomic(f.root / "models/qwen3-0.6b.yaml", models_before + "rows_build:\n  old\n");
  RowsRegistration model;
  model.model = "qwen3-0.6b";
  model.replace = true;
  EXPECT_NE(f.refused(model).find("qwen3-0.6b.yaml: rows_build: cannot set it by editing the line"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.root / "rows"));
  // CRLF line endings stay CRLF; a README beside the builds is not a build.
  std::string crlf;
  for (char c : models_before) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  write_file_atomic(f.root / "models/qwen3-0.6b.yaml", crlf);
  model.replace = false;
  f.reg(model);
  const auto edited = read_file(f.root / "models/qwen3-0.6b.yaml");
  EXPECT_NE(edited.find("\r\nrows_build: tulu-3-sft-mixture-l512-seed0-r81-tokaeb13307\r\n"), std::string::npos);
  EXPECT_EQ(edited.find("\n\n"), std::string::npos);
  write_file_atomic(f.root / "rows/README.md", "builds registered with openrecipes rows register\n");
  EXPECT_EQ(f.rows_check().rfind("verified: ", 0), 0u);
  // Registering again with a new prefix adds it; the same again changes nothing.
  RowsRegistration more;
  more.prefixes = {10};
  EXPECT_EQ(f.reg(more).status, "registered again (prefixes added):");
  EXPECT_NE(read_file(f.root / "rows/tulu-3-sft-mixture-l512-seed0-r81-tokaeb13307/rows.yaml").find("count: 10,"),
            std::string::npos);
  EXPECT_EQ(f.reg(more).status, "already registered:");
}

}  // namespace
}  // namespace openrecipes::registry
