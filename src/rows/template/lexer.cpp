// Jinja2 3.1 lexer semantics (jinja2/lexer.py) re-implemented as a hand-written scanner: root data with
// whitespace control ({%- -%} {%+ +%}, trim_blocks, lstrip_blocks), raw blocks, comments, and tag tokens.
#include "rows/template/lexer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "rows/template/failure.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

std::string describe_tok(Tok t) {
  switch (t) {
    case Tok::Data:
      return "template data / text";
    case Tok::VariableBegin:
      return "begin of print statement";
    case Tok::VariableEnd:
      return "end of print statement";
    case Tok::BlockBegin:
      return "begin of statement block";
    case Tok::BlockEnd:
      return "end of statement block";
    case Tok::Name:
      return "name";
    case Tok::String:
      return "string";
    case Tok::Integer:
      return "integer";
    case Tok::Float:
      return "float";
    case Tok::Add:
      return "+";
    case Tok::Sub:
      return "-";
    case Tok::Div:
      return "/";
    case Tok::FloorDiv:
      return "//";
    case Tok::Mul:
      return "*";
    case Tok::Mod:
      return "%";
    case Tok::Pow:
      return "**";
    case Tok::Tilde:
      return "~";
    case Tok::LBracket:
      return "[";
    case Tok::RBracket:
      return "]";
    case Tok::LParen:
      return "(";
    case Tok::RParen:
      return ")";
    case Tok::LBrace:
      return "{";
    case Tok::RBrace:
      return "}";
    case Tok::Eq:
      return "==";
    case Tok::Ne:
      return "!=";
    case Tok::Gt:
      return ">";
    case Tok::GtEq:
      return ">=";
    case Tok::Lt:
      return "<";
    case Tok::LtEq:
      return "<=";
    case Tok::Assign:
      return "=";
    case Tok::Dot:
      return ".";
    case Tok::Colon:
      return ":";
    case Tok::Pipe:
      return "|";
    case Tok::Comma:
      return ",";
    case Tok::Semicolon:
      return ";";
    case Tok::Eof:
      return "end of template";
  }
  return "?";
}

std::string describe_token(const Token& t) {
  if (t.type == Tok::Name) return t.text;
  return describe_tok(t.type);
}

namespace {

struct Op {
  const char* text;
  Tok tok;
};
// Longest first, as Jinja2's operator regex.
const Op kOps[] = {
    {"//", Tok::FloorDiv}, {"**", Tok::Pow},   {"==", Tok::Eq},      {"!=", Tok::Ne},      {">=", Tok::GtEq},
    {"<=", Tok::LtEq},     {"+", Tok::Add},    {"-", Tok::Sub},      {"/", Tok::Div},      {"*", Tok::Mul},
    {"%", Tok::Mod},       {"~", Tok::Tilde},  {"[", Tok::LBracket}, {"]", Tok::RBracket}, {"(", Tok::LParen},
    {")", Tok::RParen},    {"{", Tok::LBrace}, {"}", Tok::RBrace},   {">", Tok::Gt},       {"<", Tok::Lt},
    {"=", Tok::Assign},    {".", Tok::Dot},    {":", Tok::Colon},    {"|", Tok::Pipe},     {",", Tok::Comma},
    {";", Tok::Semicolon},
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(std::string_view source) {
    src_.reserve(source.size());
    for (std::size_t i = 0; i < source.size(); ++i) {
      char c = source[i];
      if (c == '\r') {
        if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
        src_.push_back('\n');
      } else {
        src_.push_back(c);
      }
    }
    if (!src_.empty() && src_.back() == '\n') src_.pop_back();
    s_ = src_;
    n_ = s_.size();
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < n_; ++i)
      if (s_[i] == '\n') line_starts_.push_back(i + 1);
  }

  std::vector<Token> run() {
    while (pos_ < n_) root_step();
    Token eof;
    eof.type = Tok::Eof;
    set_pos(eof, n_);
    out_.push_back(std::move(eof));
    return std::move(out_);
  }

