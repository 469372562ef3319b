// Oniguruma regular expressions for tokenizer patterns that have no hand-written scanner (SPEC §1.3):
// Split pre-tokenizers and Replace normalizers, compiled and iterated as tokenizers 0.23.2 does through the
// onig crate (Ruby syntax, UTF-8, no options; find_iter semantics of onig 6.5).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openrecipes::rows::tok {

using Span = std::pair<std::size_t, std::size_t>;  ///< [begin, end) byte offsets

class OnigRegex {
 public:
  /// Compiles `pattern`; returns nullptr and sets `error` (Oniguruma's message) when it does not compile.
  static std::unique_ptr<OnigRegex> compile(std::string_view pattern, std::string& error);
  ~OnigRegex();
  OnigRegex(const OnigRegex&) = delete;
  OnigRegex& operator=(const OnigRegex&) = delete;

  /// Appends every match in `text` (valid UTF-8), as the onig crate's find_iter yields them: searches resume at
  /// the previous match's end; an empty match right at the previous match's end is skipped by one character.
  /// Thread-safe. Throws std::runtime_error if Oniguruma reports a search error.
  void find_all(std::string_view text, std::vector<Span>& out) const;

 private:
  explicit OnigRegex(void* reg) : reg_(reg) {}
  void* reg_;  // OnigRegex (regex_t*)
};

}  // namespace openrecipes::rows::tok
