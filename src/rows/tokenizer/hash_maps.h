// Open-addressing hash maps for the tokenizer's hot lookups (SPEC §1.3): token text -> id (vocab),
// id pair -> merge (rank, new id), and the per-thread word cache. Keys live in one arena; no per-entry allocation.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::rows::tok {

/// 64-bit hash of a byte string (multiply-xorshift over 8-byte words; not cryptographic).
inline std::uint64_t hash_bytes(std::string_view s) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = 0x243F6A8885A308D3ull ^ (s.size() * kMul);
  const char* p = s.data();
  std::size_t n = s.size();
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

/// Immutable-after-build map from byte string to int32 (insert keeps the LAST value for a repeated key, as
/// serde's HashMap does for repeated JSON keys).
class StringIdMap {
 public:
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }
  void insert(std::string_view key, std::int32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    std::uint64_t h = hash_bytes(key);
    std::size_t i = h & mask_;
    while (slots_[i].used) {
      if (slots_[i].hash == h && view(slots_[i]) == key) {
        slots_[i].value = value;
        return;
      }
      i = (i + 1) & mask_;
    }
    Slot& s = slots_[i];
    s.used = true;
    s.hash = h;
    s.offset = static_cast<std::uint32_t>(arena_.size());
    s.length = static_cast<std::uint32_t>(key.size());
    s.value = value;
    arena_.append(key);
    ++size_;
  }
  /// Value of `key`, or -1 when absent.
  std::int32_t find(std::string_view key) const {
    if (slots_.empty()) return -1;
    std::uint64_t h = hash_bytes(key);
    std::size_t i = h & mask_;
    while (slots_[i].used) {
      if (slots_[i].hash == h && view(slots_[i]) == key) return slots_[i].value;
      i = (i + 1) & mask_;
    }
    return -1;
  }
  std::size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.used) f(view(s), s.value);
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t offset = 0, length = 0;
    std::int32_t value = 0;
    bool used = false;
  };
  std::string_view view(const Slot& s) const { return std::string_view(arena_.data() + s.offset, s.length); }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    std::size_t cap = old.empty() ? 16 : old.size() * 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    for (const Slot& s : old) {
      if (!s.used) continue;
      std::size_t i = s.hash & mask_;
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
  std::string arena_;
};

/// Map from an ordered pair of token ids to a merge (rank, id of the merged token).
class PairMap {
 public:
  struct Merge {
    std::uint32_t rank;
    std::int32_t new_id;
  };
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }
  /// Inserts or overwrites (a later merge of the same pair replaces the earlier one, as upstream's collect does).
  void insert(std::int32_t a, std::int32_t b, Merge m) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    std::uint64_t k = key(a, b);
    std::size_t i = mix(k) & mask_;
    while (slots_[i].used) {
      if (slots_[i].key == k) {
        slots_[i].merge = m;
        return;
      }
      i = (i + 1) & mask_;
    }
    slots_[i] = Slot{k, m, true};
    ++size_;
  }
  const Merge* find(std::int32_t a, std::int32_t b) const {
    if (slots_.empty()) return nullptr;
    std::uint64_t k = key(a, b);
    std::size_t i = mix(k) & mask_;
    while (slots_[i].used) {
      if (slots_[i].key == k) return &slots_[i].merge;
      i = (i + 1) & mask_;
    }
    return nullptr;
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    Merge merge{0, 0};
    bool used = false;
  };
  static std::uint64_t key(std::int32_t a, std::int32_t b) {
    return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
  }
  static std::uint64_t mix(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    return k;
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    std::size_t cap = old.empty() ? 16 : old.size() * 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    for (const Slot& s : old) {
      if (!s.used) continue;
      std::size_t i = mix(s.key) & mask_;
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
};

/// A bounded cache from word (byte string) to its token ids, owned by one thread. When it holds `max_entries`
/// words it is emptied and refilled (cheap and deterministic: only speed depends on it).
class WordCache {
 public:
  explicit WordCache(std::size_t max_entries = 1u << 16) : max_entries_(max_entries) {
    std::size_t cap = 16;
    while (cap < max_entries * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }
  /// Ids cached for `key` (hash `h`): pointer and count, or nullptr.
  const std::int32_t* find(std::string_view key, std::uint64_t h, std::size_t& count) const {
    std::size_t i = h & mask_;
    while (slots_[i].used) {
      const Slot& s = slots_[i];
      if (s.hash == h && s.key_len == key.size() &&
          std::memcmp(keys_.data() + s.key_off, key.data(), key.size()) == 0) {
        count = s.ids_len;
        return ids_.data() + s.ids_off;
      }
      i = (i + 1) & mask_;
    }
    return nullptr;
  }
  void insert(std::string_view key, std::uint64_t h, const std::int32_t* ids, std::size_t count) {
    if (size_ >= max_entries_) clear();
    std::size_t i = h & mask_;
    while (slots_[i].used) i = (i + 1) & mask_;
    Slot& s = slots_[i];
    s.used = true;
    s.hash = h;
    s.key_off = static_cast<std::uint32_t>(keys_.size());
    s.key_len = static_cast<std::uint32_t>(key.size());
    s.ids_off = static_cast<std::uint32_t>(ids_.size());
    s.ids_len = static_cast<std::uint32_t>(count);
    keys_.append(key);
    ids_.insert(ids_.end(), ids, ids + count);
    ++size_;
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t key_off = 0, key_len = 0, ids_off = 0, ids_len = 0;
    bool used = false;
  };
  void clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    keys_.clear();
    ids_.clear();
    size_ = 0;
  }
  std::size_t max_entries_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
  std::string keys_;
  std::vector<std::int32_t> ids_;
};

}  // namespace openrecipes::rows::tok
