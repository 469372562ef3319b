// Tests for src/rows/output/manifest (SPEC §1.7): exact bytes of rows.manifest.json, round trip, and the checks applied
// to a manifest read from disk.
#include "rows/output/manifest.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

using openrecipes::testing::TempDir;
using ::testing::HasSubstr;

const std::string kShaA(64, 'a'), kShaB(64, 'b'), kShaC(64, 'c'), kShaD(64, 'd'), kShaE(64, 'e'), kShaF(64, 'f');

RowsManifest sample() {
  RowsManifest m;
  m.dataset_id = "allenai/tulu-3-sft-mixture";
  m.dataset_revision = "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be";
  m.sources = {{"train-00000-of-00002.parquet", kShaA, 1000, 60}, {"train-00001-of-00002.parquet", kShaB, 900, 40}};
  m.tokenizer_json_sha256 = kShaC;
  m.tokenizer_config_sha256 = kShaD;
  m.chat_template_sha256 = kShaE;
  m.eos_token = "<|im_end|>";
  m.eos_id = 151645;
  m.seed = 0;
  m.row_length = 8192;
  m.conversations = 100;
  m.rows_requested = 5;
  m.rows_written = 5;
  m.tokens_dropped = 1234;
  m.rows_sha256 = kShaF;
  m.tool_version = "openrecipes 0.1.0";
  return m;
}

// The expected file, written out by hand from the format in docs/rows-format.md.
const char* const kSampleJson = R"({
  "chat_template_sha256": "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
  "conversations": 100,
  "dataset_id": "allenai/tulu-3-sft-mixture",
  "dataset_revision": "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be",
  "eos_id": 151645,
  "eos_token": "<|im_end|>",
  "format_version": 1,
  "row_length": 8192,
  "rows_requested": 5,
  "rows_sha256": "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
  "rows_written": 5,
  "seed": 0,
  "sources": [
    {
      "bytes": 1000,
      "conversations": 60,
      "name": "train-00000-of-00002.parquet",
      "sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    },
    {
      "bytes": 900,
      "conversations": 40,
      "name": "train-00001-of-00002.parquet",
      "sha256": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    }
  ],
  "strftime_date": "2026-01-01",
  "tokenizer_config_sha256": "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
  "tokenizer_json_sha256": "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
  "tokens_dropped": 1234,
  "tool_version": "openrecipes 0.1.0"
}
)";

std::string error_of(const std::string& text) {
  return testing::message_of([&] { manifest_from_json(text, "m.json"); });
}

// The sample with one field replaced (or removed when `value` is discarded JSON).
std::string with(const std::string& key, const nlohmann::json& value) {
  auto j = nlohmann::json::parse(kSampleJson);
  if (value.is_discarded())
    j.erase(key);
  else
    j[key] = value;
  return j.dump(2);
}

TEST(Manifest, bytes_are_sorted_keys_two_space_indent_and_a_trailing_newline) {
  EXPECT_EQ(manifest_to_json(sample()), kSampleJson);
  EXPECT_EQ(manifest_to_json(sample()), manifest_to_json(sample()));
}

TEST(Manifest, round_trip_gives_the_same_manifest_and_null_rows_requested) {
  auto m = sample();
  EXPECT_EQ(manifest_from_json(manifest_to_json(m), "m"), m);
  m.rows_requested.reset();
  m.rows_written = 77;
  m.seed = 18446744073709551615ull;
  m.dataset_id = "";
  m.sources[0].name = "données-é.parquet";  // non-ASCII kept as UTF-8
  auto text = manifest_to_json(m);
  EXPECT_THAT(text, HasSubstr("\"rows_requested\": null"));
  EXPECT_THAT(text, HasSubstr("\"seed\": 18446744073709551615"));
  EXPECT_THAT(text, HasSubstr("données-é.parquet"));
  EXPECT_EQ(manifest_from_json(text, "m"), m);
}

