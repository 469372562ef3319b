// numpy-compatible SeedSequence, PCG64 and Generator.permutation (SPEC §1.4; numpy 1.24
// bit_generator.pyx, _pcg64.pyx, src/pcg64/pcg64.h, src/distributions/distributions.c, _generator.pyx).
#include "rows/pack/permutation.h"

#include <numeric>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "core/error.h"

namespace openrecipes::rows {
namespace {

// SeedSequence hashing constants (bit_generator.pyx).
constexpr std::uint32_t kInitA = 0x43b0d7e5;
constexpr std::uint32_t kMultA = 0x931e8875;
constexpr std::uint32_t kInitB = 0x8b51f9dd;
constexpr std::uint32_t kMultB = 0x58f38ded;
constexpr std::uint32_t kMixMultL = 0xca01f9dd;
constexpr std::uint32_t kMixMultR = 0x4973f715;
constexpr unsigned kXShift = 16;  // half the bits of a uint32
constexpr std::size_t kPoolSize = 4;

std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> kXShift;
  return value;
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) {
  std::uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

std::vector<std::uint32_t> words_of(std::uint64_t seed) {
  if (seed <= 0xffffffffull) return {static_cast<std::uint32_t>(seed)};
  return {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
}

}  // namespace

SeedSequence::SeedSequence(std::span<const std::uint32_t> entropy_words) {
  // numpy: _int_to_uint32_array(0) is [0]; an empty span stands for the integer 0.
  const std::uint32_t zero = 0;
  std::span<const std::uint32_t> entropy =
      entropy_words.empty() ? std::span<const std::uint32_t>(&zero, 1) : entropy_words;
  std::uint32_t hash_const = kInitA;
  for (std::size_t i = 0; i < kPoolSize; ++i) pool_[i] = hashmix(i < entropy.size() ? entropy[i] : 0u, hash_const);
  for (std::size_t src = 0; src < kPoolSize; ++src)
    for (std::size_t dst = 0; dst < kPoolSize; ++dst)
      if (src != dst) pool_[dst] = mix(pool_[dst], hashmix(pool_[src], hash_const));
  for (std::size_t src = kPoolSize; src < entropy.size(); ++src)
    for (std::size_t dst = 0; dst < kPoolSize; ++dst) pool_[dst] = mix(pool_[dst], hashmix(entropy[src], hash_const));
}

SeedSequence::SeedSequence(std::uint64_t seed) : SeedSequence(std::span<const std::uint32_t>(words_of(seed))) {}

std::vector<std::uint32_t> SeedSequence::generate_state32(std::size_t n_words) const {
  std::vector<std::uint32_t> out(n_words);
  std::uint32_t hash_const = kInitB;
  for (std::size_t i = 0; i < n_words; ++i) {
    std::uint32_t v = pool_[i % kPoolSize];
    v ^= hash_const;
    hash_const *= kMultB;
    v *= hash_const;
    v ^= v >> kXShift;
    out[i] = v;
  }
  return out;
}

std::vector<std::uint64_t> SeedSequence::generate_state64(std::size_t n_words) const {
  std::vector<std::uint32_t> w = generate_state32(2 * n_words);
  std::vector<std::uint64_t> out(n_words);
  for (std::size_t i = 0; i < n_words; ++i)
    out[i] = static_cast<std::uint64_t>(w[2 * i]) | (static_cast<std::uint64_t>(w[2 * i + 1]) << 32);
  return out;
}

std::vector<std::uint32_t> parse_seed_words(std::string_view decimal, std::string_view what) {
  const std::string fix = "give a non-negative integer in decimal, e.g. 0";
  if (decimal.empty()) throw InputError(std::string(what), "empty seed", fix);
  if (decimal.size() > 1000)
    throw InputError(std::string(what), fmt::format("seed has {} digits, over the limit of 1000", decimal.size()), fix);
  std::vector<std::uint32_t> words{0};
  for (char c : decimal) {
    if (c < '0' || c > '9')
      throw InputError(std::string(what), fmt::format("'{}' is not a decimal integer", decimal), fix);
    std::uint64_t carry = static_cast<std::uint64_t>(c - '0');
    for (auto& w : words) {
      std::uint64_t v = static_cast<std::uint64_t>(w) * 10u + carry;
      w = static_cast<std::uint32_t>(v);
      carry = v >> 32;
    }
    if (carry) words.push_back(static_cast<std::uint32_t>(carry));
  }
  while (words.size() > 1 && words.back() == 0) words.pop_back();
  return words;
}

namespace {
__extension__ typedef unsigned __int128 u128;
constexpr u128 kPcgMultiplier = (static_cast<u128>(0x2360ed051fc65da4ull) << 64) | 0x4385df649fccf645ull;
}  // namespace

Pcg64::Pcg64(const SeedSequence& seed) {
  std::vector<std::uint64_t> w = seed.generate_state64(4);
  u128 initstate = (static_cast<u128>(w[0]) << 64) | w[1];
  u128 initseq = (static_cast<u128>(w[2]) << 64) | w[3];
  // pcg_setseq_128_srandom_r
  state_ = 0;
  inc_ = (initseq << 1) | 1u;
  step();
  state_ += initstate;
  step();
}

void Pcg64::step() { state_ = state_ * kPcgMultiplier + inc_; }

std::uint64_t Pcg64::next64() {
  step();
  const auto hi = static_cast<std::uint64_t>(state_ >> 64);
  const auto lo = static_cast<std::uint64_t>(state_);
  const unsigned rot = static_cast<unsigned>(hi >> 58);
  const std::uint64_t x = hi ^ lo;
  return (x >> rot) | (x << ((-rot) & 63u));
}

std::uint32_t Pcg64::next32() {
  if (has_uint32_) {
    has_uint32_ = false;
    return uinteger_;
  }
  const std::uint64_t next = next64();
  has_uint32_ = true;
  uinteger_ = static_cast<std::uint32_t>(next >> 32);
  return static_cast<std::uint32_t>(next & 0xffffffffu);
}

std::array<std::uint64_t, 4> Pcg64::state_words() const {
  return {static_cast<std::uint64_t>(state_ >> 64), static_cast<std::uint64_t>(state_),
          static_cast<std::uint64_t>(inc_ >> 64), static_cast<std::uint64_t>(inc_)};
}

std::uint64_t random_interval(Pcg64& rng, std::uint64_t max) {
  if (max == 0) return 0;
  std::uint64_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  std::uint64_t value;
  if (max <= 0xffffffffull) {
    while ((value = (rng.next32() & mask)) > max) {
    }
  } else {
    while ((value = (rng.next64() & mask)) > max) {
    }
  }
  return value;
}

std::vector<std::uint32_t> numpy_permutation(std::uint64_t n, const SeedSequence& seed) {
  if (n > kMaxPermutationSize)
    throw std::invalid_argument(
        fmt::format("numpy_permutation: n = {} is over the limit of {}", n, kMaxPermutationSize));
  std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
  std::iota(x.begin(), x.end(), 0u);
  if (n < 2) return x;  // numpy draws nothing for 0 (size 0) and 1 (empty loop)
  Pcg64 rng(seed);
  for (std::uint64_t i = n - 1; i >= 1; --i) {
    const auto j = static_cast<std::size_t>(random_interval(rng, i));
    std::swap(x[static_cast<std::size_t>(i)], x[j]);
  }
  return x;
}

std::vector<std::uint32_t> numpy_permutation(std::uint64_t n, std::uint64_t seed) {
  return numpy_permutation(n, SeedSequence(seed));
}

}  // namespace openrecipes::rows
