#include "core/yaml.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace openrecipes {

static std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

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

TEST(Yaml, top_level_must_be_a_map) {
  EXPECT_THROW(parse_yaml("- 1\n- 2\n", "r.yaml"), InputError);
}

}  // namespace openrecipes
