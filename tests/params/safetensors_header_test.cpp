#include "params/safetensors_header.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>
#include <string>

#include "core/error.h"
#include "safetensors_writer.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using ::testing::HasSubstr;
using testing::TempDir;
namespace st = testing::st;

// Expects read_safetensors_header(path) to throw an InputError whose message has every piece in `pieces`.
void expect_error(const std::filesystem::path& path, std::initializer_list<const char*> pieces) {
  try {
    read_safetensors_header(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const InputError& e) {
    for (const char* p : pieces) EXPECT_THAT(std::string(e.what()), HasSubstr(p));
  }
}

// A file `name` in `d`: an 8-byte length that is the header's own, the header, then `data_bytes` of data.
std::filesystem::path header_file(const TempDir& d, const std::string& name, const std::string& header,
                                  std::uint64_t data_bytes) {
  auto p = d / name;
  st::write_raw(p, header.size(), header, data_bytes);
  return p;
}

const char* kOne = R"({"a":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]}})";

TEST(SafetensorsHeader, reads_names_dtypes_shapes_offsets_and_metadata) {
  TempDir d;
  auto p = d / "m.safetensors";
  st::write_safetensors(p, {{"z.weight", "BF16", {4, 8}}, {"a.scale", "F32", {}}, {"b.blocks", "U8", {3, 2, 16}}},
                        {{"format", "pt"}, {"author", "test"}});
  SafetensorsHeader h = read_safetensors_header(p);
  ASSERT_EQ(h.tensors.size(), 3u);
  EXPECT_EQ(h.tensors[0].name, "a.scale");  // sorted by name
  EXPECT_EQ(h.tensors[0].dtype, Dtype::F32);
  EXPECT_TRUE(h.tensors[0].shape.empty());
  EXPECT_EQ(h.tensors[0].elements, 1u);
  EXPECT_EQ(h.tensors[1].name, "b.blocks");
  EXPECT_EQ(h.tensors[1].elements, 96u);
  EXPECT_EQ(h.tensors[2].name, "z.weight");
  EXPECT_EQ(h.tensors[2].shape, (std::vector<std::uint64_t>{4, 8}));
  // Written in the order given: z (64 bytes) at 0, a.scale (4) at 64, b.blocks (96) at 68.
  EXPECT_EQ(h.tensors[2].begin, 0u);
  EXPECT_EQ(h.tensors[2].end, 64u);
  EXPECT_EQ(h.tensors[0].begin, 64u);
  EXPECT_EQ(h.tensors[1].end, 164u);
  EXPECT_EQ(h.data_bytes, 164u);
  EXPECT_EQ(h.header_bytes % 8, 0u);  // upstream pads the header with spaces
  EXPECT_EQ(h.metadata, (std::vector<std::pair<std::string, std::string>>{{"author", "test"}, {"format", "pt"}}));
}

TEST(SafetensorsHeader, a_600_gb_tensor_costs_no_disk_and_is_read_without_its_data) {
  TempDir d;
  auto p = d / "big.safetensors";
  // 300 G elements of BF16 = 600 GB of data region, left as a hole.
  st::write_safetensors(p, {{"w", "BF16", {300'000, 1'000'000}}});
  struct stat s {};
  ASSERT_EQ(::stat(p.c_str(), &s), 0);
  EXPECT_LT(static_cast<long long>(s.st_blocks) * 512, 1 << 20);  // under 1 MiB on disk
  SafetensorsHeader h = read_safetensors_header(p);
  EXPECT_EQ(h.data_bytes, 600'000'000'000ull);
  EXPECT_EQ(h.tensors.at(0).elements, 300'000'000'000ull);
}

TEST(SafetensorsHeader, fp4_counts_half_a_byte_per_element) {
  TempDir d;
  auto p = header_file(d, "f4.safetensors", R"({"w":{"dtype":"F4","shape":[4,8],"data_offsets":[0,16]}})", 16);
  EXPECT_EQ(read_safetensors_header(p).tensors.at(0).elements, 32u);
  auto odd = header_file(d, "odd.safetensors", R"({"w":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2);
  expect_error(odd, {"tensor 'w'", "not a whole number of bytes"});
}

TEST(SafetensorsHeader, an_f4_tensor_with_an_odd_last_dimension_is_malformed) {
  // [8, 25]: 200 values fill 100 bytes, but two F4 values share a byte along the last dimension, so each row of 25
  // would end mid-byte.
  TempDir d;
  auto p = header_file(d, "odd_row.safetensors",
                       R"({"model.w.weight":{"dtype":"F4","shape":[8,25],"data_offsets":[0,100]}})", 100);
  expect_error(p, {"odd_row.safetensors: tensor 'model.w.weight'", "shape [8,25] of F4 has last dimension 25",
                   "not a multiple of 2", "packed 2 to a byte along the last dimension"});
  // An even last dimension reads (and so does a 1-D tensor of even length).
  auto ok = header_file(d, "even_row.safetensors",
                        R"({"a":{"dtype":"F4","shape":[25,8],"data_offsets":[0,100]},)"
                        R"("b":{"dtype":"F4","shape":[6],"data_offsets":[100,103]}})",
                        103);
  EXPECT_EQ(read_safetensors_header(ok).tensors.at(0).elements, 200u);
}

TEST(SafetensorsHeader, an_f6_tensor_whose_last_dimension_is_not_a_multiple_of_4_is_malformed) {
  // Four 6-bit values fill 3 bytes. [4, 6]: 24 values = 18 bytes in all, but rows of 6 end mid-byte.
  TempDir d;
  for (const char* dtype : {"F6_E2M3", "F6_E3M2"}) {
    auto p = header_file(d, "f6.safetensors",
                         fmt::format(R"({{"x":{{"dtype":"{}","shape":[4,6],"data_offsets":[0,18]}}}})", dtype), 18);
    expect_error(p, {"tensor 'x'", fmt::format("shape [4,6] of {} has last dimension 6", dtype).c_str(),
                     "not a multiple of 4", "packed 4 to 3 bytes"});
    auto ok = header_file(d, "f6_ok.safetensors",
                          fmt::format(R"({{"x":{{"dtype":"{}","shape":[6,4],"data_offsets":[0,18]}}}})", dtype), 18);
    EXPECT_EQ(read_safetensors_header(ok).tensors.at(0).elements, 24u) << dtype;
  }
}

TEST(SafetensorsHeader, header_length_past_the_end_of_the_file_is_an_error) {
  TempDir d;
  auto p = d / "short.safetensors";
  st::write_raw(p, 5000, kOne, 0);
  expect_error(p, {"short.safetensors", "header length 5000 runs past the end of the file"});
}

TEST(SafetensorsHeader, header_length_over_100_mb_is_an_error) {
  TempDir d;
  auto p = d / "huge.safetensors";
  st::write_raw(p, 100'000'001, kOne, 0);
  expect_error(p, {"huge.safetensors", "header length 100000001 is over the 100 MB limit"});
}

TEST(SafetensorsHeader, a_file_shorter_than_the_length_prefix_is_an_error) {
  TempDir d;
  auto p = d / "tiny.safetensors";
  st::write_sparse(p, "abc", 3);
  expect_error(p, {"tiny.safetensors", "shorter than the 8-byte header length"});
}

TEST(SafetensorsHeader, invalid_json_is_an_error_with_its_position) {
  TempDir d;
  auto p = header_file(d, "bad.safetensors", R"({"a":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},})", 12);
  expect_error(p, {"bad.safetensors", "header is not valid JSON at byte"});
  auto q = d / "array.safetensors";
  st::write_raw(q, 2, "[]", 0);
  expect_error(q, {"does not start with '{'"});
}

TEST(SafetensorsHeader, overlapping_offsets_are_an_error_naming_both_tensors) {
  TempDir d;
  auto p = header_file(
      d, "overlap.safetensors",
      R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[4,12]}})",
      12);
  expect_error(p, {"overlap.safetensors: tensor 'b'", "overlap tensor 'a' at [0, 8)"});
}

TEST(SafetensorsHeader, offsets_out_of_the_data_region_are_an_error) {
  TempDir d;
  auto p = header_file(d, "out.safetensors", R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}})", 6);
  expect_error(p, {"tensor 'a'", "run past the data region, which holds 6 bytes"});
  auto r = header_file(d, "reversed.safetensors", R"({"a":{"dtype":"BF16","shape":[0],"data_offsets":[8,0]}})", 8);
  expect_error(r, {"tensor 'a'", "end before they begin"});
}

TEST(SafetensorsHeader, offsets_that_disagree_with_dtype_times_shape_are_an_error) {
  TempDir d;
  auto p = header_file(d, "size.safetensors", R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}})", 8);
  expect_error(p, {"tensor 'a'", "hold 8 bytes, but shape [4] of F32 needs 16 bytes"});
}

TEST(SafetensorsHeader, gaps_and_trailing_bytes_in_the_data_region_are_errors) {
  TempDir d;
  auto gap = header_file(
      d, "gap.safetensors",
      R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[6,10]}})",
      10);
  expect_error(gap, {"tensor 'b'", "leave bytes [4, 6) of the data region to no tensor"});
  auto tail = header_file(d, "tail.safetensors", R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 9);
  expect_error(tail, {"tensors end at byte 4 of the data region, but the file holds 9 data bytes"});
}

