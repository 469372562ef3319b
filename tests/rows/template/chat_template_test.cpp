// ChatTemplate's public contract: error kinds, template name and line/column in messages, the sandbox limits
// against hostile templates (every bound fails fast with a message naming it), render options, JSON variables,
// and concurrent rendering of one compiled template (SPEC §1.2, DESIGN "sandbox templates").
#include "rows/template/chat_template.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "rows/template/template_test_support.h"

namespace openrecipes::rows {
namespace {

namespace ct = openrecipes::testing::chat_templates;
using ojson = nlohmann::ordered_json;

TemplateError render_error(const std::string& source, const nlohmann::json& vars = nlohmann::json::object(),
                           RenderOptions options = {}) {
  ChatTemplate t = ChatTemplate::compile(source, "t.jinja");
  try {
    std::string out = t.render(vars, options);
    ADD_FAILURE() << "rendered instead of failing: " << out.substr(0, 200);
  } catch (const TemplateError& e) {
    return e;
  }
  return TemplateError(TemplateError::Kind::runtime, "", "");
}

TemplateError compile_error(std::string_view source, TemplateLimits limits = {}) {
  try {
    ChatTemplate::compile(source, "t.jinja", limits);
    ADD_FAILURE() << "compiled instead of failing";
  } catch (const TemplateError& e) {
    return e;
  }
  return TemplateError(TemplateError::Kind::runtime, "", "");
}

// How much slower the sanitizer build (make test-asan) runs these templates: ASan checks every byte the engine's
// tens of megabytes of strings copy. The bounds below are the plain build's; only the instrumented one gets more.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kSanitizerSlowdown = 4.0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kSanitizerSlowdown = 4.0;
#else
constexpr double kSanitizerSlowdown = 1.0;
#endif
#else
constexpr double kSanitizerSlowdown = 1.0;
#endif

// Runs `f` and fails the test when it takes longer than `seconds` (a hostile template must fail fast).
template <class F>
void within_seconds(double seconds, F f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(dt, seconds * kSanitizerSlowdown);
}

// ---- errors: kinds and locations ----

TEST(ChatTemplate, syntax_error_names_the_template_line_and_column) {
  TemplateError e = compile_error("line one\n  {{ x | }}");
  EXPECT_EQ(e.kind(), TemplateError::Kind::syntax);
  EXPECT_EQ(e.where(), "t.jinja:2:10");
  EXPECT_NE(std::string(e.what()).find("TemplateSyntaxError: expected token 'name', got 'end of print statement'"),
            std::string::npos)
      << e.what();
}

TEST(ChatTemplate, unknown_tag_reports_what_jinja_was_looking_for) {
  TemplateError e = compile_error("{% for x in y %}\n{% endif %}");
  EXPECT_EQ(e.where(), "t.jinja:2:4");
  EXPECT_NE(e.message().find("Encountered unknown tag 'endif'. Jinja was looking for the following tags: 'endfor' or "
                             "'else'. The innermost block that needs to be closed is 'for'."),
            std::string::npos)
      << e.message();
}

TEST(ChatTemplate, raise_exception_gives_kind_raised_with_the_exact_message) {
  TemplateError e = render_error("a\n{{ raise_exception('Conversation roles must alternate user/assistant') }}");
  EXPECT_EQ(e.kind(), TemplateError::Kind::raised);
  EXPECT_EQ(e.message(), "Conversation roles must alternate user/assistant");
  EXPECT_EQ(e.where(), "t.jinja:2");
}

TEST(ChatTemplate, undefined_attribute_of_undefined_is_a_runtime_error_with_its_line) {
  TemplateError e = render_error("ok\n\n{{ message.content.strip() }}");
  EXPECT_EQ(e.kind(), TemplateError::Kind::runtime);
  EXPECT_EQ(e.message(), "UndefinedError: 'message' is undefined");
  EXPECT_EQ(e.where(), "t.jinja:3");
}

TEST(ChatTemplate, mutating_a_list_is_a_security_error) {
  TemplateError e = render_error("{% set l = [] %}{{ l.append(1) }}");
  EXPECT_EQ(e.kind(), TemplateError::Kind::security);
  EXPECT_EQ(e.message(), "SecurityError: access to attribute 'append' of 'list' object is unsafe.");
}

TEST(ChatTemplate, autoescape_blocks_are_reported_unsupported) {
  TemplateError e = compile_error("{% autoescape true %}{{ x }}{% endautoescape %}");
  EXPECT_EQ(e.kind(), TemplateError::Kind::unsupported);
}

TEST(ChatTemplate, include_and_import_fail_because_the_sandbox_has_no_files) {
  EXPECT_EQ(render_error("{% include 'other.jinja' %}").kind(), TemplateError::Kind::runtime);
  TemplateError e = render_error("{% import 'macros.jinja' as m %}");
  EXPECT_NE(e.message().find("no loader for this environment specified"), std::string::npos) << e.message();
}

TEST(ChatTemplate, integers_beyond_64_bits_are_reported_unsupported) {
  EXPECT_EQ(render_error("{{ 2 ** 63 }}").kind(), TemplateError::Kind::unsupported);
  EXPECT_EQ(render_error("{{ n }}", nlohmann::json::parse(R"({"n": 18446744073709551615})")).kind(),
            TemplateError::Kind::unsupported);
  EXPECT_EQ(compile_error("{{ 99999999999999999999 }}").kind(), TemplateError::Kind::unsupported);
}

// ---- sandbox limits against hostile templates ----

TEST(ChatTemplateLimits, source_over_max_source_bytes_is_rejected_before_parsing) {
  std::string huge(100u << 20, 'x');
  within_seconds(2.0, [&] {
    TemplateError e = compile_error(huge);
    EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
    EXPECT_NE(e.message().find("max_source_bytes (1048576)"), std::string::npos) << e.message();
  });
}

TEST(ChatTemplateLimits, deeply_nested_parentheses_fail_with_max_depth) {
  std::string src = "{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}";
  within_seconds(2.0, [&] {
    TemplateError e = compile_error(src);
    EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
    EXPECT_NE(e.message().find("max_depth (256)"), std::string::npos) << e.message();
  });
}

TEST(ChatTemplateLimits, deeply_nested_blocks_fail_with_max_depth) {
  std::string src;
  for (int i = 0; i < 5000; ++i) src += "{% if true %}";
  TemplateError e = compile_error(src);
  EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
  EXPECT_NE(e.message().find("max_depth"), std::string::npos) << e.message();
}

TEST(ChatTemplateLimits, long_operator_chains_fail_with_max_depth) {
  std::string src = "{{ 1";
  for (int i = 0; i < 20000; ++i) src += " + 1";
  src += " }}";
  EXPECT_EQ(compile_error(src).kind(), TemplateError::Kind::limit);
  std::string unary = "{{ " + std::string(20000, '-') + "1 }}";
  EXPECT_EQ(compile_error(unary).kind(), TemplateError::Kind::limit);
  std::string nots = "{{ ";
  for (int i = 0; i < 20000; ++i) nots += "not ";
  EXPECT_EQ(compile_error(nots + "x }}").kind(), TemplateError::Kind::limit);
}

TEST(ChatTemplateLimits, huge_range_is_refused_like_jinja2s_sandbox) {
  within_seconds(1.0, [&] {
    TemplateError e = render_error("{% for i in range(10**12) %}{{ i }}{% endfor %}");
    EXPECT_EQ(e.kind(), TemplateError::Kind::runtime);
    EXPECT_EQ(e.message(), "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  });
}

TEST(ChatTemplateLimits, string_repetition_beyond_max_alloc_bytes_fails_fast) {
  within_seconds(1.0, [&] {
    TemplateError e = render_error("{{ 'a' * 10**12 }}");
    EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
    EXPECT_NE(e.message().find("max_alloc_bytes"), std::string::npos) << e.message();
    EXPECT_EQ(render_error("{% for x in [0] * 10**9 %}{% endfor %}").kind(), TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{{ 'x'.center(10**12) }}").kind(), TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{{ '{:>999999999}'.format('x') }}").kind(), TemplateError::Kind::limit);
  });
}

TEST(ChatTemplateLimits, printing_a_list_of_many_references_to_a_big_string_stops_early) {
  within_seconds(15.0, [&] {
    TemplateError e = render_error("{% set big = 'x' * 10**7 %}{{ [big] * 10**6 }}");
    EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
    EXPECT_NE(e.message().find("67108864 bytes would be built"), std::string::npos) << e.message();
    EXPECT_EQ(render_error("{% set big = 'x' * 10**7 %}{{ ([big] * 10**6)|tojson }}").kind(),
              TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{% set big = 'x' * 10**7 %}{{ big.join([big] * 10**6) }}").kind(),
              TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{% set big = 'x' * 10**7 %}{{ ([big] * 10**6)|join }}").kind(), TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{{ ('a' * 10**6).replace('', 'b' * 1000) }}").kind(), TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{{ ('a\n' * 10**6)|indent(4000) }}").kind(), TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{{ ('\t' * 10**6).expandtabs(4000) }}").kind(), TemplateError::Kind::limit);
    EXPECT_EQ(render_error("{{ '%99999999s' * 100 % ((1,) * 100) }}").kind(), TemplateError::Kind::limit);
  });
}

TEST(ChatTemplateLimits, nested_loops_stop_at_max_steps) {
  RenderOptions o;
  o.limits.max_steps = 2'000'000;
  within_seconds(5.0, [&] {
    TemplateError e = render_error("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
                                   nlohmann::json::object(), o);
    EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
    EXPECT_NE(e.message().find("max_steps (2000000)"), std::string::npos) << e.message();
  });
}

TEST(ChatTemplateLimits, default_max_steps_stops_an_endless_template_in_seconds) {
  within_seconds(30.0, [&] {
    TemplateError e = render_error("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}");
    EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
  });
}

TEST(ChatTemplateLimits, exploding_output_stops_at_max_output_bytes) {
  RenderOptions o;
  o.limits.max_output_bytes = 1u << 20;
  TemplateError e =
      render_error("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", nlohmann::json::object(), o);
  EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
  EXPECT_NE(e.message().find("max_output_bytes (1048576 bytes)"), std::string::npos) << e.message();
}

TEST(ChatTemplateLimits, doubling_a_string_stops_at_max_alloc_bytes) {
  RenderOptions o;
  o.limits.max_alloc_bytes = 16u << 20;
  TemplateError e = render_error(
      "{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length "
      "}}",
      nlohmann::json::object(), o);
  EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
  EXPECT_NE(e.message().find("max_alloc_bytes"), std::string::npos) << e.message();
}

TEST(ChatTemplateLimits, recursive_macro_stops_at_max_depth) {
  within_seconds(2.0, [&] {
    TemplateError e = render_error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
    EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
    // max_depth (256) in optimized builds; sanitizer builds have bigger frames and hit the native stack guard.
    EXPECT_NE(e.message().find("max_depth"), std::string::npos) << e.message();
  });
}

TEST(ChatTemplateLimits, native_stack_guard_catches_recursion_when_max_depth_is_raised) {
  RenderOptions o;
  o.limits.max_depth = 1'000'000;
  TemplateError e = render_error(
      "{% macro f(n) %}{% for i in [1] %}{% if true %}{{ f(n + 1) ~ (((n))) }}{% endif %}{% endfor %}{% endmacro %}"
      "{{ f(0) }}",
      nlohmann::json::object(), o);
  EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
  EXPECT_NE(e.message().find("native stack"), std::string::npos) << e.message();
}

TEST(ChatTemplateLimits, recursive_loop_stops_at_max_depth) {
  nlohmann::json tree = nlohmann::json::array();
  nlohmann::json* cur = &tree;
  for (int i = 0; i < 400; ++i) {
    cur->push_back({{"c", nlohmann::json::array()}});
    cur = &(*cur)[0]["c"];
  }
  TemplateError e = render_error("{% for n in t recursive %}{{ loop(n.c) }}{% endfor %}", {{"t", tree}});
  EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
}

TEST(ChatTemplateLimits, values_nested_deeper_than_1000_levels_are_refused) {
  TemplateError e = render_error(
      "{% set ns = namespace(l=[]) %}{% for i in range(5000) %}{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l }}");
  EXPECT_EQ(e.kind(), TemplateError::Kind::limit);
  EXPECT_NE(e.message().find("nested deeper than 1000"), std::string::npos) << e.message();
  EXPECT_EQ(render_error("{% set ns = namespace(g=[1]) %}{% for i in range(5000) %}{% set ns.g = ns.g|map('string') "
                         "%}{% endfor %}{{ ns.g|list }}")
                .kind(),
            TemplateError::Kind::limit);
  nlohmann::json deep = nlohmann::json::array();
  for (int i = 0; i < 2000; ++i) deep = nlohmann::json::array({deep});
  EXPECT_EQ(render_error("{{ d|length }}", {{"d", deep}}).kind(), TemplateError::Kind::limit);
}

TEST(ChatTemplateLimits, namespaces_referencing_each_other_are_released) {
  // A cycle through namespaces renders (Python prints it too) and does not leak or recurse forever.
  ChatTemplate t = ChatTemplate::compile(
      "{% set a = namespace() %}{% set b = namespace(a=a) %}{% set a.b = b %}{{ a.b.a.b.a is defined }}", "t");
  EXPECT_EQ(t.render(nlohmann::json::object()), "True");
  EXPECT_EQ(render_error("{% set a = namespace() %}{% set a.self = a %}{{ a }}").kind(), TemplateError::Kind::limit);
}

// ---- options and variables ----

TEST(ChatTemplate, strftime_now_formats_the_render_date_option) {
  ChatTemplate t = ChatTemplate::compile("{{ strftime_now('%Y-%m-%d %A %d %b %Y') }}", "t");
  RenderOptions o;
  EXPECT_EQ(t.render(nlohmann::json::object(), o), "2026-01-01 Thursday 01 Jan 2026");
  o.today = "2024-02-29";  // a leap day, a Thursday
  EXPECT_EQ(t.render(nlohmann::json::object(), o), "2024-02-29 Thursday 29 Feb 2024");
}

TEST(ChatTemplate, a_render_date_that_is_not_a_calendar_date_is_refused) {
  ChatTemplate t = ChatTemplate::compile("x", "t");
  RenderOptions o;
  for (const char* bad : {"2026-13-01", "2025-02-29", "20260101", "2026-1-01", ""}) {
    o.today = bad;
    EXPECT_THROW(t.render(nlohmann::json::object(), o), TemplateError) << bad;
  }
}

TEST(ChatTemplate, variables_must_be_a_json_object) {
  ChatTemplate t = ChatTemplate::compile("x", "t");
  EXPECT_THROW(t.render(nlohmann::json::array()), TemplateError);
}

TEST(ChatTemplate, json_null_is_none_and_absent_keys_are_undefined) {
  ChatTemplate t = ChatTemplate::compile("{{ a is none }} {{ a is defined }} {{ b is defined }} [{{ b }}]", "t");
  EXPECT_EQ(t.render(nlohmann::json{{"a", nullptr}}), "True True False []");
}

TEST(ChatTemplate, ordered_json_keeps_key_order_and_json_sorts_keys) {
  ChatTemplate t = ChatTemplate::compile("{{ d|tojson }} {% for k in d %}{{ k }}{% endfor %}", "t");
  EXPECT_EQ(t.render(ojson::parse(R"({"d": {"b": 1, "a": 2}})")), R"({"b": 1, "a": 2} ba)");
  EXPECT_EQ(t.render(nlohmann::json::parse(R"({"d": {"b": 1, "a": 2}})")), R"({"a": 2, "b": 1} ab)");
}

TEST(ChatTemplate, variables_shadow_globals_like_template_render) {
  ChatTemplate t = ChatTemplate::compile("{{ range }}", "t");
  EXPECT_EQ(t.render(nlohmann::json{{"range", "mine"}}), "mine");
}

TEST(ChatTemplate, compile_once_render_many_gives_the_same_bytes) {
  ChatTemplate t = ChatTemplate::compile(
      "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{{ m.role }}:{{ m.content }};"
      "{% endfor %}{{ ns.n }}",
      "t");
  nlohmann::json vars = {
      {"messages", {{{"role", "user"}, {"content", "hi"}}, {{"role", "assistant"}, {"content", "yo"}}}}};
  std::string first = t.render(vars);
  EXPECT_EQ(first, "user:hi;assistant:yo;2");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(t.render(vars), first);
}

TEST(ChatTemplate, one_compiled_template_renders_concurrently_on_many_threads) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto templates = ct::fixture_templates();
  auto conversations = ct::tulu_conversations();
  ChatTemplate t = ChatTemplate::compile(templates[0].source, templates[0].name);
  std::vector<std::string> expected;
  std::vector<ojson> vars;
  for (const auto& c : conversations) {
    ojson v = templates[0].special_tokens;
    v["messages"] = c;
    v["add_generation_prompt"] = false;
    vars.push_back(v);
    expected.push_back(t.render(v));
  }
  std::vector<int> mismatches(8, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&, k] {
      for (int rep = 0; rep < 20; ++rep)
        for (std::size_t i = 0; i < vars.size(); ++i)
          if (t.render(vars[(i + static_cast<std::size_t>(k)) % vars.size()]) !=
              expected[(i + static_cast<std::size_t>(k)) % vars.size()])
            ++mismatches[static_cast<std::size_t>(k)];
    });
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(ChatTemplate, template_source_must_be_utf8) {
  EXPECT_EQ(compile_error(std::string("{{ 'a\xff' }}")).kind(), TemplateError::Kind::syntax);
}

TEST(ChatTemplate, name_is_kept) {
  EXPECT_EQ(ChatTemplate::compile("x", "qwen3/chat_template.jinja").name(), "qwen3/chat_template.jinja");
}

}  // namespace
}  // namespace openrecipes::rows
