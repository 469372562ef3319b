// Tests for src/site/html: templates escape every {{field}}, a field's template tags stay text, bidi controls
// become visible text, and a broken or unknown template is a bug (logic_error), never silently empty.
#include "site/html.h"

#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "site/site_files.h"

namespace openrecipes::site {
namespace {

TEST(Html, inert_text_writes_bidi_controls_separators_and_invisible_characters_visibly_and_keeps_other_text) {
  EXPECT_EQ(inert_text("a\u202Eb\u2066c\u200Fd\u061Ce"), "a\\u202Eb\\u2066c\\u200Fd\\u061Ce");
  EXPECT_EQ(inert_text("Qwen3 · 0.6B — ok “quotes” \u2065"),
            "Qwen3 · 0.6B — ok “quotes” \u2065");  // U+2065 is no control
  EXPECT_EQ(inert_text("\xE2\x80"), "\xE2\x80");   // a truncated sequence at the end is left as it is
  // Line and paragraph separators and the invisible characters that make two names look alike are visible too;
  // zero width (non-)joiners, which scripts and emoji need, are kept.
  EXPECT_EQ(inert_text("a\u2028b\u2029c\u200Bd\u2060e\uFEFFf"), "a\\u2028b\\u2029c\\u200Bd\\u2060e\\uFEFFf");
  EXPECT_EQ(inert_text("\u200C\u200D\u2027\u202F"), "\u200C\u200D\u2027\u202F");
  // On a page a terminal's escape sequence, a bell, NUL, backspace, CR, DEL and a C1 control are written visibly;
  // line breaks and tabs (a command's lines) are kept.
  EXPECT_EQ(html_text(std::string("a\x1b[31mb\a\0c\bd\re\x7f f\xC2\x9bg\n\th", 23)),
            "a\\u001B[31mb\\u0007\\u0000c\\u0008d\\u000De\\u007F f\\u009Bg\n\th");
  EXPECT_EQ(html_text("<a href='x'>&\"\u202E"), "&lt;a href=&apos;x&apos;&gt;&amp;&quot;\\u202E");
}

TEST(Html, layout_escapes_fields_and_keeps_their_template_tags_as_text) {
  nlohmann::json view = {{"title", "<script>alert(1)</script>{{version}}"},
                         {"root", "\"><img src=x onerror=alert(2)>"},
                         {"body", "<p>the tool's own markup</p>"},
                         {"version", "openrecipes 0.1.0"}};
  const std::string html = render_template("layout", view);
  EXPECT_THAT(html, ::testing::HasSubstr("<title>&lt;script&gt;alert(1)&lt;/script&gt;{{version}}</title>"));
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("href=\"&quot;&gt;&lt;img src=x onerror=alert(2)&gt;assets/style.css\""), std::string::npos);
  EXPECT_NE(html.find("<p>the tool's own markup</p>"), std::string::npos);  // {{{body}}}: written by the tool
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
}

TEST(Html, unknown_template_is_a_logic_error) {
  EXPECT_THROW(render_template("no-such-page", nlohmann::json::object()), std::logic_error);
  EXPECT_THROW(site_file("templates/none.mustache"), std::logic_error);
}

TEST(Html, every_embedded_template_parses_and_no_template_writes_inline_script_or_style) {
  int templates = 0;
  for (const auto& f : site_files()) {
    if (f.path.rfind("templates/", 0) != 0) continue;
    ++templates;
    std::string name(f.path.substr(10, f.path.size() - 10 - 9));  // templates/<name>.mustache
    EXPECT_NO_THROW(render_template(name, nlohmann::json::object())) << f.path;
    EXPECT_EQ(f.bytes.find("<script>"), std::string::npos) << f.path;  // scripts only by src= (CSP script-src 'self')
    EXPECT_EQ(f.bytes.find("style=\""), std::string::npos) << f.path;  // styles only from style.css
    EXPECT_FALSE(std::regex_search(std::string(f.bytes), std::regex(R"(\son[a-z]+\s*=)"))) << f.path;  // no handlers
  }
  EXPECT_EQ(templates, 5);
}

}  // namespace
}  // namespace openrecipes::site