TEST(SafetensorsHeader, an_unknown_dtype_is_an_error_naming_the_tensor) {
  TempDir d;
  auto p =
      header_file(d, "dtype.safetensors", R"({"model.x.weight":{"dtype":"F7","shape":[4],"data_offsets":[0,4]}})", 4);
  expect_error(p, {"dtype.safetensors: tensor 'model.x.weight'", "unknown dtype 'F7'"});
}

TEST(SafetensorsHeader, the_unknown_dtype_error_lists_every_accepted_dtype) {
  TempDir d;
  auto p = header_file(d, "dtype.safetensors", R"({"w":{"dtype":"F8_E4M3FN","shape":[4],"data_offsets":[0,4]}})", 4);
  const std::string message = testing::message_of([&] { read_safetensors_header(p); });
  const std::string open = "(known: ";
  const auto at = message.find(open);
  ASSERT_NE(at, std::string::npos) << message;
  const auto end = message.find(')', at);
  ASSERT_NE(end, std::string::npos) << message;
  // Split the list and compare it as a set with the test's own list of the dtypes the reader accepts.
  std::set<std::string> listed;
  std::string list = message.substr(at + open.size(), end - at - open.size());
  for (std::size_t i = 0; i <= list.size();) {
    std::size_t comma = list.find(", ", i);
    if (comma == std::string::npos) comma = list.size();
    listed.insert(list.substr(i, comma - i));
    i = comma + 2;
  }
  const std::set<std::string> accepted{
      "BOOL", "F4",   "F6_E2M3",     "F6_E3M2",     "U8",  "I8",  "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16", "U16",
      "F16",  "BF16", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I32", "U32", "F32",     "C64",     "F64",     "I64", "U64"};
  EXPECT_EQ(listed, accepted);
  for (const auto& name : accepted) EXPECT_TRUE(parse_dtype(name)) << name;
}

TEST(SafetensorsHeader, malformed_entries_are_errors) {
  TempDir d;
  struct Case {
    const char* header;
    const char* message;
  } cases[] = {
      {R"({"a":{"dtype":"U8","shape":[-4],"data_offsets":[0,4]}})", "not a non-negative integer"},
      {R"({"a":{"dtype":"U8","shape":[4.5],"data_offsets":[0,4]}})", "not a non-negative integer"},
      {R"({"a":{"dtype":"U8","shape":[4]}})", "lacks data_offsets"},
      {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4],"x":1}})", "unexpected key 'x'"},
      {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0]}})", "not a pair"},
      {R"({"a":[1]})", "not an object"},
      {R"({"a":{"dtype":"U8","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,4]}})", "overflows 64 bits"},
      {R"({"__metadata__":{"k":1}})", "__metadata__ 'k' is not a string"},
  };
  for (const auto& c : cases) {
    auto p = d / "case.safetensors";
    st::write_raw(p, std::string(c.header).size(), c.header, 4);
    expect_error(p, {c.message});
  }
}

