// The normalizer chain of a tokenizer.json (SPEC §1.3; upstream tokenizers 0.23.2 normalizers): NFC, NFD,
// NFKC, NFKD, Lowercase, Replace, Prepend, Strip and Sequence, applied in order to each piece of text between
// added tokens. Other normalizer types are rejected when the tokenizer is loaded.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rows/tokenizer/onig_regex.h"
#include "rows/tokenizer/unicode_norm.h"

namespace openrecipes::rows::tok {

/// The longest text the normalizer chain may make of one piece of text (a Replace whose content is longer than what
/// it matches grows the text, and steps chain): 256 MiB, four times the longest message. Over it, encoding throws
/// InputError naming the limit.
inline constexpr std::size_t kMaxNormalizedBytes = std::size_t{256} << 20;

/// One normalizer step (a Sequence is flattened into its steps).
struct NormalizerStep {
  enum class Kind { unicode, lowercase, replace, prepend, strip } kind = Kind::unicode;
  NormForm form = NormForm::NFC;                 ///< unicode
  std::string literal;                           ///< replace with a String pattern (non-empty), matched literally
  std::shared_ptr<OnigRegex> regex;              ///< replace with a Regex pattern (or an empty String pattern)
  std::string content;                           ///< replace: replacement; prepend: the prefix
  bool strip_left = false, strip_right = false;  ///< strip
};

class NormalizerChain {
 public:
  NormalizerChain() = default;
  explicit NormalizerChain(std::vector<NormalizerStep> steps) : steps_(std::move(steps)) {}
  bool empty() const { return steps_.empty(); }
  /// Normalizes valid UTF-8 `in`. Returns a view of the result: `in` itself when nothing changed, else a view
  /// into `buffer`. Thread-safe.
  std::string_view apply(std::string_view in, std::string& buffer) const;
  /// Short description, e.g. "NFC" or "Sequence[Lowercase, Strip]".
  std::string describe() const;

 private:
  std::vector<NormalizerStep> steps_;
};

}  // namespace openrecipes::rows::tok
