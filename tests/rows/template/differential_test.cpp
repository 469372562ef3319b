// Differential tests of ChatTemplate against Python Jinja2 with transformers' settings (the oracle
// tests/oracles/render_template.py, one process per test): every fixture chat template x the Tulu 3 sample, x
// hand-built conversations (system turns, multi-turn, <think> reasoning, tool calls, tools, raise_exception
// paths), x seeded random messages with odd content; add_generation_prompt false and true. Exact bytes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "rows/template/chat_template.h"
#include "rows/template/template_test_support.h"

namespace openrecipes::rows {
namespace {

namespace ct = openrecipes::testing::chat_templates;
using ojson = nlohmann::ordered_json;

struct Case {
  std::string label;
  std::string template_name;
  ojson variables;
};

// Renders every case with the engine and the oracle and compares; returns how many cases Jinja2 rejected.
int compare_with_oracle(const std::vector<ct::FixtureTemplate>& templates, const std::vector<Case>& cases) {
  std::vector<std::pair<std::string, std::string>> defs;
  std::vector<std::pair<std::string, ChatTemplate>> compiled;
  for (const auto& t : templates) {
    defs.emplace_back(t.name, t.source);
    compiled.emplace_back(t.name, ChatTemplate::compile(t.source, t.name));
  }
  std::vector<ct::OracleRender> renders;
  for (const auto& c : cases) renders.push_back({c.template_name, c.variables, "2026-01-01"});
  auto expected = ct::run_oracle(defs, renders);
  EXPECT_EQ(expected.size(), cases.size());
  if (expected.size() != cases.size()) return -1;
  int rejected = 0;
  for (const auto& w : expected)
    if (!w.ok) ++rejected;
  int mismatches = 0;
  for (std::size_t i = 0; i < cases.size() && mismatches < 10; ++i) {
    const ChatTemplate* tmpl = nullptr;
    for (const auto& c : compiled)
      if (c.first == cases[i].template_name) tmpl = &c.second;
    if (tmpl == nullptr) {
      ADD_FAILURE() << "no template " << cases[i].template_name;
      return -1;
    }
    const auto& want = expected[i];
    std::string context = cases[i].label + " with " + cases[i].template_name + ": " + cases[i].variables.dump();
    try {
      std::string got = tmpl->render(cases[i].variables);
      if (!want.ok) {
        ++mismatches;
        ADD_FAILURE() << context << "\nJinja2 raised " << want.error_type << ": " << want.message
                      << "\nengine rendered: " << got;
      } else if (got != want.rendered) {
        ++mismatches;
        EXPECT_EQ(got, want.rendered) << context;
      }
    } catch (const TemplateError& e) {
      if (want.ok) {
        ++mismatches;
        ADD_FAILURE() << context << "\nengine failed: " << e.what() << "\nJinja2 rendered: " << want.rendered;
      } else if (want.error_type == "TemplateError") {
        EXPECT_EQ(e.kind(), TemplateError::Kind::raised) << context << ": " << e.what();
        EXPECT_EQ(e.message(), want.message) << context;
      } else {
        EXPECT_TRUE(e.kind() == TemplateError::Kind::runtime || e.kind() == TemplateError::Kind::security)
            << context << ": " << e.what();
        EXPECT_NE(e.message().find(want.message), std::string::npos)
            << context << "\nengine: " << e.message() << "\nJinja2: " << want.error_type << ": " << want.message;
      }
    }
  }
  return rejected;
}

ojson base_vars(const ct::FixtureTemplate& t, const ojson& messages, bool add_generation_prompt) {
  ojson vars = t.special_tokens;
  vars["messages"] = messages;
  vars["tools"] = nullptr;
  vars["documents"] = nullptr;
  vars["add_generation_prompt"] = add_generation_prompt;
  return vars;
}

ojson msg(const std::string& role, const std::string& content) { return ojson{{"role", role}, {"content", content}}; }

ojson weather_tool() {
  return ojson::parse(R"({"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
    "unit": {"type": "string", "enum": ["c", "f"], "default": "c"}, "days": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}}, "when": {"oneOf": [{"type": "string"}, {"type": "number"}]}},
    "required": ["city"]}}})");
}

ojson tool_call(const ojson& arguments) {
  return ojson{
      {"id", "call_1"}, {"type", "function"}, {"function", ojson{{"name", "get_weather"}, {"arguments", arguments}}}};
}

