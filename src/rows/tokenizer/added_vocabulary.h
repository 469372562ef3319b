// Added tokens of a tokenizer.json (SPEC §1.3; upstream tokenizers 0.23.2 tokenizer/added_vocabulary.rs):
// id assignment as upstream's add_tokens does it, and the leftmost-longest scan with the single_word, lstrip and
// rstrip rules, once over the raw text for normalized=false tokens and once over each normalized piece for
// normalized=true tokens.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rows/tokenizer/hash_maps.h"

namespace openrecipes::rows::tok {

/// One entry of tokenizer.json's "added_tokens" (its "id" is informational upstream; see AddedVocabulary).
struct AddedToken {
  std::string content;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
  bool operator==(const AddedToken&) const = default;
};

/// A part of a sentence: an added token (id >= 0) or text to process further (id < 0). Parts cover the
/// sentence in order (upstream may produce overlapping parts with rstrip; they are kept as upstream keeps them).
struct Segment {
  std::size_t begin, end;
  std::int32_t id;
};

class AddedVocabulary {
 public:
  AddedVocabulary() = default;
  /// Registers `tokens` in file order as upstream add_tokens does: an empty content is ignored; an exact repeat
  /// is ignored; the id is the one already given to that content, else the model's id for it, else the next
  /// free id starting at the model's vocabulary size. `model_id` looks a token up in the model (-1 if absent);
  /// `normalize` gives a normalized=true token's matching text. Throws std::invalid_argument when two tokens
  /// would match the same text, or a normalized token normalizes to nothing.
  void build(const std::vector<AddedToken>& tokens, std::size_t model_vocab_size,
             const std::function<std::int32_t(std::string_view)>& model_id,
             const std::function<std::string(std::string_view)>& normalize);

  /// Upstream find_matches over `sentence` with the normalized=false set (`normalized_set` false) or the
  /// normalized=true set. Appends segments covering the sentence; an empty sentence gives nothing.
  void split(std::string_view sentence, bool normalized_set, std::vector<Segment>& out) const;
  bool has(bool normalized_set) const { return normalized_set ? !norm_.patterns.empty() : !raw_.patterns.empty(); }

  /// Id of an added token by its content, or -1.
  std::int32_t token_to_id(std::string_view content) const { return by_content_.find(content); }
  /// Number of distinct contents registered.
  std::size_t size() const { return by_content_.size(); }
  /// Calls f(content, id) for every registered content.
  template <class F>
  void for_each(F&& f) const {
    by_content_.for_each(f);
  }

 private:
  struct Pattern {
    std::string text;
    std::int32_t id;
    AddedToken token;
  };
  struct Trie {
    struct Node {
      std::vector<std::pair<unsigned char, std::int32_t>> children;  // sorted by byte
      std::int32_t pattern = -1;
    };
    std::vector<Node> nodes;       // node 0 is the root
    std::int32_t root_child[256];  // children of the root, -1 if none
    std::vector<Pattern> patterns;
    void add(const Pattern& p);
    std::int32_t child(std::int32_t node, unsigned char b) const;
  };
  static void build_trie(Trie& trie, std::vector<Pattern> patterns);
  void find_matches(std::string_view sentence, const Trie& trie, std::vector<Segment>& out) const;

  StringIdMap by_content_;
  Trie raw_, norm_;
};

}  // namespace openrecipes::rows::tok
