// Hugging Face tokenizer.json encoder, ids identical to tokenizers 0.23.2 with add_special_tokens=false
// (SPEC §1.3). Pipeline per text, as upstream: lossy UTF-8 -> split on normalized=false added tokens ->
// normalizer on each remaining piece -> split on normalized=true added tokens -> pre-tokenizer -> BPE.
// docs/tokenizer.md lists what is supported and what is rejected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::rows {

/// The largest tokenizer.json read: 256 MiB (released ones are at most ~35 MB); a larger file is an InputError naming
/// it and the limit.
inline constexpr std::uint64_t kMaxTokenizerJsonBytes = 256ull << 20;

namespace tok {
struct Pipeline;
}

class Tokenizer {
 public:
  /// Loads tokenizer.json (at most 256 MiB). Supported: model BPE (merges as "a b" strings or [a, b] pairs,
  /// ignore_merges, byte_fallback, unk_token/fuse_unk, continuing_subword_prefix, end_of_word_suffix, dropout
  /// null or 0); normalizers NFC, NFD, NFKC, NFKD, Lowercase, Replace, Prepend, Strip, Sequence; pre-tokenizers
  /// Split, ByteLevel, Digits, Sequence; added tokens with all their flags. post_processor and decoder are not
  /// read: with add_special_tokens=false no post-processor changes ids. Throws InputError naming the file, the
  /// JSON path and the fix for anything malformed or unsupported (unsupported types are named), for truncation
  /// or padding set in the file (they would change ids), and for absurd sizes.
  static Tokenizer load(const std::filesystem::path& tokenizer_json);
  /// How tokenizer.json is parsed: simdjson, falling back to nlohmann for anything it does not expect (the
  /// default), or nlohmann alone (the reference the fast path is tested against). The tokenizer, and every error,
  /// is the same either way.
  enum class JsonParser { fast, reference };
  /// The same from the file's bytes, read by the caller (who may hash them); `tokenizer_json` names the file in
  /// messages. Bytes with kParsePadding spare capacity are parsed in place, others are copied once.
  static Tokenizer load(const std::filesystem::path& tokenizer_json, std::string bytes,
                        JsonParser parser = JsonParser::fast);
  /// Spare capacity that lets load parse bytes in place (simdjson's padding).
  static const std::size_t kParsePadding;

  /// Appends the ids of `text` (UTF-8 bytes; invalid sequences are first decoded lossily, one U+FFFD per maximal
  /// invalid subpart, as Node's Buffer.toString / Rust's from_utf8_lossy do) with add_special_tokens=false.
  /// Thread-safe: any number of threads may encode concurrently on one Tokenizer. Throws InputError only for a
  /// tokenizer that needs its missing unk_token, on a regex engine failure, or for a pre-tokenized word over
  /// tok::kMaxWordBytes (1 MiB).
  void encode(std::string_view text, std::vector<std::int32_t>& out) const;
  std::vector<std::int32_t> encode(std::string_view text) const;

  /// Id of an exact token string (added token first, then model vocabulary), as upstream token_to_id.
  std::optional<std::int32_t> token_to_id(std::string_view token) const;
  /// Distinct token strings of the model vocabulary and the added tokens (upstream get_vocab_size(true)).
  std::size_t vocab_size() const;
  /// E.g. "BPE(byte-level, ignore_merges, 128000 tokens, 280147 merges) + 256 added; normalizer: none;
  /// pre-tokenizer: Sequence[Split(llama3 regex, scanner), ByteLevel]".
  std::string describe() const;

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

 private:
  explicit Tokenizer(std::unique_ptr<tok::Pipeline> p);
  std::unique_ptr<tok::Pipeline> p_;
};

}  // namespace openrecipes::rows
