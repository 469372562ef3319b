// Tests for the tokenizer.json loader's two parsers (src/rows/tokenizer/tokenizer_json.cpp; SPEC §1.3): simdjson,
// tried first, and nlohmann, the reference it falls back to, give the same tokenizer (description, vocabulary size,
// ids) for every fixture tokenizer and the same verdict, word for word, for files the fast path does not expect.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "rows/tokenizer/tokenizer.h"
#include "testing/support.h"
#include "tokenizer_testing.h"

namespace openrecipes::rows {
namespace {

using json = nlohmann::json;
using Parser = Tokenizer::JsonParser;

// The tokenizer from `bytes`, or the error's text.
struct Loaded {
  std::optional<Tokenizer> tokenizer;
  std::string error;
};
Loaded load(const std::string& bytes, Parser parser) {
  Loaded l;
  try {
    l.tokenizer.emplace(Tokenizer::load("tokenizer.json", bytes, parser));
  } catch (const InputError& e) {
    l.error = e.what();
  }
  return l;
}

TEST(TokenizerJson, every_fixture_tokenizer_is_the_same_through_simdjson_and_nlohmann) {
  const std::vector<std::string> texts = {"Hello world, héllo 123!", "  two  spaces\n\nand\ttabs", "日本語のテキスト",
                                          "<|im_start|>user\nhi<|im_end|>", "emoji 😀 and 'quotes' don't"};
  for (const char* name : {"qwen3", "llama3", "deepseek_v3"}) {
    const auto path = testing::fixtures_dir() / "tokenizers" / name / "tokenizer.json";
    OPENRECIPES_REQUIRE_FIXTURE_FILE(path);
    const std::string bytes = read_file(path, 256ull << 20);
    Loaded fast = load(bytes, Parser::fast), ref = load(bytes, Parser::reference);
    ASSERT_TRUE(fast.tokenizer && ref.tokenizer) << fast.error << ref.error;
    EXPECT_EQ(fast.tokenizer->describe(), ref.tokenizer->describe()) << name;
    EXPECT_EQ(fast.tokenizer->vocab_size(), ref.tokenizer->vocab_size()) << name;
    for (const auto& t : texts) EXPECT_EQ(fast.tokenizer->encode(t), ref.tokenizer->encode(t)) << name << ": " << t;
  }
}

TEST(TokenizerJson, files_the_fast_path_does_not_expect_get_the_reference_verdict_word_for_word) {
  const json base = testing::tokenizer::minimal_tokenizer_json();
  const std::string model_tail = R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})";
  const std::string head = R"({"version": "1.0", "pre_tokenizer": null, "model": {"type": "BPE", )";
  const std::vector<std::string> files = {
      base.dump(),                                                                      // plain: both load it
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2, "a": 5}, "merges": ["a b"]}})",      // a token twice: last id
      head + model_tail + R"(, "model": {"type": "BPE", "vocab": {}, "merges": []}})",  // "model" twice
      head + R"("vocab": {"a": 0, "b": 1.0, "ab": 2}, "merges": ["a b"]}})",            // an id that is a float
      head + R"("vocab": {"a": 0, "b": -1, "ab": 2}, "merges": ["a b"]}})",
      head + R"("vocab": {"a": 0, "b": 4294967296, "ab": 2}, "merges": ["a b"]}})",
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b", ["a", "b"]]}})",  // mixed merge forms
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"], "a b"]}})",
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a  b"]}})",
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b", "c"]]}})",
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a c"]}})",  // a token not in the vocabulary
      head + R"("vocab": [], "merges": []}})",
      head + R"("merges": []}})",  // no vocab
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"], "dropout": 0.1}})",
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"], "dropout": 0.0}})",
      head + model_tail + R"(, "padding": {"strategy": "BatchLongest"}})",
      head + model_tail + R"(, "added_tokens": [{"id": 9, "content": "<s>", "single_word": false, "lstrip": false,
          "rstrip": false, "normalized": false, "special": true}]})",
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}, "version": "1.0"})",  // "version" twice
      "\xEF\xBB\xBF" + base.dump(),                                                           // a byte-order mark
      head + R"("vocab": {"a": 0, "b": 1, "\ud800": 2}, "merges": []}})",                     // a lone surrogate
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}} trailing)",
      head + R"("vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})",  // truncated
  };
  for (const auto& f : files) {
    Loaded fast = load(f, Parser::fast), ref = load(f, Parser::reference);
    EXPECT_EQ(fast.error, ref.error) << f;
    ASSERT_EQ(fast.tokenizer.has_value(), ref.tokenizer.has_value()) << f;
    if (fast.tokenizer) {
      EXPECT_EQ(fast.tokenizer->describe(), ref.tokenizer->describe()) << f;
      EXPECT_EQ(fast.tokenizer->encode("abba b"), ref.tokenizer->encode("abba b")) << f;
      EXPECT_EQ(fast.tokenizer->token_to_id("a"), ref.tokenizer->token_to_id("a")) << f;
    }
  }
}

}  // namespace
}  // namespace openrecipes::rows
