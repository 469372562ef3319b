// numpy.random.default_rng(seed).permutation(n), bit-identical to numpy 1.24 (SPEC §1.4): SeedSequence ->
// PCG64 (XSL-RR 128/64) -> Generator.shuffle of arange(n) with numpy's masked-rejection random_interval.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace openrecipes::rows {

/// numpy.random.SeedSequence(entropy) with the default pool size 4 and no spawn key
/// (numpy/random/bit_generator.pyx). The entropy is a non-negative integer given as 32-bit words, least
/// significant word first, exactly as numpy's _int_to_uint32_array splits a Python int (0 is one word, 0).
class SeedSequence {
 public:
  /// Entropy from 32-bit words (least significant first). An empty span means the integer 0.
  explicit SeedSequence(std::span<const std::uint32_t> entropy_words);
  /// Entropy from an unsigned 64-bit seed (split into one word when < 2^32, else two).
  explicit SeedSequence(std::uint64_t seed);

  /// SeedSequence.generate_state(n_words, np.uint32).
  std::vector<std::uint32_t> generate_state32(std::size_t n_words) const;
  /// SeedSequence.generate_state(n_words, np.uint64): 2*n_words 32-bit words, paired little-endian.
  std::vector<std::uint64_t> generate_state64(std::size_t n_words) const;

  /// The mixed entropy pool (4 words), for tests.
  const std::array<std::uint32_t, 4>& pool() const { return pool_; }

 private:
  std::array<std::uint32_t, 4> pool_{};
};

/// Splits a non-negative integer written in decimal (any size, e.g. a --seed option) into 32-bit words,
/// least significant first, as numpy does for a Python int. Throws InputError (`what` names the option)
/// for an empty string, a sign, or anything but ASCII digits; at most 1,000 digits.
std::vector<std::uint32_t> parse_seed_words(std::string_view decimal, std::string_view what = "seed");

/// numpy's PCG64 bit generator (numpy/random/src/pcg64/pcg64.h): a 128-bit LCG with multiplier
/// 0x2360ed051fc65da44385df649fccf645 and the XSL-RR output, seeded from SeedSequence.generate_state(4,
/// uint64) as state = (w0 << 64) | w1, inc = (w2 << 64) | w3, then pcg64_srandom_r. next32() buffers the
/// upper half of a 64-bit draw exactly like numpy's pcg64_next32 (has_uint32 / uinteger).
class Pcg64 {
 public:
  explicit Pcg64(const SeedSequence& seed);
  /// numpy's next_uint64 (bit_generator.random_raw()).
  std::uint64_t next64();
  /// numpy's next_uint32: the low half of a fresh 64-bit draw, then its high half on the next call.
  std::uint32_t next32();
  /// State as numpy reports it in bit_generator.state: high and low 64 bits of state and increment.
  std::array<std::uint64_t, 4> state_words() const;

 private:
  __extension__ typedef unsigned __int128 u128;
  u128 state_ = 0, inc_ = 0;
  bool has_uint32_ = false;
  std::uint32_t uinteger_ = 0;
  void step();
};

/// numpy's random_interval(bitgen, max) (src/distributions/distributions.c): a uniform integer in [0, max]
/// by masked rejection sampling; 32-bit draws (next32) when max <= 0xffffffff, else 64-bit draws.
std::uint64_t random_interval(Pcg64& rng, std::uint64_t max);

/// Largest n numpy_permutation accepts: 2^32 - 1 (every index fits a uint32, and every draw takes
/// numpy's 32-bit path).
inline constexpr std::uint64_t kMaxPermutationSize = 0xffffffffull;

/// numpy.random.default_rng(seed).permutation(n) as uint32 indices (numpy returns int64; the values are the
/// same). Generator.shuffle on arange(n): for i from n-1 down to 1, j = random_interval(i), swap x[i], x[j].
/// n = 0 gives an empty vector and draws nothing. Throws std::invalid_argument when n > kMaxPermutationSize.
/// Runs in O(n); 939,343 elements take a few milliseconds.
std::vector<std::uint32_t> numpy_permutation(std::uint64_t n, const SeedSequence& seed);
std::vector<std::uint32_t> numpy_permutation(std::uint64_t n, std::uint64_t seed);

}  // namespace openrecipes::rows