TEST(Manifest, written_atomically_and_read_back) {
  TempDir tmp;
  write_manifest(tmp / "rows.manifest.json", sample());
  EXPECT_EQ(read_file(tmp / "rows.manifest.json"), kSampleJson);
  EXPECT_EQ(read_manifest(tmp / "rows.manifest.json"), sample());
  EXPECT_THROW(read_manifest(tmp / "missing.json"), InputError);
}

TEST(Manifest, untrusted_manifests_are_checked_field_by_field) {
  const nlohmann::json gone = nlohmann::json::value_t::discarded;
  EXPECT_THAT(error_of("{"), HasSubstr("m.json: not valid JSON"));
  EXPECT_THAT(error_of("[1]"), HasSubstr("m.json: the manifest is not a JSON object"));
  EXPECT_THAT(error_of(with("extra", 1)), HasSubstr("m.json: extra: unknown key"));
  EXPECT_THAT(error_of(with("rows_sha256", gone)), HasSubstr("m.json: rows_sha256: missing"));
  EXPECT_THAT(error_of(with("rows_sha256", std::string(64, 'A'))), HasSubstr("rows_sha256: '" + std::string(64, 'A')));
  EXPECT_THAT(error_of(with("seed", -1)), HasSubstr("m.json: seed: -1 is not a non-negative integer"));
  EXPECT_THAT(error_of(with("seed", 1.5)), HasSubstr("m.json: seed: 1.5 is not a non-negative integer"));
  EXPECT_THAT(error_of(with("row_length", 0)), HasSubstr("row_length: 0 is outside 1..4194304"));
  EXPECT_THAT(error_of(with("row_length", 5000000)), HasSubstr("row_length: 5000000 is over the limit of 4194304"));
  EXPECT_THAT(error_of(with("eos_token", 3)), HasSubstr("eos_token: a JSON number, expected a string"));
  EXPECT_THAT(error_of(with("format_version", 2)), HasSubstr("format_version: version 2 is not supported"));
  EXPECT_THAT(error_of(with("conversations", 99)),
              HasSubstr("conversations: 99 conversations, but the sources add up to 100"));
  EXPECT_THAT(error_of(with("rows_written", 6)), HasSubstr("rows_written: 6 rows written but only 5 requested"));
  EXPECT_THAT(error_of(with("strftime_date", "2026-02-29")), HasSubstr("strftime_date: '2026-02-29' is not a date"));
  EXPECT_NO_THROW(manifest_from_json(with("strftime_date", "2028-02-29"), "m.json"));
  EXPECT_THAT(error_of(with("dataset_id", std::string(5000, 'x'))),
              HasSubstr("dataset_id: 5000 bytes, over the limit"));
  EXPECT_THAT(error_of(with("sources", nlohmann::json::array())), HasSubstr("sources: 0 sources, expected 1..100000"));

  auto j = nlohmann::json::parse(kSampleJson);
  std::swap(j["sources"][0], j["sources"][1]);
  EXPECT_THAT(error_of(j.dump()), HasSubstr("sources[1].name: 'train-00000-of-00002.parquet' does not come after"));
  j = nlohmann::json::parse(kSampleJson);
  j["sources"][1]["mode"] = "x";
  EXPECT_THAT(error_of(j.dump()), HasSubstr("m.json: sources[1].mode: unknown key"));
  j = nlohmann::json::parse(kSampleJson);
  j["sources"][0]["sha256"] = "abc";
  EXPECT_THAT(error_of(j.dump()), HasSubstr("sources[0].sha256: 'abc' is not a sha256"));

  std::string dup = kSampleJson;
  dup.insert(2, "\"seed\": 5,\n");
  EXPECT_THAT(error_of(dup), HasSubstr("m.json: the key \"seed\" appears twice in one object"));
}

TEST(Manifest, writing_refuses_what_reading_would_refuse) {
  auto m = sample();
  m.rows_sha256 = "nope";
  EXPECT_THROW(manifest_to_json(m), InputError);
  m = sample();
  m.sources[1].name = "bad\xff.parquet";
  EXPECT_THROW(manifest_to_json(m), InputError);
}

}  // namespace
}  // namespace openrecipes::rows
