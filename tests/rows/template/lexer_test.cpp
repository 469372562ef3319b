// Jinja2 lexer rules at token level: token kinds, literal values, line/column positions, bracket balancing and
// the lexer's syntax errors (upstream behaviour: jinja2/lexer.py).
#include "rows/template/lexer.h"

#include <gtest/gtest.h>

#include "rows/template/failure.h"

namespace openrecipes::rows::template_engine {
namespace {

std::vector<Tok> kinds(const std::vector<Token>& toks) {
  std::vector<Tok> out;
  for (const auto& t : toks) out.push_back(t.type);
  return out;
}

Failure lex_failure(std::string_view src) {
  try {
    tokenize(src);
  } catch (const Failure& f) {
    return f;
  }
  ADD_FAILURE() << "tokenized " << src;
  return {};
}

TEST(Lexer, variable_tag_yields_data_and_expression_tokens) {
  auto toks = tokenize("a{{ x.y|f(1, 'b') }}c");
  std::vector<Tok> want = {Tok::Data,   Tok::VariableBegin, Tok::Name,        Tok::Dot,     Tok::Name,
                           Tok::Pipe,   Tok::Name,          Tok::LParen,      Tok::Integer, Tok::Comma,
                           Tok::String, Tok::RParen,        Tok::VariableEnd, Tok::Data,    Tok::Eof};
  EXPECT_EQ(kinds(toks), want);
  EXPECT_EQ(toks[0].text, "a");
  EXPECT_EQ(toks[10].text, "b");
  EXPECT_EQ(toks[13].text, "c");
}

TEST(Lexer, positions_are_lines_and_code_point_columns) {
  auto toks = tokenize("é\n  {{ xyz }}");
  ASSERT_GE(toks.size(), 3u);
  EXPECT_EQ(toks[1].type, Tok::VariableBegin);
  EXPECT_EQ(toks[1].line, 2u);
  EXPECT_EQ(toks[1].col, 3u);
  EXPECT_EQ(toks[2].text, "xyz");
  EXPECT_EQ(toks[2].col, 6u);
}

TEST(Lexer, number_literals_follow_python) {
  auto toks = tokenize("{{ 0x1F 0o17 0b101 1_000 1.5e3 2. 00 }}");
  EXPECT_EQ(toks[1].ival, 31);
  EXPECT_EQ(toks[2].ival, 15);
  EXPECT_EQ(toks[3].ival, 5);
  EXPECT_EQ(toks[4].ival, 1000);
  EXPECT_EQ(toks[5].type, Tok::Float);
  EXPECT_EQ(toks[5].fval, 1500.0);
  EXPECT_EQ(toks[6].type, Tok::Integer);  // "2." is the integer 2 then a dot
  EXPECT_EQ(toks[7].type, Tok::Dot);
  EXPECT_EQ(toks[8].ival, 0);
}

TEST(Lexer, string_literals_decode_python_escapes) {
  auto toks = tokenize(R"({{ 'A\x42\u00e9\n\q' }})");
  EXPECT_EQ(toks[1].text, "AB\xc3\xa9\n\\q");
}

TEST(Lexer, closing_braces_inside_a_dict_do_not_end_the_tag) {
  auto toks = tokenize("{{ {'a': {}} }}");
  std::vector<Tok> want = {Tok::VariableBegin, Tok::LBrace, Tok::String,      Tok::Colon, Tok::LBrace,
                           Tok::RBrace,        Tok::RBrace, Tok::VariableEnd, Tok::Eof};
  EXPECT_EQ(kinds(toks), want);
}

TEST(Lexer, whitespace_control_trims_the_data_tokens) {
  auto toks = tokenize("a \n {%- if x -%} \n b\n  {% endif %}\nc");
  EXPECT_EQ(toks[0].text, "a");
  auto it = std::find_if(toks.begin() + 1, toks.end(), [](const Token& t) { return t.type == Tok::Data; });
  ASSERT_NE(it, toks.end());
  EXPECT_EQ(it->text, "b\n");                  // -%} ate " \n ", lstrip_blocks ate "  " before endif
  EXPECT_EQ(toks[toks.size() - 2].text, "c");  // trim_blocks ate the newline after endif
}

TEST(Lexer, unexpected_character_is_reported_with_its_position) {
  Failure f = lex_failure("ok\n{{ a ! b }}");
  EXPECT_EQ(f.type, PyError::TemplateSyntaxError);
  EXPECT_EQ(f.message, "unexpected char '!' at 8");
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(f.col, 6u);
}

TEST(Lexer, mismatched_brackets_are_reported) {
  EXPECT_EQ(lex_failure("{{ (1] }}").message, "unexpected ']', expected ')'");
  EXPECT_EQ(lex_failure("{{ 1) }}").message, "unexpected ')'");
}

TEST(Lexer, unterminated_comment_and_raw_are_reported) {
  EXPECT_EQ(lex_failure("x {# no end").message, "Missing end of comment tag");
  EXPECT_EQ(lex_failure("{% raw %} no end").message, "Missing end of raw directive");
}

}  // namespace
}  // namespace openrecipes::rows::template_engine
