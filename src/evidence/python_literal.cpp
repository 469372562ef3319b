// Python literal parser for slime/miles log dicts (SPEC §2): the subset their log lines print.
#include "evidence/python_literal.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes::evidence {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}
  nlohmann::json value(int depth) {
    if (depth > 64) fail("nesting deeper than 64");
    ws();
    if (at_end()) fail("unexpected end of input");
    char c = s_[i_];
    if (c == '{') return dict(depth);
    if (c == '[') return seq(depth, ']');
    if (c == '(') return seq(depth, ')');
    if (c == '\'' || c == '"') return str();
    if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) return number();
    std::size_t start = i_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.')) ++i_;
    std::string_view word = s_.substr(start, i_ - start);
    if (word == "True") return true;
    if (word == "False") return false;
    if (word == "None") return nullptr;
    if (word == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (word == "inf") return std::numeric_limits<double>::infinity();
    // numpy / torch scalar reprs: np.float64(1.5), numpy.int64(3), tensor(2.0)
    if (!word.empty() && !at_end() && s_[i_] == '(') {
      ++i_;
      auto inner = value(depth + 1);
      ws();
      // torch prints tensor(2.0, device='cuda:0'): skip keyword arguments.
      while (!at_end() && s_[i_] == ',') {
        ++i_;
        ws();
        while (!at_end() && s_[i_] != ',' && s_[i_] != ')') {
          if (s_[i_] == '\'' || s_[i_] == '"')
            str();
          else
            ++i_;
        }
      }
      expect(')');
      if (!inner.is_number() && !inner.is_boolean()) fail("only numeric scalars may be wrapped in a call");
      return inner;
    }
    fail(fmt::format("unexpected {}", quote_for_message(word.empty() ? s_.substr(i_, 1) : word)));
  }
  std::size_t pos() const { return i_; }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(fmt::format("at byte {}: {}", i_, why));
  }
  bool at_end() const { return i_ >= s_.size(); }
  void ws() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  void expect(char c) {
    ws();
    if (at_end() || s_[i_] != c) fail(fmt::format("expected '{}'", c));
    ++i_;
  }
  nlohmann::json dict(int depth) {
    ++i_;
    nlohmann::json obj = nlohmann::json::object();
    ws();
    if (!at_end() && s_[i_] == '}') return ++i_, obj;
    for (;;) {
      ws();
      if (at_end() || (s_[i_] != '\'' && s_[i_] != '"')) fail("dict keys must be strings");
      std::size_t key_at = i_;
      std::string key = str();
      if (obj.contains(key)) {
        i_ = key_at;
        fail(fmt::format("key {} appears twice in one dict", quote_for_message(key)));
      }
      expect(':');
      obj[key] = value(depth + 1);
      ws();
      if (!at_end() && s_[i_] == ',') {
        ++i_;
        ws();
        if (!at_end() && s_[i_] == '}') return ++i_, obj;
        continue;
      }
      expect('}');
      return obj;
    }
  }
  nlohmann::json seq(int depth, char close) {
    ++i_;
    nlohmann::json arr = nlohmann::json::array();
    ws();
    if (!at_end() && s_[i_] == close) return ++i_, arr;
    for (;;) {
      arr.push_back(value(depth + 1));
      ws();
      if (!at_end() && s_[i_] == ',') {
        ++i_;
        ws();
        if (!at_end() && s_[i_] == close) return ++i_, arr;
        continue;
      }
      expect(close);
      return arr;
    }
  }
  std::string str() {
    char q = s_[i_++];
    std::string out;
    while (!at_end() && s_[i_] != q) {
      char c = s_[i_++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_end()) break;
      char e = s_[i_++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
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
        default:
          out.push_back('\\');
          out.push_back(e);
      }
    }
    if (at_end()) fail("unterminated string");
    ++i_;
    return out;
  }
  nlohmann::json number() {
    std::size_t start = i_;
    if (s_[i_] == '-' || s_[i_] == '+') ++i_;
    if (s_.substr(i_, 3) == "nan" || s_.substr(i_, 3) == "inf") {
      i_ += 3;
      return *parse_double(s_.substr(start, i_ - start));
    }
    bool is_float = false;
    while (!at_end()) {
      char c = s_[i_];
      if (c >= '0' && c <= '9')
        ++i_;
      else if (c == '.' || c == 'e' || c == 'E')
        is_float = true, ++i_;
      else if ((c == '-' || c == '+') && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E'))
        ++i_;
      else
        break;
    }
    std::string_view text = s_.substr(start, i_ - start);
    if (!is_float) {
      if (auto v = parse_int(text)) return *v;
    }
    auto v = parse_double(text);
    if (!v) fail("malformed number " + quote_for_message(text));
    return *v;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

nlohmann::json parse_python_literal(std::string_view text, std::size_t& consumed) {
  if (text.size() > (1u << 20)) throw std::invalid_argument("literal longer than 1 MiB");
  Parser p(text);
  auto v = p.value(0);
  consumed = p.pos();
  return v;
}

}  // namespace openrecipes::evidence
