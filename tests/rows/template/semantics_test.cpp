// Jinja2/Python semantics, one rule per case: tests/rows/template/semantics_cases.jsonl holds (name, template,
// variables) and the result Python Jinja2 with transformers' settings gives (written by the oracle,
// tests/oracles/render_template.py --expect). Each case is a test named after the rule it pins; a second test
// re-runs the oracle to prove the stored expectations are Jinja2's.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "rows/template/chat_template.h"
#include "rows/template/template_test_support.h"

namespace openrecipes::rows {
namespace {

namespace ct = openrecipes::testing::chat_templates;
using ojson = nlohmann::ordered_json;

struct SemanticsCase {
  std::string name;
  ojson data;
};

void PrintTo(const SemanticsCase& c, std::ostream* os) { *os << c.name << ": " << c.data["template"].dump(); }

std::string cases_path() {
  return (openrecipes::testing::source_dir() / "tests/rows/template/semantics_cases.jsonl").string();
}

std::vector<SemanticsCase> load_cases() {
  std::vector<SemanticsCase> out;
  std::ifstream in(cases_path());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ojson j = ojson::parse(line);
    out.push_back({j["name"].get<std::string>(), j});
  }
  return out;
}

class Semantics : public ::testing::TestWithParam<SemanticsCase> {};

TEST_P(Semantics, matches_jinja2) {
  const ojson& c = GetParam().data;
  const ojson& expect = c["expect"];
  const std::string tmpl_src = c["template"].get<std::string>();
  const bool unsupported = c.value("engine_unsupported", false);
  const bool ok = expect["ok"].get<bool>();
  const std::string phase = ok ? "render" : expect["phase"].get<std::string>();
  const std::string type = ok ? "" : expect["type"].get<std::string>();
  const std::string message = ok ? "" : expect["message"].get<std::string>();

  std::optional<ChatTemplate> tmpl;
  try {
    tmpl.emplace(ChatTemplate::compile(tmpl_src, GetParam().name));
  } catch (const TemplateError& e) {
    if (unsupported) {
      EXPECT_EQ(e.kind(), TemplateError::Kind::unsupported) << e.what();
      return;
    }
    ASSERT_EQ(phase, "compile") << "engine failed to compile: " << e.what();
    EXPECT_EQ(e.kind(), TemplateError::Kind::syntax) << e.what();
    if (type != "SyntaxError") {
      EXPECT_NE(e.message().find(message), std::string::npos) << e.what() << "\nJinja2: " << message;
    }
    return;
  }
  ASSERT_NE(phase, "compile") << "Jinja2 fails to compile it: " << type << ": " << message;
  try {
    std::string got = tmpl->render(c["vars"]);
    ASSERT_FALSE(unsupported) << "expected the engine to refuse this case, rendered: " << got;
    ASSERT_TRUE(ok) << "Jinja2 raised " << type << ": " << message << "\nengine rendered: " << got;
    EXPECT_EQ(got, expect["rendered"].get<std::string>());
  } catch (const TemplateError& e) {
    if (unsupported) {
      EXPECT_EQ(e.kind(), TemplateError::Kind::unsupported) << e.what();
      return;
    }
    ASSERT_FALSE(ok) << "engine failed: " << e.what() << "\nJinja2 rendered: " << expect["rendered"];
    if (type == "TemplateError") {
      EXPECT_EQ(e.kind(), TemplateError::Kind::raised) << e.what();
      EXPECT_EQ(e.message(), message);
    } else {
      EXPECT_TRUE(e.kind() == TemplateError::Kind::runtime || e.kind() == TemplateError::Kind::security) << e.what();
      EXPECT_EQ(e.kind() == TemplateError::Kind::security, type == "SecurityError") << e.what();
      EXPECT_NE(e.message().find(message), std::string::npos) << e.what() << "\nJinja2: " << type << ": " << message;
      EXPECT_NE(e.message().find(type), std::string::npos) << e.what() << "\nJinja2: " << type;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ChatTemplate, Semantics, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<SemanticsCase>& info) { return info.param.name; });

TEST(ChatTemplateSemanticsCases, stored_expectations_are_what_jinja2_renders) {
  std::string input = ct::read_text(cases_path());
  auto script = (openrecipes::testing::source_dir() / "tests/oracles/render_template.py").string();
  auto pr = openrecipes::testing::run_process({openrecipes::testing::oracle_python(), script, "--expect"}, input);
  ASSERT_EQ(pr.exit_code, 0) << pr.err;
  std::istringstream fresh(pr.out);
  auto stored = load_cases();
  std::string line;
  std::size_t i = 0;
  while (std::getline(fresh, line)) {
    if (line.empty()) continue;
    ASSERT_LT(i, stored.size());
    ojson now = ojson::parse(line);
    if (!stored[i].data.value("engine_unsupported", false)) {
      EXPECT_EQ(now["expect"], stored[i].data["expect"]) << stored[i].name;
    }
    ++i;
  }
  EXPECT_EQ(i, stored.size());
}

}  // namespace
}  // namespace openrecipes::rows
