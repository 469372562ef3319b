// Tokenizer ids vs the fixtures that ARE tokenizers 0.23.2 output (SPEC §1.3): llama.cpp test vectors,
// the edge-case vectors, and the golden Tulu-3 renders (with the per-file sha256 from SOURCE.txt).
#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "core/sha256.h"
#include "core/text.h"
#include "testing/support.h"
#include "tokenizer_testing.h"

namespace openrecipes::rows {
namespace {

using testing::tokenizer::fixture_tokenizer;
using testing::tokenizer::slurp;

std::vector<std::string> split_inp(const std::string& inp) {
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (;;) {
    std::size_t k = inp.find(sep, pos);
    if (k == std::string::npos) break;
    out.push_back(inp.substr(pos, k - pos));
    pos = k + sep.size();
  }
  return out;
}

std::vector<std::int32_t> parse_ids(const std::string& line) {
  std::vector<std::int32_t> ids;
  for (std::string_view w : split(line, ' '))
    if (!trim(w).empty()) ids.push_back(static_cast<std::int32_t>(std::stol(std::string(w))));
  return ids;
}

void check_llamacpp(const std::string& vocab, const std::string& tokenizer) {
  const auto dir = testing::fixtures_dir() / "tokenizers" / "test_vectors";
  auto texts = split_inp(slurp(dir / ("llamacpp-ggml-vocab-" + vocab + ".gguf.inp")));
  std::vector<std::string> lines;
  std::string out = slurp(dir / ("llamacpp-ggml-vocab-" + vocab + ".gguf.out"));
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t k = out.find('\n', pos);
    if (k == std::string::npos) k = out.size();
    lines.push_back(out.substr(pos, k - pos));
    pos = k + 1;
  }
  ASSERT_EQ(texts.size(), 46u);
  ASSERT_EQ(lines.size(), texts.size());
  const Tokenizer& tk = fixture_tokenizer(tokenizer);
  for (std::size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(tk.encode(texts[i]), parse_ids(lines[i])) << "vector " << i << ": " << quote_for_message(texts[i]);
}

TEST(TokenizerFixtures, llamacpp_qwen2_vectors_match_with_qwen3_tokenizer) {
  OPENRECIPES_REQUIRE_FIXTURES();
  check_llamacpp("qwen2", "qwen3");
}

TEST(TokenizerFixtures, llamacpp_llama_bpe_vectors_match_with_llama3_tokenizer) {
  OPENRECIPES_REQUIRE_FIXTURES();
  check_llamacpp("llama-bpe", "llama3");
}

TEST(TokenizerFixtures, edge_case_vectors_match_for_all_three_tokenizers) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const auto path = testing::fixtures_dir() / "tokenizers" / "test_vectors" / "hf_tokenizers_0.23.2_edge_cases.jsonl";
  std::size_t n = 0;
  const std::string data = slurp(path);
  for (std::string_view line : lines_of(data)) {
    if (trim(line).empty()) continue;
    auto j = nlohmann::json::parse(line);
    const std::string text = j["text"];
    for (const char* name : {"qwen3", "llama3", "deepseek_v3"}) {
      EXPECT_EQ(fixture_tokenizer(name).encode(text), j[name].get<std::vector<std::int32_t>>())
          << name << ": " << quote_for_message(text);
    }
    ++n;
  }
  EXPECT_EQ(n, 70u);
}

// SHA-256 of all ids as little-endian uint32, concatenated in file order (SOURCE.txt's definition).
std::string ids_sha256(const std::vector<std::vector<std::int32_t>>& all) {
  Sha256 h;
  for (const auto& ids : all)
    for (std::int32_t id : ids) {
      const auto u = static_cast<std::uint32_t>(id);
      unsigned char b[4] = {static_cast<unsigned char>(u), static_cast<unsigned char>(u >> 8),
                            static_cast<unsigned char>(u >> 16), static_cast<unsigned char>(u >> 24)};
      h.update(b, 4);
    }
  return h.hex();
}

void check_golden(const std::string& file, const std::string& tokenizer, const std::string& sha256) {
  const auto path = testing::fixtures_dir() / "golden" / "tulu3_first100" / file;
  const Tokenizer& tk = fixture_tokenizer(tokenizer);
  std::vector<std::vector<std::int32_t>> ours, golden;
  const std::string data = slurp(path);
  for (std::string_view line : lines_of(data)) {
    if (trim(line).empty()) continue;
    auto j = nlohmann::json::parse(line);
    golden.push_back(j["input_ids"].get<std::vector<std::int32_t>>());
    ours.push_back(tk.encode(j["rendered"].get<std::string>()));
    EXPECT_EQ(ours.back(), golden.back()) << file << " conversation " << j["id"];
  }
  EXPECT_EQ(golden.size(), 100u);
  EXPECT_EQ(ids_sha256(golden), sha256) << "fixture changed: " << file;
  EXPECT_EQ(ids_sha256(ours), sha256);
}

TEST(TokenizerFixtures, golden_tulu3_qwen3_renders_give_golden_ids) {
  OPENRECIPES_REQUIRE_FIXTURES();
  check_golden("qwen3.jsonl", "qwen3", "48a51143273c2fc5b155dee95508ce2f6aa5f1b6d7080f7fecb2cc3415de8570");
}

TEST(TokenizerFixtures, golden_tulu3_llama3_renders_give_golden_ids) {
  OPENRECIPES_REQUIRE_FIXTURES();
  check_golden("llama3_1_instruct.jsonl", "llama3", "b0c765e04094359b4bea5b1163af89901e26fed13a8b1931b5dafdcc6e5bfb88");
}

TEST(TokenizerFixtures, golden_tulu3_deepseek_v3_renders_give_golden_ids) {
  OPENRECIPES_REQUIRE_FIXTURES();
  check_golden("deepseek_v3.jsonl", "deepseek_v3", "10941fc90480934774001d92c7f6e89b6c88ae0e9ea6c183a772b0458d709186");
}

TEST(TokenizerFixtures, token_to_id_and_vocab_size_follow_the_files) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // Ids and sizes stated in the fixtures' SOURCE.txt files.
  EXPECT_EQ(fixture_tokenizer("qwen3").token_to_id("<|im_end|>"), 151645);
  EXPECT_EQ(fixture_tokenizer("qwen3").token_to_id("</think>"), 151668);
  EXPECT_EQ(fixture_tokenizer("qwen3").vocab_size(), 151643u + 26u);
  EXPECT_EQ(fixture_tokenizer("llama3").token_to_id("<|eot_id|>"), 128009);
  EXPECT_EQ(fixture_tokenizer("llama3").vocab_size(), 128256u);
  EXPECT_EQ(fixture_tokenizer("deepseek_v3").token_to_id("<｜end▁of▁sentence｜>"), 1);
  EXPECT_EQ(fixture_tokenizer("deepseek_v3").token_to_id("<｜Assistant｜>"), 128804);
  EXPECT_EQ(fixture_tokenizer("deepseek_v3").vocab_size(), 128815u);  // ids 0..128814; 0,1,2 are in both lists
  EXPECT_EQ(fixture_tokenizer("qwen3").token_to_id("no such token"), std::nullopt);
}

}  // namespace
}  // namespace openrecipes::rows

namespace openrecipes::rows {
namespace {

TEST(TokenizerFixtures, concurrent_encode_on_one_tokenizer_gives_the_golden_ids) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const auto path = testing::fixtures_dir() / "golden" / "tulu3_first100" / "llama3_1_instruct.jsonl";
  const Tokenizer& tk = fixture_tokenizer("llama3");
  std::vector<std::string> texts;
  std::vector<std::vector<std::int32_t>> golden;
  const std::string data = slurp(path);
  for (std::string_view line : lines_of(data)) {
    if (trim(line).empty()) continue;
    auto j = nlohmann::json::parse(line);
    texts.push_back(j["rendered"]);
    golden.push_back(j["input_ids"].get<std::vector<std::int32_t>>());
  }
  std::vector<std::vector<std::vector<std::int32_t>>> results(4, std::vector<std::vector<std::int32_t>>(texts.size()));
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < texts.size(); ++i)
          results[t][(i * 7 + t) % texts.size()] = tk.encode(texts[(i * 7 + t) % texts.size()]);
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(results[t], golden) << "thread " << t;
}

}  // namespace
}  // namespace openrecipes::rows