// Hand-built conversations that reach the templates' branches: (label, extra variables, messages).
std::vector<std::pair<std::string, ojson>> constructed_conversations() {
  std::vector<std::pair<std::string, ojson>> out;
  auto add = [&](const std::string& label, ojson messages, ojson extra = ojson::object()) {
    extra["messages"] = std::move(messages);
    out.emplace_back(label, std::move(extra));
  };
  add("system_user_assistant",
      ojson::array({msg("system", "You are terse."), msg("user", "Hi"), msg("assistant", "Hello.")}));
  add("system_only_user", ojson::array({msg("system", "  padded system  \n"), msg("user", "Question?")}));
  add("multi_turn", ojson::array({msg("user", "a"), msg("assistant", "b"), msg("user", "c"), msg("assistant", "d"),
                                  msg("user", "e"), msg("assistant", "f")}));
  add("think_in_last_assistant",
      ojson::array({msg("user", "2+2?"), msg("assistant", "<think>\nadd them\n</think>\n\nIt is 4.")}));
  add("think_in_every_assistant",
      ojson::array({msg("user", "q1"), msg("assistant", "<think>r1</think>a1"), msg("user", "q2"),
                    msg("assistant", "<think>\n\nr2\n\n</think>\n\n\na2")}));
  add("think_without_open_tag", ojson::array({msg("user", "q"), msg("assistant", "reasoning</think>answer")}));
  add("reasoning_content_field",
      ojson::array(
          {msg("user", "q"), ojson{{"role", "assistant"}, {"content", "answer"}, {"reasoning_content", "because"}}}));
  add("reasoning_content_none",
      ojson::array({msg("user", "q"),
                    ojson{{"role", "assistant"}, {"content", "<think>x</think>y"}, {"reasoning_content", nullptr}}}));
  add("thinking_field",
      ojson::array(
          {msg("user", "q"), ojson{{"role", "assistant"}, {"content", "final"}, {"thinking", "analysis here"}}}));
  add("tool_call_dict_arguments",
      ojson::array({msg("user", "Weather in Paris?"),
                    ojson{{"role", "assistant"},
                          {"content", ""},
                          {"tool_calls", ojson::array({tool_call(ojson{{"city", "Paris"}, {"unit", "c"}})})}},
                    ojson{{"role", "tool"}, {"content", "{\"temp\": 21}"}, {"tool_call_id", "call_1"}},
                    msg("assistant", "It is 21 C.")}),
      ojson{{"tools", ojson::array({weather_tool()})}});
  add("tool_call_string_arguments",
      ojson::array({msg("user", "Weather?"),
                    ojson{{"role", "assistant"},
                          {"content", nullptr},
                          {"tool_calls", ojson::array({tool_call("{\"city\": \"Oslo\"}")})}},
                    ojson{{"role", "tool"}, {"content", "cold"}, {"tool_call_id", "call_1"}},
                    msg("assistant", "Cold.")}));
  add("two_tool_calls",
      ojson::array(
          {msg("user", "Both?"),
           ojson{{"role", "assistant"},
                 {"content", "checking"},
                 {"tool_calls", ojson::array({tool_call(ojson{{"city", "A"}}), tool_call(ojson{{"city", "B"}})})}},
           ojson{{"role", "tool"}, {"content", "a"}}, ojson{{"role", "tool"}, {"content", "b"}},
           msg("assistant", "done")}));
  add("tools_and_system", ojson::array({msg("system", "Use tools."), msg("user", "Weather in Rome?")}),
      ojson{{"tools", ojson::array({weather_tool()})}});
  add("tool_response_user_message",
      ojson::array({msg("user", "<tool_response>\nx\n</tool_response>"), msg("assistant", "ok")}));
  add("content_list_parts",
      ojson::array({ojson{{"role", "user"},
                          {"content", ojson::array({ojson{{"type", "text"}, {"text", "look"}},
                                                    ojson{{"type", "image"}, {"image", "x.png"}}})}},
                    msg("assistant", "nice")}));
  add("enable_thinking_false", ojson::array({msg("user", "q")}), ojson{{"enable_thinking", false}});
  add("llama_builtin_tools", ojson::array({msg("user", "search it")}),
      ojson{{"builtin_tools", ojson::array({"brave_search", "wolfram_alpha", "code_interpreter"})},
            {"tools", ojson::array({weather_tool()})},
            {"tools_in_user_message", false}});
  add("llama_custom_date", ojson::array({msg("system", "sys"), msg("user", "u")}),
      ojson{{"date_string", "01 Jan 2026"}});
  add("gpt_oss_options", ojson::array({msg("developer", "Be brief."), msg("user", "hi")}),
      ojson{{"model_identity", "You are a test."},
            {"reasoning_effort", "high"},
            {"builtin_tools", ojson::array({"browser", "python"})},
            {"tools", ojson::array({weather_tool()})}});
  add("gpt_oss_channel_tag_raises",
      ojson::array({msg("user", "q"), msg("assistant", "<|channel|>analysis<|message|>x")}));
  add("tool_without_call_raises", ojson::array({msg("user", "q"), ojson{{"role", "tool"}, {"content", "r"}}}));
  add("deepseek_prefix_thinking",
      ojson::array({msg("user", "q"), ojson{{"role", "assistant"}, {"content", "a"}, {"prefix", true}}}),
      ojson{{"thinking", true}});
  add("empty_conversation", ojson::array());
  add("only_system", ojson::array({msg("system", "just a system prompt")}));
  add("unicode_and_escapes",
      ojson::array({msg("user", "naïve café — ✓ 😀 中文 \"quotes\" 'single' \\backslash\\ {{ braces }} {% tag %}"),
                    msg("assistant", "\u00a0nbsp\u2028line sep\r\nCRLF\ttab\n")}));
  return out;
}

