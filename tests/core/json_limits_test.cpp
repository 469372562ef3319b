// Depth bound and duplicate-key refusal for untrusted JSON (core/json_limits.h).
#include "core/json_limits.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes {
namespace {

using testing::message_of;

// Regression: `plan --model config.json` nested 100,000 levels deep crashed (its reader had no depth limit). Every JSON
// the project reads goes through core/json_limits: no other file of src/ calls nlohmann's parser.
TEST(JsonLimits, every_json_reader_of_src_goes_through_these_parsers) {
  std::vector<std::string> direct;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::source_dir() / "src")) {
    if (!e.is_regular_file() || (e.path().extension() != ".cpp" && e.path().extension() != ".h")) continue;
    if (e.path().filename() == "json_limits.cpp") continue;
    const std::string text = read_file(e.path());
    for (const char* call : {"json::parse(", "json::accept("})
      if (text.find(call) != std::string::npos) direct.push_back(e.path().string() + ": " + call);
  }
  EXPECT_TRUE(direct.empty()) << ::testing::PrintToString(direct);
}

TEST(JsonLimits, the_bounded_parse_bounds_depth_and_words_errors_as_input_errors) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto m = message_of([&] { parse_json_bounded(deep, "line 3", "fix it", 16); });
  EXPECT_NE(m.find("line 3: JSON nested deeper than 16 levels (at byte 16)"), std::string::npos) << m;
  m = message_of([&] { parse_json_bounded("{\"a\": ", "x.json", "fix it", 16); });
  EXPECT_NE(m.find("x.json: not valid JSON at byte"), std::string::npos) << m;
  EXPECT_EQ(parse_json_bounded("{\"a\": 1, \"a\": 2}", "x", "", 4)["a"], 2);  // nlohmann's reading: the last wins
}

// The JSON library's words reach no user: its "[json.exception...]" tag and its line and column (the message gives the
// byte) are left out, and what remains is its account of the problem.
TEST(JsonLimits, a_parse_error_is_said_without_the_json_librarys_tag) {
  const auto m = message_of([&] { parse_json_strict("{\"messages\": [1, 2}", "bad.jsonl:1", "fix it"); });
  EXPECT_EQ(m,
            "bad.jsonl:1: not valid JSON at byte 19: syntax error while parsing array - unexpected '}'; expected ']' "
            "(fix: fix it)");
  EXPECT_EQ(json_error_text("[json.exception.type_error.302] type must be string, but is number"),
            "type must be string, but is number");
  EXPECT_EQ(json_error_text("a message of our own"), "a message of our own");
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
