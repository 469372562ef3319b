// Reference rows builds (registry/rows/<id>/): rows.yaml written by its writer reads back, every disagreement with
// its manifest evidence is named with both values, and the registry refuses a model naming a build it lacks.
#include "registry/reference_rows.h"

#include "registry/protocol_workload.h"

#include <fstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "registry/registry.h"
#include "testing/support.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;

// A manifest as `rows build` writes one (the values are a made-up build; the reader checks only their formats).
rows::RowsManifest manifest() {
  rows::RowsManifest m;
  m.dataset_id = "allenai/tulu-3-sft-mixture";
  m.dataset_revision = "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be";
  m.sources = {{"train-00000-of-00006.parquet", std::string(64, 'a'), 1000, 60},
               {"train-00001-of-00006.parquet", std::string(63, '0') + "1", 2000, 40}};
  m.tokenizer_json_sha256 = std::string(64, 'c');
  m.tokenizer_config_sha256 = std::string(64, 'd');
  m.chat_template_sha256 = "0" + std::string(63, 'e');
  m.eos_token = "<|im_end|>";
  m.eos_id = 151645;
  m.seed = 0;
  m.row_length = 8192;
  m.conversations = 100;
  m.rows_requested = 2560;
  m.rows_written = 2560;
  m.rows_sha256 = std::string(64, 'f');
  m.tokens_dropped = 17;
  m.tool_version = "openrecipes 0.1.0";
  return m;
}

// The protocol's workload as a registry with every sha256 recorded would hold it: the manifest()'s two files (the
// bundled registry/rules/workload.yaml lists six, with no sha256 recorded yet).
ProtocolWorkload recorded_protocol(std::size_t files = 2) {
  ProtocolWorkload p;
  p.dataset = "allenai/tulu-3-sft-mixture";
  p.revision = "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be";
  p.file = "workload.yaml";
  const auto m = manifest();
  for (std::size_t k = 0; k < files && k < m.sources.size(); ++k)
    p.sources.push_back({m.sources[k].name, m.sources[k].sha256});
  return p;
}

fs::path write_build(const fs::path& rows_dir, const std::string& id, const rows::RowsManifest& yaml_side,
                     const rows::RowsManifest& evidence) {
  const auto dir = rows_dir / id;
  fs::create_directories(dir);
  std::ofstream(dir / "rows.yaml") << reference_rows_yaml(id, yaml_side, {{1792, std::string(64, '1')}}, "test build");
  std::ofstream(dir / kReferenceManifestName) << rows::manifest_to_json(evidence);
  return dir;
}

std::string load_error(const fs::path& dir) {
  return testing::message_of([&] { load_reference_rows(dir); });
}

TEST(ReferenceRows, what_the_writer_writes_reads_back_as_the_manifest) {
  TempDir d;
  const auto dir = write_build(d.path(), "tulu3-l8192-seed0", manifest(), manifest());
  const auto b = load_reference_rows(dir);
  EXPECT_EQ(b.id, "tulu3-l8192-seed0");
  EXPECT_EQ(b.manifest, manifest());
  ASSERT_EQ(b.prefixes.size(), 1u);
  EXPECT_EQ(b.prefixes[0], (RowsPrefix{1792, std::string(64, '1')}));
  EXPECT_EQ(load_reference_rows(fs::path(dir.string() + "/")).id, "tulu3-l8192-seed0");  // a trailing separator
  auto folder = load_reference_rows_folder(d.path());
  ASSERT_EQ(folder.size(), 1u);
  EXPECT_EQ(folder.begin()->first, "tulu3-l8192-seed0");
  EXPECT_TRUE(load_reference_rows_folder(d / "none").empty());
}