// Seeded random conversations with odd content (deterministic: std::mt19937 outputs only).
std::vector<ojson> random_conversations(std::size_t count) {
  static const char* const pieces[] = {"",
                                       "\n",
                                       " ",
                                       "\n\n",
                                       "hello",
                                       "  lead",
                                       "trail  \n",
                                       "é",
                                       "✓",
                                       "😀",
                                       "中文",
                                       "\"",
                                       "'",
                                       "\\",
                                       "{{ x }}",
                                       "{% if %}",
                                       "{#",
                                       "#}",
                                       "<think>",
                                       "</think>",
                                       "<think>\n",
                                       "\n</think>\n\n",
                                       "<tool_response>",
                                       "</tool_response>",
                                       "<|im_end|>",
                                       "<|eot_id|>",
                                       "\t",
                                       "\r\n",
                                       "\u00a0",
                                       "\u2028",
                                       "%s",
                                       "%(x)s",
                                       "{}",
                                       "{0}",
                                       "Σ",
                                       "ß",
                                       "<|channel|>final<|message|>",
                                       "null",
                                       "None",
                                       "true",
                                       "1.0",
                                       "-0",
                                       "\x01",
                                       "\x7f"};
  constexpr std::size_t n_pieces = sizeof(pieces) / sizeof(pieces[0]);
  std::mt19937 rng(20260101);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<ojson> out;
  for (std::size_t c = 0; c < count; ++c) {
    ojson messages = ojson::array();
    std::size_t turns = 1 + pick(5);
    if (pick(4) == 0) {
      std::string s;
      for (std::size_t k = pick(4); k > 0; --k) s += pieces[pick(n_pieces)];
      messages.push_back(msg("system", s));
    }
    for (std::size_t t = 0; t < turns; ++t) {
      for (const char* role : {"user", "assistant"}) {
        std::string s;
        for (std::size_t k = pick(6); k > 0; --k) s += pieces[pick(n_pieces)];
        messages.push_back(msg(role, s));
      }
    }
    if (pick(3) == 0) messages.erase(messages.size() - 1);  // ends with a user turn
    out.push_back(std::move(messages));
  }
  return out;
}

