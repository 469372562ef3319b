#include "params/checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "safetensors_writer.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using ::testing::HasSubstr;
using testing::TempDir;
namespace st = testing::st;

std::string error_of(const std::filesystem::path& p) {
  return testing::message_of([&] { open_checkpoint(p); });
}

std::vector<st::Tensor> three() {
  return {{"model.a.weight", "BF16", {4, 4}}, {"model.b.weight", "F32", {2}}, {"lm_head.weight", "BF16", {8, 4}}};
}

TEST(Checkpoint, a_folder_with_an_index_reads_every_shard_it_names) {
  TempDir d;
  auto t = three();
  st::write_sharded(d.path(), t,
                    {{"model.a.weight", "model-00001-of-00002.safetensors"},
                     {"model.b.weight", "model-00002-of-00002.safetensors"},
                     {"lm_head.weight", "model-00002-of-00002.safetensors"}});
  for (auto p : {d.path(), d / "model.safetensors.index.json"}) {
    Checkpoint c = open_checkpoint(p);
    EXPECT_EQ(c.shards.size(), 2u);
    ASSERT_EQ(c.tensors.size(), 3u);
    // In shard order, by name within a shard.
    EXPECT_EQ(c.tensors[0].info->name, "model.a.weight");
    EXPECT_EQ(c.tensors[0].shard, 0u);
    EXPECT_EQ(c.tensors[1].info->name, "lm_head.weight");
    EXPECT_EQ(c.tensors[1].shard, 1u);
    EXPECT_EQ(c.tensors[2].info->name, "model.b.weight");
  }
}

TEST(Checkpoint, a_single_file_or_a_folder_holding_one_file_is_read_whole) {
  TempDir d;
  st::write_safetensors(d / "model.safetensors", three());
  EXPECT_EQ(open_checkpoint(d.path()).tensors.size(), 3u);
  EXPECT_EQ(open_checkpoint(d / "model.safetensors").tensors.size(), 3u);
  TempDir e;
  st::write_safetensors(e / "consolidated.safetensors", three());
  EXPECT_EQ(open_checkpoint(e.path()).tensors.size(), 3u);
}

TEST(Checkpoint, an_index_pointing_to_a_missing_shard_is_an_error_naming_it) {
  TempDir d;
  st::write_sharded(d.path(), three(),
                    {{"model.a.weight", "model-00001-of-00002.safetensors"},
                     {"model.b.weight", "model-00002-of-00002.safetensors"},
                     {"lm_head.weight", "model-00002-of-00002.safetensors"}});
  std::filesystem::remove(d / "model-00002-of-00002.safetensors");
  std::string e = error_of(d.path());
  EXPECT_THAT(e, HasSubstr("model.safetensors.index.json: weight_map 'lm_head.weight'"));
  EXPECT_THAT(e, HasSubstr("maps to shard 'model-00002-of-00002.safetensors' (2 tensors), which is missing"));
}

TEST(Checkpoint, index_and_shards_must_list_the_same_tensors) {
  TempDir d;
  st::write_safetensors(d / "s1.safetensors", three());
  nlohmann::json index;
  index["weight_map"] = {{"model.a.weight", "s1.safetensors"}, {"model.b.weight", "s1.safetensors"}};
  d.write("model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of(d.path()), HasSubstr("tensor 'lm_head.weight': is in the shard but not in the index"));
  index["weight_map"]["lm_head.weight"] = "s1.safetensors";
  index["weight_map"]["model.c.weight"] = "s1.safetensors";
  d.write("model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of(d.path()), HasSubstr("weight_map 'model.c.weight': tensor is not in shard 's1.safetensors'"));
}

TEST(Checkpoint, a_tensor_in_a_shard_the_index_does_not_name_for_it_is_an_error) {
  TempDir d;
  st::write_safetensors(d / "s1.safetensors", {{"model.a.weight", "U8", {4}}});
  st::write_safetensors(d / "s2.safetensors", {{"model.a.weight", "U8", {4}}, {"model.b.weight", "U8", {4}}});
  nlohmann::json index;
  index["weight_map"] = {{"model.a.weight", "s1.safetensors"}, {"model.b.weight", "s2.safetensors"}};
  d.write("model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of(d.path()),
              HasSubstr("s2.safetensors: tensor 'model.a.weight': is in this shard, but the index puts it in "
                        "'s1.safetensors'"));
}

TEST(Checkpoint, an_index_written_with_escapes_reads_like_a_plain_one) {
  TempDir d;
  st::write_safetensors(d / "s1.safetensors", three());
  // \u0073 is 's': the fast scanner hands this index to the full JSON parser, which must read the same map.
  d.write("model.safetensors.index.json",
          "{\"metadata\": {\"total_size\": 1.5e3, \"x\": [null, true]}, \"weight_map\": {\"model.a.weight\": "
          "\"\\u00731.safetensors\", \"model.b.weight\": \"s1.safetensors\", \"lm_head.weight\": \"s1.safetensors\"}}");
  EXPECT_EQ(open_checkpoint(d.path()).tensors.size(), 3u);
}

TEST(Checkpoint, shard_names_that_leave_the_folder_are_refused) {
  TempDir d;
  nlohmann::json index;
  index["weight_map"] = {{"model.a.weight", "../elsewhere.safetensors"}};
  d.write("model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of(d.path()), HasSubstr("shard name '../elsewhere.safetensors' is not a plain file name"));
}

TEST(Checkpoint, folders_without_weights_or_with_several_unindexed_files_are_errors) {
  TempDir d;
  EXPECT_THAT(error_of(d.path()), HasSubstr("holds no .safetensors file"));
  st::write_safetensors(d / "a.safetensors", {{"x", "U8", {1}}});
  st::write_safetensors(d / "b.safetensors", {{"y", "U8", {1}}});
  EXPECT_THAT(error_of(d.path()), HasSubstr("holds 2 .safetensors files and no model.safetensors.index.json"));
  EXPECT_THAT(error_of(d / "missing"), HasSubstr("missing: not found"));
  d.write("bad.index.json", "{\"weight_map\": 3}");
  EXPECT_THAT(error_of(d / "bad.index.json"), HasSubstr("has no weight_map object"));
}

}  // namespace
}  // namespace openrecipes::params
