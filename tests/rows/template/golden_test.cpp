// The golden renders in fixtures/golden/tulu3_first100 (made with Python Jinja2 3.1.6 + transformers' settings,
// see its SOURCE.txt) are reproduced byte for byte by ChatTemplate (SPEC §1.2).
#include <gtest/gtest.h>

#include <sstream>

#include "rows/template/chat_template.h"
#include "rows/template/template_test_support.h"

namespace openrecipes::rows {
namespace {

namespace ct = openrecipes::testing::chat_templates;

void check_golden(const std::string& template_name, const std::string& golden_file) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const ct::FixtureTemplate* tmpl = nullptr;
  auto templates = ct::fixture_templates();
  for (const auto& t : templates)
    if (t.name == template_name) tmpl = &t;
  ASSERT_NE(tmpl, nullptr);
  ChatTemplate compiled = ChatTemplate::compile(tmpl->source, template_name);
  auto conversations = ct::tulu_conversations();
  std::istringstream golden(
      ct::read_text((openrecipes::testing::fixtures_dir() / "golden/tulu3_first100" / golden_file).string()));
  std::string line;
  std::size_t i = 0;
  while (std::getline(golden, line)) {
    if (line.empty()) continue;
    ASSERT_LT(i, conversations.size());
    auto expected = nlohmann::json::parse(line)["rendered"].get<std::string>();
    nlohmann::ordered_json vars = tmpl->special_tokens;
    vars["messages"] = conversations[i];
    vars["tools"] = nullptr;
    vars["documents"] = nullptr;
    vars["add_generation_prompt"] = false;
    EXPECT_EQ(compiled.render(vars), expected) << golden_file << " row " << i;
    ++i;
  }
  EXPECT_EQ(i, 100u);
}

TEST(ChatTemplateGolden, qwen3_renders_the_100_golden_tulu_rows) { check_golden("qwen3", "qwen3.jsonl"); }

TEST(ChatTemplateGolden, llama3_1_instruct_renders_the_100_golden_tulu_rows) {
  check_golden("llama3_1_instruct", "llama3_1_instruct.jsonl");
}

TEST(ChatTemplateGolden, deepseek_v3_renders_the_100_golden_tulu_rows) {
  check_golden("deepseek_v3", "deepseek_v3.jsonl");
}

}  // namespace
}  // namespace openrecipes::rows
