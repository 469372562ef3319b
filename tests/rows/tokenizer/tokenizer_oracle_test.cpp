// Differential tests against the live oracle, Hugging Face tokenizers 0.23.2 (SPEC §1.3): 10,000 seeded
// Unicode-stress strings per fixture tokenizer, and every code point of planes 0-3 and 14 in context.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/text.h"
#include "core/utf8.h"
#include "testing/support.h"
#include "tokenizer_testing.h"

namespace openrecipes::rows {
namespace {

using testing::tokenizer::fixture_tokenizer;
using testing::tokenizer::fixture_tokenizer_path;
using testing::tokenizer::oracle_encode;
using testing::tokenizer::OracleRequest;
using testing::tokenizer::random_text;
using testing::tokenizer::Rng;
using testing::tokenizer::utf8;

void check_against_oracle(const std::vector<std::string>& texts, const std::vector<std::string>& tokenizers) {
  std::vector<OracleRequest> reqs;
  for (const auto& name : tokenizers)
    for (const auto& t : texts) reqs.push_back({fixture_tokenizer_path(name), t});
  auto expected = oracle_encode(reqs);
  ASSERT_EQ(expected.size(), reqs.size());
  std::size_t k = 0, failures = 0;
  for (const auto& name : tokenizers) {
    const Tokenizer& tk = fixture_tokenizer(name);
    for (const auto& t : texts) {
      auto ours = tk.encode(t);
      if (ours != expected[k] && ++failures <= 20)
        ADD_FAILURE() << name << " differs on " << quote_for_message(t, 200)
                      << "\nours:   " << ::testing::PrintToString(ours)
                      << "\noracle: " << ::testing::PrintToString(expected[k]);
      ++k;
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(TokenizerOracle, ten_thousand_seeded_unicode_stress_strings_match_tokenizers_0_23_2) {
  OPENRECIPES_REQUIRE_FIXTURES();
  Rng rng{20260101};
  std::vector<std::string> texts;
  for (int i = 0; i < 10000; ++i) texts.push_back(random_text(rng));
  check_against_oracle(texts, {"qwen3", "llama3", "deepseek_v3"});
}

// Every code point of planes 0 and 14, every 4th of plane 1 and every 64th of planes 2-3 (CJK extensions: long
// runs of one class); no surrogates, no private use. Each sits in contexts that expose its class to every pre-tokenizer
// pattern (after a letter, a space, a digit, a mark, punctuation) and to NFC.
TEST(TokenizerOracle, code_points_of_all_planes_in_context_match_tokenizers_0_23_2) {
  OPENRECIPES_REQUIRE_FIXTURES();
  std::vector<std::string> texts;
  std::string cur;
  int in_cur = 0;
  auto add = [&](char32_t c) {
    const std::string u = utf8(c);
    cur += "x" + u + " " + u + "1" + u + "\u0301!" + u + u;
    if (++in_cur == 400) {
      texts.push_back(cur);
      cur.clear();
      in_cur = 0;
    }
  };
  for (char32_t c = 0x80; c < 0x40000; ++c) {
    if ((c >= 0xd800 && c <= 0xdfff) || (c >= 0xe000 && c <= 0xf8ff)) continue;
    if (c >= 0x10000 && c % (c >= 0x20000 ? 64 : 4) != 0) continue;
    add(c);
  }
  for (char32_t c = 0xe0000; c < 0xe1000; ++c) add(c);
  if (!cur.empty()) texts.push_back(cur);
  check_against_oracle(texts, {"qwen3", "llama3", "deepseek_v3"});
}

}  // namespace
}  // namespace openrecipes::rows
