// BPE model (SPEC §1.3; upstream tokenizers 0.23.2 models/bpe/model.rs and word.rs).
#include "rows/tokenizer/bpe.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "core/utf8.h"

namespace openrecipes::rows::tok {

const std::array<char32_t, 256>& byte_level_chars() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    std::array<bool, 256> direct{};
    for (int b = '!'; b <= '~'; ++b) direct[b] = true;
    for (int b = 0xA1; b <= 0xAC; ++b) direct[b] = true;
    for (int b = 0xAE; b <= 0xFF; ++b) direct[b] = true;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) t[b] = direct[b] ? char32_t(b) : next++;
    return t;
  }();
  return table;
}

namespace {
std::atomic<std::uint64_t> g_serial{1};

// Inverse of byte_level_string; false when `s` has a character outside the byte-level alphabet.
bool byte_level_decode(std::string_view s, std::string& raw) {
  static const std::vector<int> inverse = [] {
    std::vector<int> inv(512, -1);
    for (int b = 0; b < 256; ++b) inv[byte_level_chars()[b]] = b;
    return inv;
  }();
  raw.clear();
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len;
    char32_t c = decode_utf8(s.data() + i, len);
    if (c >= 512 || inverse[c] < 0) return false;
    raw.push_back(static_cast<char>(inverse[c]));
    i += len;
  }
  return true;
}
}  // namespace

BpeModel::BpeModel(std::span<const std::pair<std::string_view, std::int32_t>> vocab,
                   std::span<const std::pair<std::string_view, std::string_view>> merges, BpeSettings settings)
    : settings_(std::move(settings)), serial_(g_serial.fetch_add(1)) {
  vocab_.reserve(vocab.size());
  for (const auto& [token, id] : vocab) vocab_.insert(token, id);
  const std::size_t prefix_len = settings_.continuing_subword_prefix ? settings_.continuing_subword_prefix->size() : 0;
  merges_.reserve(merges.size());
  std::string joined;
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const auto& [a, b] = merges[i];
    std::int32_t ia = vocab_.find(a), ib = vocab_.find(b);
    if (ia < 0)
      throw std::invalid_argument("merges[" + std::to_string(i) + "]: token \"" + std::string(a) +
                                  "\" is not in model.vocab");
    if (ib < 0)
      throw std::invalid_argument("merges[" + std::to_string(i) + "]: token \"" + std::string(b) +
                                  "\" is not in model.vocab");
    if (b.size() < prefix_len)
      throw std::invalid_argument("merges[" + std::to_string(i) + "]: token \"" + std::string(b) +
                                  "\" is shorter than continuing_subword_prefix");
    joined.assign(a);
    joined.append(b.substr(prefix_len));
    std::int32_t inew = vocab_.find(joined);
    if (inew < 0)
      throw std::invalid_argument("merges[" + std::to_string(i) + "]: merged token \"" + joined +
                                  "\" is not in model.vocab");
    merges_.insert(ia, ib, PairMap::Merge{static_cast<std::uint32_t>(i), inew});
  }
  if (settings_.unk_token) unk_id_ = vocab_.find(*settings_.unk_token);
  // Raw-byte mode: every byte-level character must be a token, and no prefix/suffix may alter lookups.
  raw_ok_ =
      !settings_.continuing_subword_prefix.value_or("").size() && !settings_.end_of_word_suffix.value_or("").size();
  for (int b = 0; b < 256; ++b) {
    std::string ch;
    append_utf8(ch, byte_level_chars()[b]);
    byte_ids_[b] = vocab_.find(ch);
    if (byte_ids_[b] < 0) raw_ok_ = false;
    char code[8];
    static const char* hex = "0123456789ABCDEF";
    code[0] = '<';
    code[1] = '0';
    code[2] = 'x';
    code[3] = hex[b >> 4];
    code[4] = hex[b & 15];
    code[5] = '>';
    fallback_ids_[b] = vocab_.find(std::string_view(code, 6));
  }
  if (raw_ok_ && settings_.ignore_merges) {
    raw_vocab_.reserve(vocab_.size());
    std::string raw;
    vocab_.for_each([&](std::string_view token, std::int32_t id) {
      if (byte_level_decode(token, raw)) raw_vocab_.insert(raw, id);
    });
  }
}

