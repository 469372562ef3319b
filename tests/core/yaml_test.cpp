#include "core/yaml.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes {

using testing::message_of;

TEST(Yaml, malformed_yaml_names_file_line_and_column) {
  auto m = message_of([] { parse_yaml("a: 1\nb: [1, 2\n", "recipe.yaml"); });
  EXPECT_NE(m.find("recipe.yaml:"), std::string::npos) << m;
  EXPECT_NE(m.find("malformed YAML"), std::string::npos) << m;
}

TEST(Yaml, typed_access_names_the_field_and_line) {
  auto y = parse_yaml("gpus: 8\nworkload:\n  row_length: eight\n", "r.yaml");
  EXPECT_EQ(y.require("gpus").as_int(1, 100000), 8);
  auto m = message_of([&] { y["workload"]["row_length"].as_int(1, 1 << 20); });
  EXPECT_NE(m.find("r.yaml:3: workload.row_length: expected an integer"), std::string::npos) << m;
}

TEST(Yaml, range_and_missing_fields_are_errors) {
  auto y = parse_yaml("gpus: 0\n", "r.yaml");
  EXPECT_NE(message_of([&] { y.require("gpus").as_int(1, 10); }).find("out of range"), std::string::npos);
  EXPECT_NE(message_of([&] { y.require("model"); }).find("missing required field 'model'"), std::string::npos);
}

TEST(Yaml, unknown_keys_are_rejected) {
  auto y = parse_yaml("gpus: 1\ngpu_typo: H200\n", "r.yaml");
  auto m = message_of([&] { y.reject_unknown_keys({"gpus", "gpu"}); });
  EXPECT_NE(m.find("unknown field 'gpu_typo'"), std::string::npos) << m;
}

TEST(Yaml, unknown_field_points_at_the_keys_own_line) {
  auto y = parse_yaml("workload:\n  a: 1\n  b: 2\n  typo: 3\n", "r.yaml");
  auto m = message_of([&] { y["workload"].reject_unknown_keys({"a", "b"}); });
  EXPECT_NE(m.find("r.yaml:4: workload: unknown field 'typo'"), std::string::npos) << m;
}

TEST(Yaml, duplicate_top_level_key_names_key_and_both_lines) {
  auto m = message_of([] { parse_yaml("model: x\ngpus: 2\nother: 1\ngpus: 1\n", "r.yaml"); });
  EXPECT_NE(m.find("r.yaml:4: gpus: duplicate key 'gpus' (first at line 2, again at line 4)"), std::string::npos) << m;
}

TEST(Yaml, duplicate_nested_key_is_an_error) {
  auto m = message_of([] { parse_yaml("hardware:\n  gpus: 2\n  gpus: 1\n", "r.yaml"); });
  EXPECT_NE(m.find("r.yaml:3: hardware.gpus: duplicate key 'gpus' (first at line 2"), std::string::npos) << m;
  m = message_of([] { parse_yaml("runs:\n  - a: 1\n    a: 2\n", "r.yaml"); });
  EXPECT_NE(m.find("runs[0].a: duplicate key 'a'"), std::string::npos) << m;
}

TEST(Yaml, a_duplicate_among_two_hundred_thousand_keys_is_found_in_linear_time) {
  // Every key compared with every earlier one would be 2 x 10^10 comparisons: minutes, not milliseconds.
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "k" + std::to_string(i) + ": 1\n";
  text += "k7: 2\n";
  auto m = message_of([&] { parse_yaml(text, "r.yaml"); });
  EXPECT_NE(m.find("r.yaml:200001: k7: duplicate key 'k7' (first at line 8, again at line 200001)"), std::string::npos)
      << m;
}

TEST(Yaml, non_core_tags_are_rejected) {
  auto m = message_of([] { parse_yaml("x: !!python/object:os.system echo\n", "r.yaml"); });
  EXPECT_NE(m.find("r.yaml:1: x: YAML tag 'tag:yaml.org,2002:python/object:os.system' is not allowed"),
            std::string::npos)
      << m;
  EXPECT_NE(message_of([] { parse_yaml("a: 1\nb: !custom 2\n", "r.yaml"); }).find("r.yaml:2: b: YAML tag '!custom'"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_yaml("!!python/name:os.system k: 1\n", "r.yaml"); }).find("is not allowed"),
            std::string::npos);
}

TEST(Yaml, core_schema_tags_are_accepted_and_str_stays_text) {
  auto y = parse_yaml("a: !!int 3\nb: !!str 5\nc: !!bool true\nd: !!null null\ne: !!map {k: 1}\n", "r.yaml");
  EXPECT_EQ(y["a"].as_int(0, 10), 3);
  EXPECT_EQ(y["b"].to_json(), nlohmann::json("5"));
  EXPECT_TRUE(y["c"].as_bool());
}

// Regression: a recipe.yaml nested 10,000 deep got "malformed YAML: bad file" (yaml-cpp's own guard fired first).
TEST(Yaml, nesting_past_256_levels_gets_one_message_whichever_guard_fires_first) {
  auto message = [](const std::string& text) { return message_of([&] { parse_yaml(text, "recipe.yaml"); }); };
  const std::string flow = "a: " + std::string(10000, '[') + std::string(10000, ']') + "\n";
  std::string maps = "a: ";
  for (int i = 0; i < 10000; ++i) maps += "{b: ";
  maps += "1" + std::string(10000, '}') + "\n";
  std::string shallow = "a: ";  // past this file's 256, inside yaml-cpp's own limit: check_tree's guard
  for (int i = 0; i < 300; ++i) shallow += "{b: ";
  shallow += "1" + std::string(300, '}') + "\n";
  for (const auto& text : {flow, maps, shallow}) {
    const auto m = message(text);
    EXPECT_NE(m.find("recipe.yaml:1: YAML nested deeper than 256 levels (fix: flatten the file)"), std::string::npos)
        << m.substr(0, 300);
  }
  EXPECT_NO_THROW(parse_yaml("a: " + std::string(200, '[') + std::string(200, ']') + "\n", "recipe.yaml"));
}

TEST(Yaml, top_level_must_be_a_map) { EXPECT_THROW(parse_yaml("- 1\n- 2\n", "r.yaml"), InputError); }

// Nested aliases ("billion laughs"): 30 lines that expand to 9^30 nodes are refused at the node cap, at once, instead
// of walked (the walk had run for over 10 minutes).
TEST(Yaml, nested_aliases_that_expand_past_the_node_cap_are_refused) {
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 30; ++i) {
    text += fmt::format("a{0}: &a{0} [", i);
    for (int k = 0; k < 9; ++k) text += fmt::format("{}*a{}", k ? ", " : "", i - 1);
    text += "]\n";
  }
  auto m = message_of([&] { parse_yaml(text, "bomb.yaml"); });
  EXPECT_NE(m.find("bomb.yaml: the YAML expands to over 1048576 nodes"), std::string::npos) << m;
  // A plain file of 20,000 nodes is well under the cap.
  std::string big = "items:\n";
  for (int i = 0; i < 20000; ++i) big += fmt::format("  - {}\n", i);
  EXPECT_NO_THROW(parse_yaml(big, "big.yaml"));
}

}  // namespace openrecipes
