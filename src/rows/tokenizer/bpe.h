// The BPE model of tokenizers 0.23.2 (SPEC §1.3; upstream models/bpe: merge_word, Word::merge_all,
// tokenize_with_cache): initial symbols per character (continuing_subword_prefix / end_of_word_suffix,
// byte_fallback, unk_token with fuse_unk), merges applied lowest rank first (leftmost among equal ranks, stale
// queue entries skipped exactly as upstream), ignore_merges, and a per-thread word cache.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rows/tokenizer/hash_maps.h"

namespace openrecipes::rows::tok {

/// Settings of a BPE model as tokenizer.json's "model" gives them (dropout must be null or 0).
struct BpeSettings {
  std::optional<std::string> unk_token;
  std::optional<std::string> continuing_subword_prefix;
  std::optional<std::string> end_of_word_suffix;
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
};

/// Longest pre-tokenized word (a run the pre-tokenizer does not split) the model encodes: 1 MiB. BPE over a word of
/// n bytes costs O(n log n) time and ~40 bytes of memory per byte (a 50 MB word took ~50 s and 1.7 GB), and no real
/// conversation holds such a word; a longer one is an InputError rather than minutes of work.
inline constexpr std::size_t kMaxWordBytes = std::size_t{1} << 20;

class BpeModel {
 public:
  /// Builds the model. `vocab`: token -> id pairs (a token given twice keeps its last id, as upstream's serde map
  /// does); `merges`: (left, right) in rank order. The views need only live during the call (the model copies the
  /// bytes into its own arenas, with no allocation per entry).
  /// Throws std::invalid_argument naming the merge index (as "merges[i]: ...") when a merge names a token that is
  /// not in the vocabulary or when its result is not in the vocabulary (upstream MergeTokenOutOfVocabulary).
  BpeModel(std::span<const std::pair<std::string_view, std::int32_t>> vocab,
           std::span<const std::pair<std::string_view, std::string_view>> merges, BpeSettings settings);
  BpeModel(const BpeModel&) = delete;
  BpeModel& operator=(const BpeModel&) = delete;

  /// Appends the ids of one pre-tokenized word (non-empty UTF-8). Thread-safe.
  /// Throws std::runtime_error when the word needs unk_token and unk_token is not in the vocabulary, and InputError
  /// for a word over kMaxWordBytes.
  void encode_word(std::string_view word, std::vector<std::int32_t>& out) const;

  /// Same for a word given as raw bytes whose byte-level characters (GPT-2 byte-to-unicode map) form the real
  /// word; valid only when raw_bytes_supported().
  void encode_raw_bytes(std::string_view bytes, std::vector<std::int32_t>& out) const;

  /// True when every byte-level character is a vocabulary token and no prefix/suffix is set, so the byte-level
  /// mapping can be folded into the model (encode_raw_bytes).
  bool raw_bytes_supported() const { return raw_ok_; }

  /// Id of a vocabulary token, or -1.
  std::int32_t token_to_id(std::string_view token) const { return vocab_.find(token); }
  /// Number of vocabulary entries (upstream get_vocab_size: distinct token strings).
  std::size_t vocab_size() const { return vocab_.size(); }
  std::size_t merges_size() const { return merges_.size(); }
  const BpeSettings& settings() const { return settings_; }

 private:
  struct Symbol {
    std::int32_t id;
    std::int32_t prev, next;
    std::uint32_t len;  // 0 marks a symbol merged into its left neighbour
  };
  void initial_symbols(std::string_view word, std::vector<Symbol>& symbols) const;
  void merge_all(std::vector<Symbol>& symbols) const;
  void encode_cached(std::string_view key, bool raw, std::vector<std::int32_t>& out) const;
  WordCache& thread_cache() const;

  StringIdMap vocab_;
  StringIdMap raw_vocab_;  // raw bytes -> id, for ignore_merges in raw mode
  PairMap merges_;
  BpeSettings settings_;
  std::int32_t unk_id_ = -1;
  bool raw_ok_ = false;
  std::array<std::int32_t, 256> byte_ids_{};      // id of the byte-level character of each byte
  std::array<std::int32_t, 256> fallback_ids_{};  // id of "<0xXX>" or -1
  std::uint64_t serial_;
};

/// The GPT-2 byte-to-unicode map (upstream pre_tokenizers/byte_level.rs bytes_char): code point for each byte.
const std::array<char32_t, 256>& byte_level_chars();

}  // namespace openrecipes::rows::tok
