// Jinja2's lexer with transformers' settings (trim_blocks, lstrip_blocks, default delimiters, no line
// statements, keep_trailing_newline off): template text -> tokens. Upstream behaviour: jinja2/lexer.py (3.1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::rows::template_engine {

enum class Tok : std::uint8_t {
  Data,
  VariableBegin,
  VariableEnd,
  BlockBegin,
  BlockEnd,
  Name,
  String,
  Integer,
  Float,
  Add,
  Sub,
  Div,
  FloorDiv,
  Mul,
  Mod,
  Pow,
  Tilde,
  LBracket,
  RBracket,
  LParen,
  RParen,
  LBrace,
  RBrace,
  Eq,
  Ne,
  Gt,
  GtEq,
  Lt,
  LtEq,
  Assign,
  Dot,
  Colon,
  Pipe,
  Comma,
  Semicolon,
  Eof,
};

struct Token {
  Tok type = Tok::Eof;
  std::string text;       // Data: the text; Name: the name; String: the unescaped value
  std::int64_t ival = 0;  // Integer
  double fval = 0;        // Float
  std::uint32_t line = 1, col = 1;
};

/// Jinja2's describe_token: "end of print statement", a name's own text, an operator's symbol...
std::string describe_token(const Token& t);
std::string describe_tok(Tok t);

/// Tokenizes `source` (valid UTF-8, already bounded by the caller). Newlines (\r\n, \r, \n) become \n and one
/// trailing newline is dropped, as Jinja2 does. Throws Failure(TemplateSyntaxError) with line/col for
/// unexpected characters, unbalanced brackets, bad string escapes and unterminated comments/raw blocks.
std::vector<Token> tokenize(std::string_view source);

}  // namespace openrecipes::rows::template_engine