// Seeded random templates (expressions and whitespace-control layouts) compared with Jinja2: both render the
// same bytes, or both fail.
struct RandomTemplates {
  std::mt19937 rng;
  explicit RandomTemplates(unsigned seed) : rng(seed) {}
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng() % n); }
  template <std::size_t N>
  std::string one_of(const char* const (&xs)[N]) {
    return xs[pick(N)];
  }

  std::string expr(int depth) {
    static const char* const lits[] = {"0",
                                       "1",
                                       "-1",
                                       "2",
                                       "1.5",
                                       "-0.0",
                                       "0.1",
                                       "'a'",
                                       "'abc'",
                                       "''",
                                       "' x '",
                                       "'A,b,c'",
                                       "'é'",
                                       "'<think>x</think>y'",
                                       "none",
                                       "true",
                                       "false",
                                       "[]",
                                       "[1, 2, 3]",
                                       "['b', 'a']",
                                       "(1, 2)",
                                       "{}",
                                       "{'a': 1, 'b': 'x'}",
                                       "x",
                                       "y",
                                       "s",
                                       "d",
                                       "l",
                                       "nope",
                                       "msgs"};
    static const char* const filters[] = {"length",
                                          "list",
                                          "string",
                                          "upper",
                                          "lower",
                                          "trim",
                                          "first",
                                          "last",
                                          "reverse|list",
                                          "sort",
                                          "unique|list",
                                          "join(',')",
                                          "int",
                                          "float",
                                          "abs",
                                          "round",
                                          "tojson",
                                          "tojson(indent=1)",
                                          "default('D')",
                                          "d(0, true)",
                                          "capitalize",
                                          "title",
                                          "items|list",
                                          "dictsort",
                                          "sum",
                                          "max",
                                          "min",
                                          "count",
                                          "e",
                                          "replace('a', 'z')",
                                          "center(7)",
                                          "indent(2)",
                                          "wordcount",
                                          "batch(2)|list",
                                          "map('string')|list",
                                          "select|list",
                                          "reject|list",
                                          "map(attribute='role')|list",
                                          "selectattr('role')|list",
                                          "groupby('role')|list",
                                          "format(1)",
                                          "truncate(5)"};
    static const char* const tests[] = {"defined", "undefined",     "none",        "string", "number",
                                        "mapping", "sequence",      "iterable",    "odd",    "even",
                                        "true",    "false",         "integer",     "float",  "lower",
                                        "upper",   "divisibleby 2", "in [1, 'a']", "eq 1",   "boolean"};
    static const char* const methods[] = {"upper()",
                                          "lower()",
                                          "strip()",
                                          "split()",
                                          "split(',')",
                                          "startswith('a')",
                                          "endswith(('c', 'x'))",
                                          "replace('a', 'b')",
                                          "find('b')",
                                          "count('a')",
                                          "title()",
                                          "lstrip('a')",
                                          "rstrip()",
                                          "get('a')",
                                          "get('z', 5)",
                                          "items()|list",
                                          "keys()|list",
                                          "index(1)",
                                          "format(1, 2)",
                                          "zfill(5)",
                                          "isdigit()",
                                          "join(['p', 'q'])",
                                          "splitlines()",
                                          "partition(',')"};
    static const char* const ops[] = {
        "+", "-", "*", "/", "//", "%", "~", "==", "!=", "<", ">", "<=", ">=", "in", "not in", "and", "or"};
    static const char* const subs[] = {"0", "-1", "1:", "::-1", "'a'", "1:2"};
    double r = static_cast<double>(rng() % 1000) / 1000.0;
    if (depth <= 0 || r < 0.3) return one_of(lits);
    if (r < 0.45) return "(" + expr(depth - 1) + " " + one_of(ops) + " " + expr(depth - 1) + ")";
    if (r < 0.6) return "(" + expr(depth - 1) + "|" + one_of(filters) + ")";
    if (r < 0.7) return "(" + expr(depth - 1) + " is " + (pick(2) ? "not " : "") + one_of(tests) + ")";
    if (r < 0.8) return "(" + expr(depth - 1) + ")." + one_of(methods);
    if (r < 0.85) return "(" + expr(depth - 1) + ")[" + one_of(subs) + "]";
    if (r < 0.9) return "(" + expr(depth - 1) + " if " + expr(depth - 1) + " else " + expr(depth - 1) + ")";
    if (r < 0.95) return "[" + expr(depth - 1) + ", " + expr(depth - 1) + "]";
    return "not " + expr(depth - 1);
  }

  std::string text() {
    static const char* const texts[] = {"a",      " ",      "  ",  "\n",   "\n\n", "\t",     "\r\n", "\r",
                                        "\u00a0", "\u3000", "b c", " \n ", "\f",   "\u2028", "x\n  "};
    std::string out;
    for (std::size_t k = pick(4); k > 0; --k) out += one_of(texts);
    return out;
  }
  std::string layout(int depth) {
    static const char* const open[] = {"{%", "{%-", "{%+"};
    static const char* const close[] = {"%}", "-%}", "+%}"};
    auto o = [&] { return std::string(one_of(open)); };
    auto c = [&] { return std::string(one_of(close)); };
    std::string out = text();
    for (std::size_t k = pick(4); k > 0; --k) {
      std::size_t r = pick(10);
      if (depth > 0 && r < 3) {
        out += o() + " if " + (pick(2) ? "true" : "false") + " " + c() + layout(depth - 1) + o() + " else " + c() +
               layout(depth - 1) + o() + " endif " + c();
      } else if (depth > 0 && r < 4) {
        out += o() + " for i in [1, 2] " + c() + layout(depth - 1) + o() + " endfor " + c();
      } else if (r < 6) {
        out += std::string(pick(2) ? "{{" : "{{-") + " 'v' " + (pick(2) ? "}}" : "-}}");
      } else if (r < 8) {
        static const char* const ends[] = {"#}", "-#}", "+#}"};
        out += std::string(pick(2) ? "{#" : "{#-") + " c " + one_of(ends);
      } else if (r < 9) {
        out += o() + " raw " + (pick(2) ? "%}" : "-%}") + text() + "{{ x }}" + text() + o() + " endraw " + c();
      } else {
        out += o() + " set z = 1 " + c();
      }
      out += text();
    }
    return out;
  }
};