TEST(SafetensorsHeader, escaped_and_non_ascii_headers_read_like_plain_ones) {
  // The fast scanner takes plain ASCII; escapes, UTF-8 and odd spacing go to the full JSON parser. Same result.
  TempDir d;
  auto plain = header_file(
      d, "plain.safetensors",
      R"({"__metadata__":{"format":"pt"},"ab":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"é":{"dtype":"U8","shape":[],"data_offsets":[4,5]}})",
      5);
  auto escaped = header_file(
      d, "escaped.safetensors",
      "{ \"a\\u0062\" : {\"data_offsets\":[0,4],\"shape\":[2],\"dtype\":\"BF16\"},\n"
      " \"\\u00e9\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[4,5]}, \"__metadata__\":{\"format\":\"pt\"}}",
      5);
  for (auto p : {plain, escaped}) {
    SafetensorsHeader h = read_safetensors_header(p);
    ASSERT_EQ(h.tensors.size(), 2u) << p;
    EXPECT_EQ(h.tensors[0].name, "ab");
    EXPECT_EQ(h.tensors[0].elements, 2u);
    EXPECT_EQ(h.tensors[1].name, "\u00e9");
    EXPECT_EQ(h.tensors[1].end, 5u);
    EXPECT_EQ(h.metadata.size(), 1u);
  }
}

TEST(SafetensorsHeader, a_tensor_named_twice_is_an_error) {
  TempDir d;
  auto p = header_file(
      d, "twice.safetensors",
      R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})",
      4);
  expect_error(p, {"tensor 'a'", "appears twice in the header"});
}

TEST(SafetensorsHeader, a_missing_file_is_an_error_naming_it) {
  TempDir d;
  expect_error(d / "nope.safetensors", {"nope.safetensors: file not found"});
}

}  // namespace
}  // namespace openrecipes::params
