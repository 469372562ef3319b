// The pre-tokenizer of a tokenizer.json (SPEC §1.3; upstream tokenizers 0.23.2 pre_tokenizers): Split
// (regex or literal; Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous; invert), ByteLevel
// (add_prefix_space, use_regex with GPT-2's regex), Digits (individual_digits) and Sequence. Splits with a known
// regex run a hand-written scanner (split_scanners.h); others run Oniguruma.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rows/tokenizer/onig_regex.h"
#include "rows/tokenizer/split_scanners.h"

namespace openrecipes::rows::tok {

enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

/// One pre-tokenizer step (a Sequence is flattened into its steps).
struct PreTokenizerStep {
  enum class Kind { split, byte_level, digits } kind = Kind::split;
  // split
  Scanner scanner = Scanner::none;   ///< known regex, or none
  std::shared_ptr<OnigRegex> regex;  ///< otherwise: Oniguruma (a Regex pattern, or an empty String pattern)
  std::string literal;               ///< a non-empty String pattern, matched literally
  bool is_literal = false;
  SplitBehavior behavior = SplitBehavior::isolated;
  bool invert = false;
  // byte_level
  bool add_prefix_space = false;
  bool use_regex = true;
  // digits
  bool individual_digits = false;
};

/// Scratch space for one pre-tokenization call (reused by the caller across calls on one thread).
struct PreTokenizeScratch {
  std::vector<std::string_view> a, b;
  std::vector<Span> matches;
  std::deque<std::string> arena;  // strings created by ByteLevel (prefix space, byte-level mapping)
};

class PreTokenizer {
 public:
  PreTokenizer() = default;
  /// `virtual_byte_level`: when the last step is the only ByteLevel, skip its character mapping (the model then
  /// reads raw bytes); pieces are then raw UTF-8 instead of byte-level characters.
  PreTokenizer(std::vector<PreTokenizerStep> steps, bool virtual_byte_level);
  /// True when the last step is the only ByteLevel step (so the mapping may be left to the model).
  static bool can_virtualize(const std::vector<PreTokenizerStep>& steps);
  bool virtual_byte_level() const { return virtual_; }

  /// Splits non-empty `text` into pieces (non-empty), in order, as upstream pre_tokenize then drops empty
  /// splits. Pieces view `text` or strings in scratch.arena. Thread-safe (scratch is per call).
  /// Throws std::runtime_error on an Oniguruma search error.
  void run(std::string_view text, PreTokenizeScratch& scratch, std::vector<std::string_view>& out) const;

  std::string describe() const;
  bool empty() const { return steps_.empty(); }

 private:
  void apply_split(const PreTokenizerStep& st, std::string_view piece, PreTokenizeScratch& scratch,
                   std::vector<std::string_view>& out) const;
  std::vector<PreTokenizerStep> steps_;
  bool virtual_ = false;
};

}  // namespace openrecipes::rows::tok
