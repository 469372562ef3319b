// Depth bound and duplicate-key refusal for untrusted JSON (core/json_limits.h).
#include "core/json_limits.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace openrecipes {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JsonLimits, a_200k_deep_document_is_refused_without_a_crash) {
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  auto m = message_of([&] { parse_json_strict(deep, "config.json", "fix it"); });
  EXPECT_NE(m.find("config.json: JSON nested deeper than 64 levels (at byte 64)"), std::string::npos) << m;
}

TEST(JsonLimits, depth_counts_containers_not_brackets_inside_strings) {
  std::string ok = "{\"a\": \"" + std::string(1000, '[') + "\\\"{\"}";
  EXPECT_NO_THROW(check_json_depth(ok, 2, "f", ""));
  EXPECT_EQ(parse_json_strict(ok, "f", "")["a"].get<std::string>().size(), 1002u);
  EXPECT_THROW(check_json_depth("[[[]]]", 2, "f", ""), InputError);
  EXPECT_NO_THROW(check_json_depth("[[]][[]]", 2, "f", ""));
}

TEST(JsonLimits, duplicate_keys_are_refused_with_their_path) {
  auto m = message_of([] { parse_json_strict(R"({"hidden_size": 64, "hidden_size": 128})", "c.json", "fix"); });
  EXPECT_NE(m.find("c.json: the key \"hidden_size\" appears twice"), std::string::npos) << m;
  m = message_of([] { parse_json_strict(R"({"text_config": {"a": 1, "a": 2}})", "c.json", "fix"); });
  EXPECT_NE(m.find("\"text_config.a\" appears twice"), std::string::npos) << m;
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(parse_json_strict(R"({"a": {"k": 1}, "b": {"k": 2}, "k": [{"k": 3}, {"k": 4}]})", "c", ""));
}

TEST(JsonLimits, invalid_json_names_the_byte) {
  auto m = message_of([] { parse_json_strict("{\"a\": }", "c.json", "fix"); });
  EXPECT_NE(m.find("c.json: not valid JSON at byte 7"), std::string::npos) << m;
}

}  // namespace
}  // namespace openrecipes