// Upstream merge_word: one symbol per character (prefix on all but the first, suffix on the last), byte_fallback
// to <0xXX> tokens when every byte has one, else unk_token (fused when fuse_unk), else the character is dropped.
void BpeModel::initial_symbols(std::string_view w, std::vector<Symbol>& symbols) const {
  symbols.clear();
  const std::string& prefix =
      settings_.continuing_subword_prefix ? *settings_.continuing_subword_prefix : std::string();
  const std::string& suffix = settings_.end_of_word_suffix ? *settings_.end_of_word_suffix : std::string();
  const bool has_prefix = settings_.continuing_subword_prefix.has_value();
  const bool has_suffix = settings_.end_of_word_suffix.has_value();
  auto add = [&](std::int32_t id, std::uint32_t len) {
    const auto n = static_cast<std::int32_t>(symbols.size());
    symbols.push_back(Symbol{id, n - 1, n + 1, len});
  };
  bool have_unk = false;
  std::int32_t unk_id = -1;
  std::uint32_t unk_len = 0;
  std::string s;
  for (std::size_t i = 0; i < w.size();) {
    const std::size_t len = utf8_len(static_cast<unsigned char>(w[i]));
    const bool is_first = i == 0, is_last = i + len >= w.size();
    std::string_view ch = w.substr(i, len);
    std::string_view key = ch;
    if ((!is_first && has_prefix) || (is_last && has_suffix)) {
      s.clear();
      if (!is_first && has_prefix) s += prefix;
      s.append(ch);
      if (is_last && has_suffix) s += suffix;
      key = s;
    }
    i += len;
    std::int32_t id = vocab_.find(key);
    if (id >= 0) {
      if (have_unk) {
        add(unk_id, unk_len);
        have_unk = false;
      }
      add(id, static_cast<std::uint32_t>(len));
      continue;
    }
    if (settings_.byte_fallback) {
      bool all = true;
      for (unsigned char b : key) all = all && fallback_ids_[b] >= 0;
      if (all) {
        for (unsigned char b : key) add(fallback_ids_[b], 1);
        continue;
      }
    }
    if (settings_.unk_token) {
      if (unk_id_ < 0) throw std::runtime_error("unk_token \"" + *settings_.unk_token + "\" is not in model.vocab");
      if (have_unk && settings_.fuse_unk) {
        unk_len += static_cast<std::uint32_t>(len);
      } else {
        if (have_unk) add(unk_id, unk_len);
        have_unk = true;
        unk_id = unk_id_;
        unk_len = static_cast<std::uint32_t>(len);
      }
    }
  }
  if (have_unk) add(unk_id, unk_len);
  if (!symbols.empty()) symbols.back().next = -1;
}