 private:
  std::string src_;
  std::string_view s_;
  std::size_t n_ = 0;
  std::size_t pos_ = 0;
  bool line_starting_ = true;
  std::vector<Token> out_;
  std::vector<char> balance_;
  std::vector<std::size_t> line_starts_;

  // Line and column (code points) of byte `at`; tokens come in increasing order, so the column is advanced
  // from the previous position instead of recounted from the line start.
  mutable std::size_t cache_at_ = 0, cache_line_ = 0, cache_col_ = 1;
  void set_pos(Token& t, std::size_t at) const {
    std::size_t line_index;
    std::size_t col;
    bool same_line = at >= cache_at_ && (cache_line_ + 1 >= line_starts_.size() || at < line_starts_[cache_line_ + 1]);
    if (same_line) {
      line_index = cache_line_;
      col = cache_col_ + cp_count(s_.substr(cache_at_, at - cache_at_));
    } else {
      auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), at);
      line_index = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
      col = cp_count(s_.substr(line_starts_[line_index], at - line_starts_[line_index])) + 1;
    }
    cache_at_ = at;
    cache_line_ = line_index;
    cache_col_ = col;
    t.line = static_cast<std::uint32_t>(line_index + 1);
    t.col = static_cast<std::uint32_t>(col);
  }

  [[noreturn]] void error_at(std::size_t at, std::string message) const {
    Token t;
    set_pos(t, std::min(at, n_));
    Failure f{PyError::TemplateSyntaxError, std::move(message), t.line, t.col};
    throw f;
  }

  // Python str.isspace() at byte i; sets `next` past the character.
  bool space_at(std::size_t i, std::size_t& next) const {
    if (i >= n_) return false;
    auto c = static_cast<unsigned char>(s_[i]);
    if (c < 0x80) {
      next = i + 1;
      return py_isspace(c);
    }
    std::size_t j = i;
    char32_t cp = next_cp(s_, j);
    next = j;
    return py_isspace(cp);
  }
  std::size_t skip_space(std::size_t i) const {
    std::size_t next;
    while (space_at(i, next)) i = next;
    return i;
  }
  bool starts(std::size_t i, std::string_view lit) const { return s_.substr(i, lit.size()) == lit; }

  void emit(Tok type, std::size_t at, std::string text = {}) {
    Token t;
    t.type = type;
    t.text = std::move(text);
    set_pos(t, at);
    out_.push_back(std::move(t));
  }

  // Whitespace control on the text before a tag (Jinja2's OptionalLStrip handling).
  std::string_view strip_text(std::string_view text, char sign, bool is_variable) const {
    if (sign == '-') {
      std::size_t end = text.size();
      while (end > 0) {
        std::size_t j = end;
        char32_t c = prev_cp(text, j);
        if (!py_isspace(c)) break;
        end = j;
      }
      return text.substr(0, end);
    }
    if (sign != '+' && !is_variable) {
      std::size_t nl = text.rfind('\n');
      std::size_t l_pos = nl == std::string_view::npos ? 0 : nl + 1;
      if ((l_pos > 0 || line_starting_) && l_pos < text.size()) {
        bool all_space = true;
        for (std::size_t i = l_pos; i < text.size();) {
          char32_t c = next_cp(text, i);
          if (!py_isspace(c)) {
            all_space = false;
            break;
          }
        }
        if (all_space) return text.substr(0, l_pos);
      }
    }
    return text;
  }

  void root_step() {
    // Earliest "{{", "{%" or "{#".
    std::size_t p = pos_;
    for (;;) {
      p = s_.find('{', p);
      if (p == std::string_view::npos || p + 1 >= n_) {
        p = std::string_view::npos;
        break;
      }
      char c = s_[p + 1];
      if (c == '{' || c == '%' || c == '#') break;
      ++p;
    }
    if (p == std::string_view::npos) {
      emit(Tok::Data, pos_, std::string(s_.substr(pos_)));
      line_starting_ = s_.back() == '\n';
      pos_ = n_;
      return;
    }
    char kind = s_[p + 1];
    std::size_t q = p + 2;
    char sign = 0;
    if (q < n_ && (s_[q] == '-' || s_[q] == '+')) sign = s_[q];
    // {% raw %} ?
    std::size_t raw_end = 0;
    if (kind == '%') {
      std::size_t r = q + (sign ? 1 : 0);
      r = skip_space(r);
      if (starts(r, "raw")) {
        r = skip_space(r + 3);
        if (starts(r, "-%}")) {
          raw_end = skip_space(r + 3);
        } else if (starts(r, "%}")) {
          raw_end = r + 2;
        }
      }
    }
    std::string_view text = strip_text(s_.substr(pos_, p - pos_), sign, kind == '{');
    if (!text.empty()) emit(Tok::Data, pos_, std::string(text));
    if (raw_end != 0) {
      line_starting_ = s_[raw_end - 1] == '\n';
      lex_raw(raw_end);
      return;
    }
    line_starting_ = false;
    std::size_t body = q + (sign ? 1 : 0);
    if (kind == '#') {
      lex_comment(p, body);
    } else if (kind == '{') {
      emit(Tok::VariableBegin, p);
      lex_tag(body, false);
    } else {
      emit(Tok::BlockBegin, p);
      lex_tag(body, true);
    }
  }

  void lex_raw(std::size_t start) {
    std::size_t q = start;
    for (;;) {
      q = s_.find("{%", q);
      if (q == std::string_view::npos) error_at(start, "Missing end of raw directive");
      std::size_t r = q + 2;
      char sign = 0;
      if (r < n_ && (s_[r] == '-' || s_[r] == '+')) sign = s_[r++];
      r = skip_space(r);
      if (starts(r, "endraw")) {
        r = skip_space(r + 6);
        std::size_t end = 0;
        if (starts(r, "+%}")) {
          end = r + 3;
        } else if (starts(r, "-%}")) {
          end = skip_space(r + 3);
        } else if (starts(r, "%}")) {
          end = r + 2;
          if (end < n_ && s_[end] == '\n') ++end;
        }
        if (end != 0) {
          std::string_view text = strip_text(s_.substr(start, q - start), sign, false);
          if (!text.empty()) emit(Tok::Data, start, std::string(text));
          line_starting_ = s_[end - 1] == '\n';
          pos_ = end;
          return;
        }
      }
      q += 2;
    }
  }

  void lex_comment(std::size_t open, std::size_t start) {
    std::size_t r = s_.find("#}", start);
    if (r == std::string_view::npos) error_at(open, "Missing end of comment tag");
    std::size_t end = r + 2;
    if (r > start && s_[r - 1] == '-') {
      end = skip_space(end);
    } else if (r > start && s_[r - 1] == '+') {
      // no trim
    } else if (end < n_ && s_[end] == '\n') {
      ++end;
    }
    line_starting_ = s_[end - 1] == '\n';
    pos_ = end;
  }

  // Tokens inside {{ ... }} or {% ... %} up to the closing delimiter.
  void lex_tag(std::size_t i, bool block) {
    for (;;) {
      if (balance_.empty()) {
        if (block) {
          if (starts(i, "+%}")) {
            emit(Tok::BlockEnd, i);
            pos_ = i + 3;
            line_starting_ = false;
            return;
          }
          if (starts(i, "-%}")) {
            emit(Tok::BlockEnd, i);
            pos_ = skip_space(i + 3);
            line_starting_ = s_[pos_ - 1] == '\n';
            return;
          }
          if (starts(i, "%}")) {
            emit(Tok::BlockEnd, i);
            pos_ = i + 2;
            if (pos_ < n_ && s_[pos_] == '\n') ++pos_;
            line_starting_ = s_[pos_ - 1] == '\n';
            return;
          }
        } else {
          if (starts(i, "-}}")) {
            emit(Tok::VariableEnd, i);
            pos_ = skip_space(i + 3);
            line_starting_ = s_[pos_ - 1] == '\n';
            return;
          }
          if (starts(i, "}}")) {
            emit(Tok::VariableEnd, i);
            pos_ = i + 2;
            line_starting_ = false;
            return;
          }
        }
      }
      if (i >= n_) {
        pos_ = n_;  // unterminated tag: the parser reports the missing end
        return;
      }
      std::size_t next;
      if (space_at(i, next)) {
        i = skip_space(i);
        continue;
      }
      if (std::size_t e = match_float(i); e != 0) {
        std::string digits;
        for (std::size_t k = i; k < e; ++k)
          if (s_[k] != '_') digits.push_back(s_[k]);
        Token t;
        t.type = Tok::Float;
        set_pos(t, i);
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), t.fval);
        if (r.ec == std::errc::result_out_of_range) {
          // Python's literal_eval gives inf for an overflowing literal and 0.0 for an underflowing one.
          std::size_t epos = digits.find_first_of("eE");
          bool negative_exp = epos != std::string::npos && epos + 1 < digits.size() && digits[epos + 1] == '-';
          t.fval = negative_exp ? 0.0 : HUGE_VAL;
        }
        out_.push_back(std::move(t));
        i = e;
        continue;
      }
      if (std::size_t e = match_integer(i); e != 0) {
        lex_integer(i, e);
        i = e;
        continue;
      }
      if (std::size_t e = match_name(i); e != 0) {
        emit(Tok::Name, i, std::string(s_.substr(i, e - i)));
        i = e;
        continue;
      }
      if (s_[i] == '\'' || s_[i] == '"') {
        std::size_t e = match_string(i);
        if (e != 0) {
          Token t;
          t.type = Tok::String;
          set_pos(t, i);
          t.text = unescape(s_.substr(i + 1, e - i - 2), i);
          out_.push_back(std::move(t));
          i = e;
          continue;
        }
      }
      bool matched = false;
      for (const Op& op : kOps) {
        std::string_view t = op.text;
        if (starts(i, t)) {
          balance_op(op.tok, i);
          emit(op.tok, i);
          i += t.size();
          matched = true;
          break;
        }
      }
      if (matched) continue;
      std::size_t j = i;
      next_cp(s_, j);
      std::string ch(s_.substr(i, j - i));
      std::string quoted = ch == "'" ? "\"'\"" : "'" + ch + "'";
      error_at(i, "unexpected char " + quoted + " at " + std::to_string(cp_count(s_.substr(0, i))));
    }
  }

  void balance_op(Tok t, std::size_t at) {
    switch (t) {
      case Tok::LBrace:
        balance_.push_back('}');
        break;
      case Tok::LParen:
        balance_.push_back(')');
        break;
      case Tok::LBracket:
        balance_.push_back(']');
        break;
      case Tok::RBrace:
      case Tok::RParen:
      case Tok::RBracket: {
        char c = t == Tok::RBrace ? '}' : t == Tok::RParen ? ')' : ']';
        if (balance_.empty()) error_at(at, std::string("unexpected '") + c + "'");
        char expected = balance_.back();
        balance_.pop_back();
        if (expected != c) error_at(at, std::string("unexpected '") + c + "', expected '" + expected + "'");
        break;
      }
      default:
        break;
    }
  }

  // (\d+_)*\d+ starting at i; returns end or 0.
  std::size_t digit_group(std::size_t i) const {
    if (i >= n_ || !is_digit(s_[i])) return 0;
    while (i < n_ && is_digit(s_[i])) ++i;
    while (i + 1 < n_ && s_[i] == '_' && is_digit(s_[i + 1])) {
      ++i;
      while (i < n_ && is_digit(s_[i])) ++i;
    }
    return i;
  }

  std::size_t match_float(std::size_t i) const {
    if (i > 0 && s_[i - 1] == '.') return 0;
    std::size_t a = digit_group(i);
    if (a == 0) return 0;
    std::size_t b = a;
    if (a < n_ && s_[a] == '.') {
      std::size_t f = digit_group(a + 1);
      if (f != 0) b = f;
    }
    if (b < n_ && (s_[b] == 'e' || s_[b] == 'E')) {
      std::size_t k = b + 1;
      if (k < n_ && (s_[k] == '+' || s_[k] == '-')) ++k;
      std::size_t e = digit_group(k);
      if (e != 0) return e;
    }
    return b > a ? b : 0;
  }

  std::size_t match_integer(std::size_t i) const {
    auto radix = [&](std::size_t k, int base) -> std::size_t {
      std::size_t start = k;
      for (;;) {
        std::size_t m = k;
        if (m < n_ && s_[m] == '_') ++m;
        if (m >= n_) break;
        char c = static_cast<char>(s_[m] | 0x20);
        bool ok = base == 2   ? (c == '0' || c == '1')
                  : base == 8 ? (c >= '0' && c <= '7')
                              : (is_digit(s_[m]) || (c >= 'a' && c <= 'f'));
        if (!ok) break;
        k = m + 1;
      }
      return k > start ? k : 0;
    };
    if (i >= n_ || !is_digit(s_[i])) return 0;
    if (s_[i] == '0' && i + 1 < n_) {
      char x = static_cast<char>(s_[i + 1] | 0x20);
      if (x == 'b' || x == 'o' || x == 'x') {
        std::size_t e = radix(i + 2, x == 'b' ? 2 : x == 'o' ? 8 : 16);
        if (e != 0) return e;
      }
    }
    if (s_[i] == '0') {
      std::size_t k = i + 1;
      for (;;) {
        std::size_t m = k;
        if (m < n_ && s_[m] == '_') ++m;
        if (m < n_ && s_[m] == '0') {
          k = m + 1;
          continue;
        }
        break;
      }
      return k;
    }
    std::size_t k = i + 1;
    for (;;) {
      std::size_t m = k;
      if (m < n_ && s_[m] == '_') ++m;
      if (m < n_ && is_digit(s_[m])) {
        k = m + 1;
        continue;
      }
      break;
    }
    return k;
  }

  void lex_integer(std::size_t i, std::size_t e) {
    std::string t;
    for (std::size_t k = i; k < e; ++k)
      if (s_[k] != '_') t.push_back(s_[k]);
    int base = 10;
    std::size_t off = 0;
    if (t.size() > 1 && t[0] == '0') {
      char x = static_cast<char>(t[1] | 0x20);
      if (x == 'b') base = 2, off = 2;
      if (x == 'o') base = 8, off = 2;
      if (x == 'x') base = 16, off = 2;
    }
    std::uint64_t v = 0;
    auto r = std::from_chars(t.data() + off, t.data() + t.size(), v, base);
    if (r.ec != std::errc() || v > static_cast<std::uint64_t>(INT64_MAX)) {
      Token tmp;
      set_pos(tmp, i);
      Failure f{PyError::Unsupported,
                "integer literal " + std::string(s_.substr(i, e - i)) +
                    " does not fit in 64 bits (this engine's integers are 64-bit)",
                tmp.line, tmp.col};
      throw f;
    }
    Token tok;
    tok.type = Tok::Integer;
    tok.ival = static_cast<std::int64_t>(v);
    set_pos(tok, i);
    out_.push_back(std::move(tok));
  }

  std::size_t match_name(std::size_t i) const {
    std::size_t k = i;
    while (k < n_) {
      auto c = static_cast<unsigned char>(s_[k]);
      if (c < 0x80) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || is_digit(static_cast<char>(c))) {
          ++k;
          continue;
        }
        break;
      }
      std::size_t j = k;
      char32_t cp = next_cp(s_, j);
      if (!py_isalnum(cp)) break;
      k = j;
    }
    if (k == i) return 0;
    // Python's str.isidentifier(): the first character may not be a digit.
    std::size_t j = i;
    char32_t first = next_cp(s_, j);
    if (py_isdecimal(first) || py_isdigit(first) || (py_isnumeric(first) && !py_isalpha(first)))
      error_at(i, "Invalid character in identifier");
    return k;
  }

  std::size_t match_string(std::size_t i) const {
    char q = s_[i];
    std::size_t k = i + 1;
    while (k < n_) {
      char c = s_[k];
      if (c == '\\') {
        if (k + 1 >= n_) return 0;
        std::size_t j = k + 1;
        next_cp(s_, j);
        k = j;
        continue;
      }
      if (c == q) return k + 1;
      ++k;
    }
    return 0;
  }

  static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = static_cast<char>(c | 0x20);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  }

  // Python: value.encode("ascii", "backslashreplace").decode("unicode-escape").
  std::string unescape(std::string_view raw, std::size_t at) const {
    std::string out;
    out.reserve(raw.size());
    std::size_t i = 0;
    while (i < raw.size()) {
      char c = raw[i];
      if (c != '\\') {
        std::size_t j = i;
        next_cp(raw, j);
        out.append(raw.substr(i, j - i));
        i = j;
        continue;
      }
      ++i;  // backslash
      auto d = static_cast<unsigned char>(raw[i]);
      if (d >= 0x80) {
        // The non-ASCII character was backslash-escaped before decoding: "\" + "\xe9" decodes to "\xe9".
        std::size_t j = i;
        char32_t cp = next_cp(raw, j);
        char buf[16];
        if (cp < 0x100)
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
        else if (cp < 0x10000)
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
        else
          std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
        out += buf;
        i = j;
        continue;
      }
      ++i;
      switch (d) {
        case '\n':
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '\'':
          out.push_back('\'');
          break;
        case '"':
          out.push_back('"');
          break;
        case 'a':
          out.push_back('\a');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'v':
          out.push_back('\v');
          break;
        case 'x':
        case 'u':
        case 'U': {
          int digits = d == 'x' ? 2 : d == 'u' ? 4 : 8;
          char32_t cp = 0;
          for (int k = 0; k < digits; ++k) {
            int h = i + static_cast<std::size_t>(k) < raw.size() ? hexval(raw[i + static_cast<std::size_t>(k)]) : -1;
            if (h < 0) {
              error_at(at, d == 'x'   ? "truncated \\xXX escape"
                           : d == 'u' ? "truncated \\uXXXX escape"
                                      : "truncated \\UXXXXXXXX escape");
            }
            cp = cp * 16 + static_cast<char32_t>(h);
          }
          i += static_cast<std::size_t>(digits);
          if (cp > 0x10FFFF) error_at(at, "illegal Unicode character");
          if (cp >= 0xD800 && cp <= 0xDFFF) {
            Token tmp;
            set_pos(tmp, at);
            throw Failure{PyError::Unsupported, "a string literal with a lone surrogate escape is not supported",
                          tmp.line, tmp.col};
          }
          append_utf8(out, cp);
          break;
        }
        case 'N': {
          Token tmp;
          set_pos(tmp, at);
          throw Failure{PyError::Unsupported, "\\N{...} escapes in string literals are not supported", tmp.line,
                        tmp.col};
        }
        default:
          if (d >= '0' && d <= '7') {
            char32_t cp = d - '0';
            for (int k = 0; k < 2 && i < raw.size() && raw[i] >= '0' && raw[i] <= '7'; ++k, ++i)
              cp = cp * 8 + static_cast<char32_t>(raw[i] - '0');
            append_utf8(out, cp);
          } else {
            out.push_back('\\');
            out.push_back(static_cast<char>(d));
          }
      }
    }
    return out;
  }
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace openrecipes::rows::template_engine