// Runs one template per case through the engine and the oracle; returns how many rendered in Jinja2.
int compare_random_templates(const std::vector<std::string>& sources, const ojson& vars) {
  std::vector<std::pair<std::string, std::string>> defs;
  std::vector<ct::OracleRender> renders;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    defs.emplace_back("t" + std::to_string(i), sources[i]);
    renders.push_back({"t" + std::to_string(i), vars, "2026-01-01"});
  }
  auto expected = ct::run_oracle(defs, renders, /*templates_must_compile=*/false);
  if (expected.size() != sources.size()) return -1;
  int rendered = 0, mismatches = 0;
  for (std::size_t i = 0; i < sources.size() && mismatches < 10; ++i) {
    const auto& want = expected[i];
    std::string got;
    bool ok = true;
    try {
      got = ChatTemplate::compile(sources[i], "random").render(vars);
    } catch (const TemplateError&) {
      ok = false;
    }
    if (want.ok) ++rendered;
    if (ok != want.ok || (ok && got != want.rendered)) {
      ++mismatches;
      ADD_FAILURE() << "template: " << sources[i] << "\nengine: " << (ok ? got : std::string("<error>"))
                    << "\nJinja2: " << (want.ok ? want.rendered : want.error_type + ": " + want.message);
    }
  }
  return rendered;
}

TEST(ChatTemplateDifferential, random_expressions_evaluate_like_jinja2) {
  RandomTemplates gen(7);
  std::vector<std::string> sources;
  for (int i = 0; i < 1000; ++i) sources.push_back("{{ " + gen.expr(3) + " }}");
  ojson vars = ojson::parse(R"({"x": 5, "y": 2.5, "s": "Hello, World", "d": {"b": 2, "a": 1}, "l": [3, 1, 2],
    "msgs": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]})");
  // Most random expressions are errors in Jinja2 too; enough of them render to make the comparison count.
  EXPECT_GT(compare_random_templates(sources, vars), 250);
}

TEST(ChatTemplateDifferential, random_whitespace_control_layouts_render_like_jinja2) {
  RandomTemplates gen(11);
  std::vector<std::string> sources;
  for (int i = 0; i < 800; ++i) sources.push_back(gen.layout(3));
  EXPECT_EQ(compare_random_templates(sources, ojson::object()), 800);
}

TEST(ChatTemplateDifferential, every_fixture_template_renders_the_tulu_sample_like_jinja2) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto templates = ct::fixture_templates();
  auto conversations = ct::tulu_conversations();
  ASSERT_EQ(templates.size(), 7u);
  ASSERT_EQ(conversations.size(), 100u);
  std::vector<Case> cases;
  for (const auto& t : templates)
    for (std::size_t i = 0; i < conversations.size(); ++i)
      for (bool gen : {false, true})
        cases.push_back(
            {"tulu row " + std::to_string(i) + (gen ? " +gen" : ""), t.name, base_vars(t, conversations[i], gen)});
  compare_with_oracle(templates, cases);
}

TEST(ChatTemplateDifferential, every_fixture_template_renders_constructed_conversations_like_jinja2) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto templates = ct::fixture_templates();
  std::vector<Case> cases;
  for (const auto& t : templates)
    for (const auto& conv : constructed_conversations())
      for (bool gen : {false, true}) {
        ojson vars = base_vars(t, conv.second["messages"], gen);
        for (auto it = conv.second.begin(); it != conv.second.end(); ++it) vars[it.key()] = it.value();
        cases.push_back({conv.first + (gen ? " +gen" : ""), t.name, vars});
      }
  // Some constructed conversations make templates raise (tool without a call, channel tags, several tool calls
  // for Llama 3.1): those paths are compared too.
  EXPECT_GT(compare_with_oracle(templates, cases), 0);
}

TEST(ChatTemplateDifferential, every_fixture_template_renders_300_random_odd_conversations_like_jinja2) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto templates = ct::fixture_templates();
  auto conversations = random_conversations(300);
  std::vector<Case> cases;
  for (const auto& t : templates)
    for (std::size_t i = 0; i < conversations.size(); ++i)
      cases.push_back({"random " + std::to_string(i), t.name, base_vars(t, conversations[i], i % 2 == 1)});
  compare_with_oracle(templates, cases);
}

}  // namespace
}  // namespace openrecipes::rows