TEST(ReferenceRows, a_field_where_rows_yaml_and_its_manifest_disagree_is_named_with_both_values) {
  TempDir d;
  auto edited = manifest();
  edited.rows_sha256 = std::string(64, '9');  // rows.yaml edited by hand, the evidence left as it was
  const auto dir = write_build(d.path(), "b", edited, manifest());
  const auto m = load_error(dir);
  EXPECT_NE(m.find("rows.yaml: rows_sha256: rows.yaml records \"" + std::string(64, '9') +
                   "\" but its manifest rows.manifest.json records \"" + std::string(64, 'f') + "\""),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("openrecipes rows register"), std::string::npos) << m;
  edited = manifest();
  edited.sources[1].sha256 = std::string(64, '2');
  EXPECT_NE(load_error(write_build(d.path(), "c", edited, manifest())).find("rows.yaml: sources: "), std::string::npos);
}

TEST(ReferenceRows, malformed_files_are_refused_naming_the_field) {
  TempDir d;
  auto dir = write_build(d.path(), "b", manifest(), manifest());
  auto yaml = read_file(dir / "rows.yaml");
  std::ofstream(dir / "rows.yaml") << yaml + "extra: 1\n";
  EXPECT_NE(load_error(dir).find("extra"), std::string::npos);
  std::ofstream(dir / "rows.yaml") << std::string(yaml).replace(yaml.find("id: b"), 5, "id: x");
  EXPECT_NE(load_error(dir).find("id 'x' is not the folder's name 'b'"), std::string::npos) << load_error(dir);
  std::ofstream(dir / "rows.yaml") << std::string(yaml).replace(yaml.find("seed: 0"), 7, "seed: -1");
  EXPECT_NE(load_error(dir).find("seed"), std::string::npos) << load_error(dir);
  std::ofstream(dir / "rows.yaml") << std::string(yaml).replace(yaml.find("manifest: rows.manifest.json"), 28,
                                                                "manifest: ../../../etc/passwd");
  EXPECT_NE(load_error(dir).find("the manifest must be the build folder's rows.manifest.json"), std::string::npos);
  std::ofstream(dir / "rows.yaml") << yaml;
  fs::remove(dir / kReferenceManifestName);
  EXPECT_NE(load_error(dir).find(kReferenceManifestName), std::string::npos) << load_error(dir);
}

TEST(ReferenceRows, the_registry_refuses_a_model_that_names_a_build_it_does_not_hold) {
  TempDir d;
  const auto root = d / "registry";
  fs::copy(testing::source_dir() / "registry", root, fs::copy_options::recursive);
  fs::remove_all(root / "recipes");
  { std::ofstream(root / "models/qwen3-0.6b.yaml", std::ios::app) << "rows_build: nowhere\n"; }
  try {
    load_registry(root);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("qwen3-0.6b.yaml: rows_build: names rows build 'nowhere'"), std::string::npos)
        << e.what();
  }
  write_build(root / "rows", "nowhere", manifest(), manifest());
  EXPECT_EQ(load_registry(root).reference_rows.count("nowhere"), 1u);
}

