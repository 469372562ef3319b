// Hand-written scanners for the pre-tokenizer regexes of real LLM tokenizers (SPEC §1.3; DESIGN.md:
// "known pre-tokenizer patterns may compile to hand-written scanners"). Each yields exactly the matches
// Oniguruma's leftmost-first backtracking search yields for its pattern; the differential tests against
// tokenizers 0.23.2 prove it. Any other pattern goes to OnigRegex.
#pragma once

#include <string_view>
#include <vector>

#include "rows/tokenizer/onig_regex.h"

namespace openrecipes::rows::tok {

enum class Scanner {
  none,             ///< not a known pattern: use Oniguruma
  qwen2,            ///< Qwen2/Qwen3 Split regex (\p{N} one digit at a time)
  llama3,           ///< Llama 3 Split regex (\p{N}{1,3})
  gpt2,             ///< GPT-2's ByteLevel regex (use_regex: true)
  deepseek_digits,  ///< DeepSeek-V3 Split 1: \p{N}{1,3}
  deepseek_cjk,     ///< DeepSeek-V3 Split 2: [一-龥぀-ゟ゠-ヿ]+
  deepseek_main,    ///< DeepSeek-V3 Split 3
};

/// The scanner for `pattern` (exact text of a Split "Regex"), or Scanner::none.
Scanner recognize_scanner(std::string_view pattern);

/// The GPT-2 regex ByteLevel applies when use_regex is true.
inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/// Appends the matches of scanner `k` (not none) in `text` (valid UTF-8), in order, like OnigRegex::find_all.
void scan_matches(Scanner k, std::string_view text, std::vector<Span>& out);

}  // namespace openrecipes::rows::tok
