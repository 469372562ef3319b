// Added-token registration and matching (SPEC §1.3; upstream added_vocabulary.rs add_tokens,
// refresh_added_tokens, find_matches; daachorse leftmost-longest matching).
#include "rows/tokenizer/added_vocabulary.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/utf8.h"
#include "rows/tokenizer/unicode_class.h"

namespace openrecipes::rows::tok {
namespace {

// The character before byte offset `end` (end > 0, at a character boundary).
char32_t char_before(std::string_view s, std::size_t end) {
  std::size_t k = end - 1;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
  std::size_t len;
  return decode_utf8(s.data() + k, len);
}

// Rust regex \w$ on s[..end] / ^\w on s[begin..].
bool ends_with_word(std::string_view s, std::size_t end) {
  return end > 0 && (char_class(char_before(s, end)) & kWord);
}
bool starts_with_word(std::string_view s, std::size_t begin) {
  if (begin >= s.size()) return false;
  std::size_t len;
  return char_class(decode_utf8(s.data() + begin, len)) & kWord;
}
// Start of the trailing \s* run of s[..end].
std::size_t space_leftmost_at_end(std::string_view s, std::size_t end) {
  while (end > 0) {
    std::size_t k = end - 1;
    while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    std::size_t len;
    if (!(char_class(decode_utf8(s.data() + k, len)) & kSpace)) break;
    end = k;
  }
  return end;
}
// Length of the leading \s* run of s[begin..].
std::size_t space_rightmost_at_start(std::string_view s, std::size_t begin) {
  std::size_t i = begin;
  while (i < s.size()) {
    std::size_t len;
    if (!(char_class(decode_utf8(s.data() + i, len)) & kSpace)) break;
    i += len;
  }
  return i - begin;
}

}  // namespace

void AddedVocabulary::Trie::add(const Pattern& p) {
  std::int32_t node = 0;
  for (unsigned char b : p.text) {
    std::int32_t c = child(node, b);
    if (c < 0) {
      c = static_cast<std::int32_t>(nodes.size());
      nodes.emplace_back();
      if (node == 0) {
        root_child[b] = c;
      } else {
        auto& ch = nodes[node].children;
        auto it = std::lower_bound(ch.begin(), ch.end(), std::make_pair(b, std::int32_t(-1)));
        ch.insert(it, {b, c});
      }
    }
    node = c;
  }
  nodes[node].pattern = static_cast<std::int32_t>(patterns.size());
  patterns.push_back(p);
}

std::int32_t AddedVocabulary::Trie::child(std::int32_t node, unsigned char b) const {
  if (node == 0) return root_child[b];
  for (const auto& [k, c] : nodes[node].children) {
    if (k == b) return c;
    if (k > b) break;
  }
  return -1;
}

void AddedVocabulary::build_trie(Trie& trie, std::vector<Pattern> patterns) {
  trie.nodes.assign(1, Trie::Node{});
  std::fill(std::begin(trie.root_child), std::end(trie.root_child), -1);
  trie.patterns.clear();
  for (const Pattern& p : patterns) {
    std::int32_t node = 0;
    for (unsigned char b : p.text) {
      node = trie.child(node, b);
      if (node < 0) break;
    }
    if (node > 0 && trie.nodes[node].pattern >= 0)
      throw std::invalid_argument("added tokens \"" + trie.patterns[trie.nodes[node].pattern].token.content +
                                  "\" and \"" + p.token.content + "\" match the same text");
    trie.add(p);
  }
}

void AddedVocabulary::build(const std::vector<AddedToken>& tokens, std::size_t model_vocab_size,
                            const std::function<std::int32_t(std::string_view)>& model_id,
                            const std::function<std::string(std::string_view)>& normalize) {
  std::map<std::int32_t, AddedToken> by_id;  // upstream added_tokens_map_r
  std::int64_t next_id = static_cast<std::int64_t>(model_vocab_size);
  for (const AddedToken& t : tokens) {
    if (t.content.empty()) continue;
    std::int32_t existing = by_content_.find(t.content);
    if (existing >= 0) {
      auto it = by_id.find(existing);
      if (it != by_id.end() && it->second == t) continue;
    }
    std::int32_t id = existing >= 0 ? existing : model_id(t.content);
    if (id < 0) {
      if (next_id > INT32_MAX) throw std::invalid_argument("too many added tokens: ids would pass 2^31-1");
      id = static_cast<std::int32_t>(next_id++);
    }
    by_content_.insert(t.content, id);
    by_id[id] = t;
  }
  std::vector<Pattern> raw, norm;
  for (const auto& [id, t] : by_id) {
    if (t.normalized) {
      std::string text = normalize(t.content);
      if (text.empty()) throw std::invalid_argument("added token \"" + t.content + "\" normalizes to an empty string");
      norm.push_back(Pattern{std::move(text), id, t});
    } else {
      raw.push_back(Pattern{t.content, id, t});
    }
  }
  build_trie(raw_, std::move(raw));
  build_trie(norm_, std::move(norm));
}

void AddedVocabulary::find_matches(std::string_view s, const Trie& trie, std::vector<Segment>& out) const {
  const std::size_t n = s.size();
  std::size_t start_offset = 0;
  const auto* u = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0;
  while (i < n) {
    std::int32_t node = trie.root_child[u[i]];
    if (node < 0) {
      ++i;
      continue;
    }
    // Longest pattern starting at i (leftmost-longest: the first start with any match wins).
    std::int32_t best = -1;
    std::size_t best_end = 0, j = i + 1;
    for (;;) {
      if (trie.nodes[node].pattern >= 0) {
        best = trie.nodes[node].pattern;
        best_end = j;
      }
      if (j >= n) break;
      node = trie.child(node, u[j]);
      if (node < 0) break;
      ++j;
    }
    if (best < 0) {
      ++i;
      continue;
    }
    const Pattern& p = trie.patterns[best];
    std::size_t start = i, stop = best_end;
    i = best_end;  // the scan resumes after the match, whether or not the match is kept
    if (p.token.single_word) {
      bool start_space = start == 0 || !ends_with_word(s, start);
      bool stop_space = stop == n || !starts_with_word(s, stop);
      if (!start_space || !stop_space) continue;
    }
    if (p.token.lstrip) start = std::max(space_leftmost_at_end(s, start), start_offset);
    if (p.token.rstrip) stop += space_rightmost_at_start(s, stop);
    if (start_offset < start) out.push_back({start_offset, start, -1});
    out.push_back({start, stop, p.id});
    start_offset = stop;
  }
  if (start_offset != n) out.push_back({start_offset, n, -1});
}

void AddedVocabulary::split(std::string_view sentence, bool normalized_set, std::vector<Segment>& out) const {
  if (sentence.empty()) return;
  const Trie& trie = normalized_set ? norm_ : raw_;
  if (trie.patterns.empty()) {
    out.push_back({0, sentence.size(), -1});
    return;
  }
  find_matches(sentence, trie, out);
}

}  // namespace openrecipes::rows::tok
