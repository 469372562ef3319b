// Tests for src/evidence/launch: evidence/launch.json, the command a run started (SPEC §5).
#include "evidence/launch.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {

std::string error_of(const std::string& text) {
  return testing::message_of([&] { parse_launch(text, "evidence/launch.json"); });
}

TEST(Launch, what_launch_json_writes_reads_back) {
  const std::vector<std::pair<std::string, std::string>> env{{"NCCL_DEBUG", "WARN"}};
  const std::vector<std::string> argv{"torchrun", "--nproc-per-node", "1", "/m/pretrain_gpt.py", "two words", "ü"};
  auto l = parse_launch(launch_json(env, argv), "f");
  EXPECT_EQ(l.env, env);
  EXPECT_EQ(l.argv, argv);
  EXPECT_EQ(l.file, "f");
}

TEST(Launch, anything_else_is_refused_naming_the_file) {
  EXPECT_NE(error_of("[]").find("evidence/launch.json: not a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"format_version": 2, "env": [], "argv": ["x"]})").find("format_version is not 1"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"format_version": 1, "env": [], "argv": []})").find("argv is empty"), std::string::npos);
  EXPECT_NE(error_of(R"({"format_version": 1, "env": [], "argv": [1]})").find("not a string"), std::string::npos);
  EXPECT_NE(error_of(R"({"format_version": 1, "env": [["A"]], "argv": ["x"]})").find("not [\"NAME\", \"value\"]"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"format_version": 1, "env": [], "argv": ["x"], "shell": "sh"})").find("unknown field 'shell'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"format_version": 1, "format_version": 1, "env": [], "argv": ["x"]})").find("twice"),
            std::string::npos);
  std::string many = R"({"format_version": 1, "env": [], "argv": [)";
  for (std::size_t i = 0; i <= kMaxLaunchWords; ++i) many += (i ? ",\"a\"" : "\"a\"");
  EXPECT_NE(error_of(many + "]}").find("more than 65536 words"), std::string::npos);
}

}  // namespace
}  // namespace openrecipes::evidence