// Upstream Word::merge_all without dropout: a min-queue on (rank, position); an entry is stale when its symbol
// was merged away, is now last, or the pair at its position no longer merges into the same id.
void BpeModel::merge_all(std::vector<Symbol>& sym) const {
  struct Entry {
    std::uint32_t rank;
    std::uint32_t pos;
    std::int32_t new_id;
  };
  auto worse = [](const Entry& a, const Entry& b) { return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos; };
  thread_local std::vector<Entry> heap;
  heap.clear();
  for (std::size_t i = 0; i + 1 < sym.size(); ++i) {
    if (const PairMap::Merge* m = merges_.find(sym[i].id, sym[i + 1].id))
      heap.push_back(Entry{m->rank, static_cast<std::uint32_t>(i), m->new_id});
  }
  std::make_heap(heap.begin(), heap.end(), worse);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), worse);
    const Entry top = heap.back();
    heap.pop_back();
    Symbol& cur = sym[top.pos];
    if (cur.len == 0 || cur.next == -1) continue;
    const auto next_pos = static_cast<std::size_t>(cur.next);
    const Symbol right = sym[next_pos];
    const PairMap::Merge* m = merges_.find(cur.id, right.id);
    if (!m || m->new_id != top.new_id) continue;
    cur.id = top.new_id;
    cur.len += right.len;
    cur.next = right.next;
    sym[next_pos].len = 0;
    if (right.next > -1 && static_cast<std::size_t>(right.next) < sym.size())
      sym[right.next].prev = static_cast<std::int32_t>(top.pos);
    if (cur.prev >= 0) {
      const Symbol& prev = sym[cur.prev];
      if (const PairMap::Merge* pm = merges_.find(prev.id, cur.id)) {
        heap.push_back(Entry{pm->rank, static_cast<std::uint32_t>(cur.prev), pm->new_id});
        std::push_heap(heap.begin(), heap.end(), worse);
      }
    }
    if (cur.next >= 0 && static_cast<std::size_t>(cur.next) < sym.size()) {
      const Symbol& nxt = sym[cur.next];
      if (const PairMap::Merge* nm = merges_.find(cur.id, nxt.id)) {
        heap.push_back(Entry{nm->rank, top.pos, nm->new_id});
        std::push_heap(heap.begin(), heap.end(), worse);
      }
    }
  }
}

WordCache& BpeModel::thread_cache() const {
  struct Slot {
    std::uint64_t owner = 0;
    std::unique_ptr<WordCache> cache;
  };
  thread_local std::array<Slot, 4> slots;
  thread_local std::size_t victim = 0;
  for (Slot& s : slots)
    if (s.owner == serial_) return *s.cache;
  Slot& s = slots[victim];
  victim = (victim + 1) % slots.size();
  s.owner = serial_;
  s.cache = std::make_unique<WordCache>();
  return *s.cache;
}

void BpeModel::encode_cached(std::string_view key, bool raw, std::vector<std::int32_t>& out) const {
  if (key.size() > kMaxWordBytes) [[unlikely]]
    throw InputError("the text to encode",
                     fmt::format("a word of {} bytes (a run the pre-tokenizer does not split) is over the limit of {} "
                                 "bytes",
                                 key.size(), kMaxWordBytes),
                     "split that text: no real conversation holds such a word, and BPE over it costs minutes");
  WordCache& cache = thread_cache();
  const std::uint64_t h = hash_bytes(key);
  std::size_t count = 0;
  if (const std::int32_t* ids = cache.find(key, h, count)) {
    out.insert(out.end(), ids, ids + count);
    return;
  }
  thread_local std::vector<Symbol> symbols;
  if (raw) {
    symbols.clear();
    for (std::size_t i = 0; i < key.size(); ++i) {
      const auto n = static_cast<std::int32_t>(i);
      symbols.push_back(Symbol{byte_ids_[static_cast<unsigned char>(key[i])], n - 1, n + 1, 1});
    }
    if (!symbols.empty()) symbols.back().next = -1;
  } else {
    initial_symbols(key, symbols);
  }
  merge_all(symbols);
  const std::size_t start = out.size();
  for (const Symbol& s : symbols)
    if (s.len != 0) out.push_back(s.id);
  if (key.size() < 256) cache.insert(key, h, out.data() + start, out.size() - start);
}

void BpeModel::encode_word(std::string_view word, std::vector<std::int32_t>& out) const {
  if (word.empty()) return;
  if (settings_.ignore_merges) {
    std::int32_t id = vocab_.find(word);
    if (id >= 0) {
      out.push_back(id);
      return;
    }
  }
  encode_cached(word, false, out);
}

void BpeModel::encode_raw_bytes(std::string_view bytes, std::vector<std::int32_t>& out) const {
  if (bytes.empty()) return;
  if (settings_.ignore_merges) {
    std::int32_t id = raw_vocab_.find(bytes);
    if (id >= 0) {
      out.push_back(id);
      return;
    }
  }
  encode_cached(bytes, true, out);
}

}  // namespace openrecipes::rows::tok