TEST(ReferenceRows, a_standard_recipe_verifies_on_the_whole_build_or_a_recorded_prefix_and_names_what_differs) {
  TempDir d;
  auto builds = load_reference_rows_folder(write_build(d.path(), "tulu3", manifest(), manifest()).parent_path());
  ModelInfo model;
  model.id = "qwen3-0.6b";
  model.file = "registry/models/qwen3-0.6b.yaml";
  Recipe r;
  r.model = "qwen3-0.6b";
  r.stack.framework = "megatron-lm";  // rows read from an export: the count is the export's
  r.workload.standard = true;
  r.workload.dataset = "allenai/tulu-3-sft-mixture";
  r.workload.revision = "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be";
  r.workload.row_length = 8192;
  r.workload.global_batch = 128;
  r.workload.rows_count = 2560;
  r.workload.rows_sha256 = std::string(64, 'f');
  const ProtocolWorkload protocol = recorded_protocol();
  auto check_rows = [&](const Recipe& x, const ModelInfo* m, const auto& b) {
    return registry::check_rows(x, m, b, protocol);
  };
  // No rows build named: not verified, the fix names rows register.
  auto none = check_rows(r, &model, builds);
  EXPECT_EQ(none.status,
            "not verified: the registry records no rows build for qwen3-0.6b to check rows_sha256 "
            "against");
  EXPECT_NE(none.fix->find("openrecipes rows register <rows.manifest.json> --model qwen3-0.6b"), std::string::npos);
  model.rows_build = "tulu3";
  EXPECT_EQ(check_rows(r, &model, builds).status,
            "verified: the 2560 rows of rows build 'tulu3' (registry/rows/tulu3)");  // the whole build
  r.workload.rows_count = 1792;  // a 14-step run: the recorded prefix
  r.workload.rows_sha256 = std::string(64, '1');
  EXPECT_EQ(check_rows(r, &model, builds).status,
            "verified: the 1792 rows of rows build 'tulu3' (registry/rows/tulu3)");
  r.workload.rows_sha256 = std::string(64, '2');
  EXPECT_EQ(check_rows(r, &model, builds).status,
            "not verified: the recipe's rows are not rows build 'tulu3' of qwen3-0.6b: rows_sha256 " +
                std::string(64, '2') + " (the build's: " + std::string(64, '1') + ")");
  r.workload.rows_count = 1000;
  r.workload.seed = 7;
  EXPECT_EQ(check_rows(r, &model, builds).status,
            "not verified: the recipe's rows are not rows build 'tulu3' of qwen3-0.6b: seed 7 (the build's: 0); rows "
            "count 1000 (the build records the digests of the first 1792, 2560 rows)");
  // slime reads step i's rows [i·128, (i+1)·128): a 20-step run read 2,560 rows, not 1,792.
  r.workload.seed = 0;
  r.workload.rows_count = 1792;
  r.workload.rows_sha256 = std::string(64, '1');
  r.workload.global_batch = 128;
  r.steps_per_run = 20;
  r.stack.framework = "slime";
  EXPECT_EQ(check_rows(r, &model, builds).status,
            "not verified: the recipe's rows are not rows build 'tulu3' of qwen3-0.6b: rows count 1792, but a 20-step "
            "run of 128 rows a step reads 2560");
  r.steps_per_run = 14;
  EXPECT_EQ(check_rows(r, &model, builds).status.rfind("verified: ", 0), 0u);
  r.workload.standard = false;
  EXPECT_EQ(check_rows(r, &model, builds).status, "not applicable (non-standard workload)");
}

// Regression (SPEC §5, reference rows): a rows build of the 100-conversation fixture at L 512, registered claiming the
// mixture's dataset id and revision, made a recipe of 32 rows a step rank as the protocol's standard workload.
TEST(ReferenceRows, a_standard_recipe_is_l_8192_and_128_rows_a_step_on_a_build_of_the_protocols_files) {
  TempDir d;
  auto fixture = manifest();  // what `rows build` of ../shared/fixtures/tulu3 at L 512 records, claiming the mixture
  fixture.sources = {
      {"sft_sample.jsonl", "1250eb7cf35a8c6f28c94a80697d887d3f7647420ee5019e2dad5c08bd769862", 222762, 100}};
  fixture.row_length = 512;
  auto builds = load_reference_rows_folder(write_build(d.path(), "fixture", fixture, fixture).parent_path());
  ModelInfo model;
  model.id = "qwen3-0.6b";
  model.file = "registry/models/qwen3-0.6b.yaml";
  model.rows_build = "fixture";
  Recipe r;
  r.model = "qwen3-0.6b";
  r.stack.framework = "megatron-lm";
  r.workload.standard = true;
  r.workload.dataset = fixture.dataset_id;
  r.workload.revision = fixture.dataset_revision;
  r.workload.row_length = 512;
  r.workload.global_batch = 32;
  r.workload.rows_count = 2560;
  r.workload.rows_sha256 = fixture.rows_sha256;
  const auto protocol = recorded_protocol();
  EXPECT_EQ(check_rows(r, &model, builds, protocol).status,
            "not verified: a standard recipe trains on rows of 8192 tokens, 128 a step; this one records row_length "
            "512 and global_batch 32");
  r.workload.row_length = 8192;
  r.workload.global_batch = 128;
  EXPECT_EQ(check_rows(r, &model, builds, protocol).status,
            "not verified: rows build 'fixture' is not the protocol's workload: its rows are 512 tokens long, the "
            "protocol's 8192; it did not read the protocol's train-00000-of-00006.parquet, "
            "train-00001-of-00006.parquet; it read sft_sample.jsonl, which is not among the protocol's files");
}

