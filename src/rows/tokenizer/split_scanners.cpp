// Scanners equivalent to the known pre-tokenizer regexes (SPEC §1.3). Each match_* tries the pattern's
// alternatives in order at one position, with the backtracking outcome of each worked out by hand (comments).
#include "rows/tokenizer/split_scanners.h"

#include <cstddef>

#include "core/utf8.h"
#include "rows/tokenizer/unicode_class.h"

namespace openrecipes::rows::tok {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

constexpr std::string_view kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kDeepseekDigits = R"(\p{N}{1,3})";
constexpr std::string_view kDeepseekCjk = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+";
constexpr std::string_view kDeepseekMain =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+|"
    " ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

struct Text {
  const char* s;
  std::size_t n;
  // Code point at i (i < n) and its length.
  char32_t at(std::size_t i, std::size_t& len) const { return decode_utf8(s + i, len); }
  std::uint8_t cls(std::size_t i) const {
    std::size_t len;
    return char_class(at(i, len));
  }
  // End of the run of characters whose class intersects `mask`, starting at i.
  std::size_t run(std::size_t i, std::uint8_t mask) const {
    while (i < n) {
      std::size_t len;
      char32_t c = at(i, len);
      if (!(char_class(c) & mask)) break;
      i += len;
    }
    return i;
  }
  // End of the run of characters with none of the classes in `mask`, starting at i.
  std::size_t run_not(std::size_t i, std::uint8_t mask) const {
    while (i < n) {
      std::size_t len;
      char32_t c = at(i, len);
      if (char_class(c) & mask) break;
      i += len;
    }
    return i;
  }
  std::size_t run_crlf(std::size_t i) const {
    while (i < n && (s[i] == '\r' || s[i] == '\n')) ++i;
    return i;
  }
};

// Case-insensitive contraction (?i:'s|'t|'re|'ve|'m|'ll|'d) at i (s[i] == '\''). Oniguruma folds U+017F (long
// s) to 's'; no other character folds to one of these letters.
std::size_t contraction_ci(const Text& t, std::size_t i) {
  auto fold = [&](std::size_t j, std::size_t& len) -> char32_t {
    if (j >= t.n) return 0;
    char32_t c = t.at(j, len);
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c == 0x17F) return 's';
    return c;
  };
  std::size_t l1, l2;
  char32_t a = fold(i + 1, l1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 1 + l1;
  if (a == 'r' || a == 'v') {
    if (fold(i + 1 + l1, l2) == 'e') return i + 1 + l1 + l2;
  } else if (a == 'l') {
    if (fold(i + 1 + l1, l2) == 'l') return i + 1 + l1 + l2;
  }
  return kNone;
}

// Case-sensitive 's|'t|'re|'ve|'m|'ll|'d at i (s[i] == '\'').
std::size_t contraction_cs(const Text& t, std::size_t i) {
  if (i + 1 >= t.n) return kNone;
  char a = t.s[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
  if (i + 2 < t.n) {
    char b = t.s[i + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
  }
  return kNone;
}

// The whitespace tail shared by all patterns, at i where s[i] is \s:
//   [\s*[\r\n]+]  (only when with_newline_alt)  |  \s+(?!\S)  |  \s+
// \s*[\r\n]+ : greedy \s* then backtracking leaves the match ending after the last \r or \n of the run.
// \s+(?!\S)  : the whole run if it reaches the end of the text, else the run minus its last character (when
//              that leaves at least one).  \s+ : the whole run.
std::size_t whitespace_tail(const Text& t, std::size_t i, bool with_newline_alt) {
  std::size_t j = i, last_start = i, after_newline = kNone;
  while (j < t.n) {
    std::size_t len;
    char32_t c = t.at(j, len);
    if (!(char_class(c) & kSpace)) break;
    if (c == '\r' || c == '\n') after_newline = j + len;
    last_start = j;
    j += len;
  }
  if (with_newline_alt && after_newline != kNone) return after_newline;
  if (j == t.n) return j;
  if (last_start > i) return last_start;
  return j;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,max_digits}| ?[^\s\p{L}\p{N}]+[\r\n]*|
// \s*[\r\n]+|\s+(?!\S)|\s+
std::size_t match_qwen_llama(const Text& t, std::size_t i, int max_digits) {
  std::size_t len;
  char32_t c = t.at(i, len);
  std::uint8_t cc = char_class(c);
  if (c == '\'') {
    std::size_t e = contraction_ci(t, i);
    if (e != kNone) return e;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (cc & kLetter) return t.run(i, kLetter);
  if (c != '\r' && c != '\n' && !(cc & kNumber) && i + len < t.n && (t.cls(i + len) & kLetter))
    return t.run(i + len, kLetter);
  // \p{N} or \p{N}{1,3}
  if (cc & kNumber) {
    std::size_t j = i + len;
    for (int k = 1; k < max_digits && j < t.n; ++k) {
      std::size_t l2;
      if (!(char_class(t.at(j, l2)) & kNumber)) break;
      j += l2;
    }
    return j;
  }
  //  ?[^\s\p{L}\p{N}]+[\r\n]*
  constexpr std::uint8_t kSLN = kSpace | kLetter | kNumber;
  if (c == ' ' && i + 1 < t.n && !(t.cls(i + 1) & kSLN)) return t.run_crlf(t.run_not(i + 1, kSLN));
  if (!(cc & kSLN)) return t.run_crlf(t.run_not(i, kSLN));
  // cc is \s here.
  return whitespace_tail(t, i, true);
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::size_t match_gpt2(const Text& t, std::size_t i) {
  std::size_t len;
  char32_t c = t.at(i, len);
  std::uint8_t cc = char_class(c);
  if (c == '\'') {
    std::size_t e = contraction_cs(t, i);
    if (e != kNone) return e;
  }
  constexpr std::uint8_t kSLN = kSpace | kLetter | kNumber;
  if (c == ' ' && i + 1 < t.n) {
    std::uint8_t nc = t.cls(i + 1);
    if (nc & kLetter) return t.run(i + 1, kLetter);
    if (nc & kNumber) return t.run(i + 1, kNumber);
    if (!(nc & kSLN)) return t.run_not(i + 1, kSLN);
  }
  if (cc & kLetter) return t.run(i, kLetter);
  if (cc & kNumber) return t.run(i, kNumber);
  if (!(cc & kSLN)) return t.run_not(i, kSLN);
  return whitespace_tail(t, i, false);
}

bool ascii_punct(char32_t c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}
bool ascii_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
//  ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
std::size_t match_deepseek_main(const Text& t, std::size_t i) {
  std::size_t len;
  char32_t c = t.at(i, len);
  std::uint8_t cc = char_class(c);
  if (ascii_punct(c) && i + 1 < t.n && ascii_alpha(t.s[i + 1])) {
    std::size_t j = i + 1;
    while (j < t.n && ascii_alpha(t.s[j])) ++j;
    return j;
  }
  constexpr std::uint8_t kLM = kLetter | kMark;
  constexpr std::uint8_t kPS = kPunct | kSymbol;
  // A Mark is not in [\r\n\p{L}\p{P}\p{S}], but either way the match is the whole [\p{L}\p{M}] run from i.
  if (cc & kLM) return t.run(i, kLM);
  if (c != '\r' && c != '\n' && !(cc & (kLetter | kPS)) && i + len < t.n && (t.cls(i + len) & kLM))
    return t.run(i + len, kLM);
  if (c == ' ' && i + 1 < t.n && (t.cls(i + 1) & kPS)) return t.run_crlf(t.run(i + 1, kPS));
  if (cc & kPS) return t.run_crlf(t.run(i, kPS));
  if (cc & kSpace) return whitespace_tail(t, i, true);
  return kNone;  // e.g. a digit or a control character: no alternative matches here
}

std::size_t match_deepseek_digits(const Text& t, std::size_t i) {
  std::size_t j = i;
  for (int k = 0; k < 3 && j < t.n; ++k) {
    std::size_t len;
    if (!(char_class(t.at(j, len)) & kNumber)) break;
    j += len;
  }
  return j == i ? kNone : j;
}

bool deepseek_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x3040 && c <= 0x309F) || (c >= 0x30A0 && c <= 0x30FF);
}

std::size_t match_deepseek_cjk(const Text& t, std::size_t i) {
  std::size_t j = i;
  while (j < t.n) {
    std::size_t len;
    if (!deepseek_cjk(t.at(j, len))) break;
    j += len;
  }
  return j == i ? kNone : j;
}

}  // namespace

Scanner recognize_scanner(std::string_view p) {
  if (p == kQwen2) return Scanner::qwen2;
  if (p == kLlama3) return Scanner::llama3;
  if (p == kGpt2Pattern) return Scanner::gpt2;
  if (p == kDeepseekDigits) return Scanner::deepseek_digits;
  if (p == kDeepseekCjk) return Scanner::deepseek_cjk;
  if (p == kDeepseekMain) return Scanner::deepseek_main;
  return Scanner::none;
}

void scan_matches(Scanner k, std::string_view text, std::vector<Span>& out) {
  Text t{text.data(), text.size()};
  std::size_t i = 0;
  while (i < t.n) {
    std::size_t e = kNone;
    switch (k) {
      case Scanner::qwen2:
        e = match_qwen_llama(t, i, 1);
        break;
      case Scanner::llama3:
        e = match_qwen_llama(t, i, 3);
        break;
      case Scanner::gpt2:
        e = match_gpt2(t, i);
        break;
      case Scanner::deepseek_digits:
        e = match_deepseek_digits(t, i);
        break;
      case Scanner::deepseek_cjk:
        e = match_deepseek_cjk(t, i);
        break;
      case Scanner::deepseek_main:
        e = match_deepseek_main(t, i);
        break;
      case Scanner::none:
        return;
    }
    if (e != kNone) {
      out.emplace_back(i, e);
      i = e;
    } else {
      i += utf8_len(static_cast<unsigned char>(t.s[i]));
    }
  }
}

}  // namespace openrecipes::rows::tok
