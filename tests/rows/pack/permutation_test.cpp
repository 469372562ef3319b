// Tests for src/rows/pack/permutation: numpy.random.default_rng(seed).permutation(n) bit-identical to Debian's
// numpy (the oracle, tests/oracles/numpy_permutation.py), SPEC §1.4.
#include "rows/pack/permutation.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/sha256.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

using openrecipes::testing::oracle_python;
using openrecipes::testing::run_process;
using openrecipes::testing::source_dir;

std::vector<nlohmann::json> run_oracle(const std::vector<std::string>& args) {
  std::vector<std::string> argv{oracle_python(), (source_dir() / "tests/oracles/numpy_permutation.py").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> out;
  std::size_t pos = 0;
  while (pos < r.out.size()) {
    std::size_t nl = r.out.find('\n', pos);
    if (nl == std::string::npos) nl = r.out.size();
    if (nl > pos) out.push_back(nlohmann::json::parse(r.out.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  return out;
}

std::string sha_of_u32_le(const std::vector<std::uint32_t>& v) {
  std::string bytes;
  bytes.reserve(v.size() * 4);
  for (std::uint32_t x : v)
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<char>((x >> (8 * b)) & 0xff));
  return sha256_hex(bytes);
}

TEST(Permutation, identical_to_numpy_for_issue_sizes_and_seeds) {
  const std::vector<std::uint64_t> sizes{0, 1, 2, 10, 1000, 939343};
  const std::vector<std::uint64_t> seeds{0, 1, 42, (1ull << 32) + 5, (1ull << 63) + 7, 0xffffffffffffffffull};
  std::vector<std::string> cases;
  for (auto n : sizes)
    for (auto s : seeds) cases.push_back(std::to_string(n) + ":" + std::to_string(s));
  auto expected = run_oracle([&] {
    std::vector<std::string> a{"perm"};
    a.insert(a.end(), cases.begin(), cases.end());
    return a;
  }());
  ASSERT_EQ(expected.size(), cases.size());
  std::size_t k = 0;
  for (auto n : sizes) {
    for (auto s : seeds) {
      const auto& e = expected[k++];
      ASSERT_EQ(e["numpy"], "1.24.2") << "the oracle must be Debian's numpy 1.24.2";
      auto p = numpy_permutation(n, s);
      ASSERT_EQ(p.size(), n);
      EXPECT_EQ(sha_of_u32_le(p), e["sha256"].get<std::string>()) << "n=" << n << " seed=" << s;
      for (std::size_t i = 0; i < e["head"].size(); ++i) EXPECT_EQ(p[i], e["head"][i].get<std::uint32_t>());
      for (std::size_t i = 0; i < e["tail"].size(); ++i)
        EXPECT_EQ(p[n - e["tail"].size() + i], e["tail"][i].get<std::uint32_t>());
    }
  }
}

TEST(Permutation, seed_sequence_and_pcg64_draws_match_numpy) {
  for (std::uint64_t seed : {0ull, 42ull, (1ull << 32) + 5, 0xffffffffffffffffull}) {
    auto e = run_oracle({"raw", std::to_string(seed), "5"});
    ASSERT_EQ(e.size(), 1u);
    SeedSequence ss(seed);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(ss.pool()[i], e[0]["pool"][i].get<std::uint32_t>()) << seed;
    auto s32 = ss.generate_state32(8);
    for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(s32[i], e[0]["state32"][i].get<std::uint32_t>()) << seed;
    auto s64 = ss.generate_state64(4);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(std::to_string(s64[i]), e[0]["state64"][i].get<std::string>());
    Pcg64 rng(ss);
    auto st = rng.state_words();
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(std::to_string(st[i]), e[0]["pcg_state"][i].get<std::string>());
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(std::to_string(rng.next64()), e[0]["raw64"][i].get<std::string>());
  }
}

TEST(Permutation, seeds_beyond_64_bits_use_all_words_like_numpy) {
  // 2^64 + 5 (3 words) and 2^160 + 2^100 + 3 (6 words: more words than the pool of 4).
  const std::string big1 = "18446744073709551621";
  const std::string big2 = "1461501637330902919471335432944512421152635748355";
  auto e = run_oracle({"perm", "1000:" + big1, "1000:" + big2});
  ASSERT_EQ(e.size(), 2u);
  auto w1 = parse_seed_words(big1);
  ASSERT_EQ(w1, (std::vector<std::uint32_t>{5, 0, 1}));
  EXPECT_EQ(sha_of_u32_le(numpy_permutation(1000, SeedSequence(w1))), e[0]["sha256"].get<std::string>());
  auto w2 = parse_seed_words(big2);
  ASSERT_EQ(w2.size(), 6u);
  EXPECT_EQ(sha_of_u32_le(numpy_permutation(1000, SeedSequence(w2))), e[1]["sha256"].get<std::string>());
}

TEST(Permutation, parse_seed_words_splits_low_word_first_and_rejects_non_digits) {
  EXPECT_EQ(parse_seed_words("0"), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(parse_seed_words("4294967296"), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(parse_seed_words("0004294967295"), (std::vector<std::uint32_t>{0xffffffffu}));
  EXPECT_THROW(parse_seed_words(""), InputError);
  EXPECT_THROW(parse_seed_words("-1"), InputError);
  EXPECT_THROW(parse_seed_words("12a"), InputError);
  EXPECT_THROW(parse_seed_words(std::string(1001, '1')), InputError);
  // A 64-bit seed and its words give the same stream.
  EXPECT_EQ(numpy_permutation(50, SeedSequence(parse_seed_words("9223372036854775815"))),
            numpy_permutation(50, (1ull << 63) + 7));
}

TEST(Permutation, random_interval_uses_buffered_32_bit_draws_below_2_to_32) {
  // Hand check of numpy's rule: for max <= 0xffffffff each candidate is one next32(), i.e. half a 64-bit draw.
  Pcg64 a(SeedSequence(7ull)), b(SeedSequence(7ull));
  std::uint64_t raw = b.next64();
  std::uint32_t lo = static_cast<std::uint32_t>(raw), hi = static_cast<std::uint32_t>(raw >> 32);
  // max = 2^32 - 1: mask is all ones, so no rejection: the draws are exactly lo then hi.
  EXPECT_EQ(random_interval(a, 0xffffffffull), lo);
  EXPECT_EQ(random_interval(a, 0xffffffffull), hi);
  // Above 2^32 - 1 a full 64-bit draw is used (mask 2^33 - 1 here), with rejection of values > max.
  Pcg64 c(SeedSequence(7ull)), d(SeedSequence(7ull));
  const std::uint64_t max = (1ull << 33) - 2;
  std::uint64_t v;
  do v = d.next64() & ((1ull << 33) - 1);
  while (v > max);
  EXPECT_EQ(random_interval(c, max), v);
  EXPECT_EQ(random_interval(c, 0), 0u);
}

TEST(Permutation, sizes_over_2_to_32_minus_1_are_refused) {
  EXPECT_THROW(numpy_permutation(kMaxPermutationSize + 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace openrecipes::rows