TEST(ReferenceRows, a_build_is_the_protocols_only_with_every_file_and_its_recorded_sha256) {
  const auto m = manifest();
  EXPECT_TRUE(protocol_build_problems(m, recorded_protocol()).empty());
  auto other = m;
  other.sources[1].sha256 = std::string(64, '9');
  EXPECT_EQ(protocol_build_problems(other, recorded_protocol()),
            (std::vector<std::string>{"its source train-00001-of-00006.parquet has sha256 " + std::string(64, '9') +
                                      ", the protocol's file " + std::string(63, '0') + "1"}));
  other = m;
  other.dataset_revision = std::string(40, '0');
  other.dataset_id = "someone/mixture";
  EXPECT_EQ(protocol_build_problems(other, recorded_protocol()).size(), 2u);
  // A file of the protocol whose sha256 is not recorded: no build can be checked against it.
  auto unrecorded = recorded_protocol();
  unrecorded.sources[0].sha256 = std::nullopt;
  EXPECT_EQ(protocol_build_problems(m, unrecorded),
            (std::vector<std::string>{"workload.yaml records no sha256 of train-00000-of-00006.parquet yet, so the "
                                      "build's sources cannot be checked (a maintainer records them from the Hub: see "
                                      "that file)"}));
  // The bundled one: the mixture's six files at b14afda, their sha256 not recorded yet (no machine reaches the Hub).
  const auto& bundled = protocol_workload();
  EXPECT_EQ(bundled.dataset, "allenai/tulu-3-sft-mixture");
  EXPECT_EQ(bundled.revision, "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be");
  ASSERT_EQ(bundled.sources.size(), 6u);
  EXPECT_EQ(bundled.sources[5].name, "train-00005-of-00006.parquet");
  EXPECT_FALSE(protocol_build_problems(m).empty());
}

TEST(ReferenceRows, a_protocol_workload_file_is_validated) {
  auto bad = [](const std::string& text) {
    return testing::message_of([&] { parse_protocol_workload(text, "w.yaml"); });
  };
  const std::string head = "version: 1\ndataset: d\nrevision: " + std::string(40, 'a') + "\n";
  EXPECT_NO_THROW(parse_protocol_workload(head + "sources: [{name: a.parquet, sha256: null}]\n", "w.yaml"));
  EXPECT_NE(bad(head + "sources: [{name: ../a, sha256: null}]\n").find("not a plain file name"), std::string::npos);
  EXPECT_NE(bad(head + "sources: [{name: a, sha256: null}, {name: a, sha256: null}]\n").find("listed twice"),
            std::string::npos);
  EXPECT_NE(bad(head + "sources: [{name: a, sha256: XYZ}]\n").find("64 lower-case hex"), std::string::npos);
  EXPECT_NE(bad("version: 1\ndataset: d\nrevision: main\nsources: [{name: a}]\n").find("40-hex-digit"),
            std::string::npos);
}

TEST(ReferenceRows, the_protocols_run_lengths_read_14_and_20_to_25_steps_of_128_rows) {
  EXPECT_EQ(protocol_row_counts(), (std::vector<std::uint64_t>{1792, 2560, 2688, 2816, 2944, 3072, 3200}));
}

TEST(ReferenceRows, default_ids_are_registry_names) {
  EXPECT_EQ(default_reference_rows_id(manifest()), "tulu-3-sft-mixture-l8192-seed0-r2560-tokcccccccc");
  auto local = manifest();
  local.dataset_id = "";
  EXPECT_EQ(default_reference_rows_id(local), "local-l8192-seed0-r2560-tokcccccccc");
}

}  // namespace
}  // namespace openrecipes::registry
