// Malformed or unsupported tokenizer.json files give a clear InputError naming the file, the JSON path and the
// unsupported type (SPEC §1.3; DESIGN.md "Untrusted input").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "rows/tokenizer/tokenizer.h"
#include "testing/support.h"
#include "tokenizer_testing.h"

namespace openrecipes::rows {
namespace {

using json = nlohmann::json;

json minimal() { return testing::tokenizer::minimal_tokenizer_json(); }

// Loads `content` and returns the InputError's message; fails the test if loading succeeds.
std::string load_error(const testing::TempDir& dir, const std::string& content, std::string* file = nullptr) {
  auto path = dir.write("tokenizer.json", content);
  if (file) *file = path.string();
  SCOPED_TRACE("loading: " + content.substr(0, 200));
  const std::string m = testing::message_of([&] { Tokenizer::load(path); });
  EXPECT_NE(m.find(path.string()), std::string::npos) << m;
  return m;
}

#define EXPECT_HAS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

TEST(TokenizerErrors, minimal_valid_file_loads_and_encodes) {
  testing::TempDir dir;
  const Tokenizer tk = Tokenizer::load(dir.write("tokenizer.json", minimal().dump()));
  EXPECT_EQ(tk.encode("ab"), (std::vector<std::int32_t>{2}));  // one merge: a + b -> ab
  EXPECT_EQ(tk.vocab_size(), 3u);
}

TEST(TokenizerErrors, unsupported_model_type_names_path_and_type) {
  testing::TempDir dir;
  json j = minimal();
  j["model"] = {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"vocab", {{"a", 0}}}};
  std::string msg = load_error(dir, j.dump());
  EXPECT_HAS(msg, "at model.type");
  EXPECT_HAS(msg, "\"WordPiece\"");
}

TEST(TokenizerErrors, unsupported_pre_tokenizer_names_path_and_type) {
  testing::TempDir dir;
  json j = minimal();
  json digits = {{"type", "Digits"}, {"individual_digits", true}};
  json metaspace = {{"type", "Metaspace"}, {"replacement", "▁"}};
  j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", json::array({digits, metaspace})}};
  std::string msg = load_error(dir, j.dump());
  EXPECT_HAS(msg, "at pre_tokenizer.pretokenizers[1].type");
  EXPECT_HAS(msg, "\"Metaspace\"");
}

TEST(TokenizerErrors, unsupported_normalizer_names_path_and_type) {
  testing::TempDir dir;
  json j = minimal();
  json nfc = {{"type", "NFC"}};
  json bert = {{"type", "BertNormalizer"}};
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array({nfc, bert})}};
  std::string msg = load_error(dir, j.dump());
  EXPECT_HAS(msg, "at normalizer.normalizers[1].type");
  EXPECT_HAS(msg, "\"BertNormalizer\"");
}

TEST(TokenizerErrors, malformed_json_is_named) {
  testing::TempDir dir;
  EXPECT_HAS(load_error(dir, "{\"model\": {\"vocab\": "), "not valid JSON");
  EXPECT_HAS(load_error(dir, "[1, 2, 3]"), "top level");
  EXPECT_HAS(load_error(dir, ""), "not valid JSON");
}

TEST(TokenizerErrors, truncated_real_file_is_invalid_json) {
  OPENRECIPES_REQUIRE_FIXTURES();
  testing::TempDir dir;
  std::string whole = testing::tokenizer::slurp(testing::tokenizer::fixture_tokenizer_path("qwen3"));
  EXPECT_HAS(load_error(dir, whole.substr(0, whole.size() / 2)), "not valid JSON");
}

TEST(TokenizerErrors, merge_with_unknown_token_names_the_merge) {
  testing::TempDir dir;
  json j = minimal();
  j["model"]["merges"] = {"a b", "a zz"};
  std::string msg = load_error(dir, j.dump());
  EXPECT_HAS(msg, "at model.merges[1]");
  EXPECT_HAS(msg, "\"zz\"");
  j["model"]["merges"] = json::array({json::array({"b", "a"})});  // pair form; "ba" is not in the vocabulary
  msg = load_error(dir, j.dump());
  EXPECT_HAS(msg, "at model.merges[0]");
  EXPECT_HAS(msg, "\"ba\"");
  j["model"]["merges"] = {"a b c"};
  EXPECT_HAS(load_error(dir, j.dump()), "at model.merges[0]");
}

TEST(TokenizerErrors, missing_vocab_and_bad_ids_are_named) {
  testing::TempDir dir;
  json j = minimal();
  j["model"].erase("vocab");
  EXPECT_HAS(load_error(dir, j.dump()), "missing field \"vocab\"");
  for (json bad : {json(-1), json(3.5), json(4294967296ll), json("7")}) {
    j = minimal();
    j["model"]["vocab"]["b"] = bad;
    std::string msg = load_error(dir, j.dump());
    EXPECT_HAS(msg, "at model.vocab['b']");
  }
  j = minimal();
  j["added_tokens"] = {{{"id", -5},
                        {"content", "x"},
                        {"single_word", false},
                        {"lstrip", false},
                        {"rstrip", false},
                        {"normalized", false},
                        {"special", true}}};
  EXPECT_HAS(load_error(dir, j.dump()), "at added_tokens[0].id");
}

TEST(TokenizerErrors, settings_that_change_ids_are_rejected) {
  testing::TempDir dir;
  json j = minimal();
  j["truncation"] = {{"max_length", 512}};
  EXPECT_HAS(load_error(dir, j.dump()), "at truncation");
  j = minimal();
  j["padding"] = {{"strategy", "BatchLongest"}};
  EXPECT_HAS(load_error(dir, j.dump()), "at padding");
  j = minimal();
  j["model"]["dropout"] = 0.1;
  EXPECT_HAS(load_error(dir, j.dump()), "at model.dropout");
  j = minimal();
  j["version"] = "2.0";
  EXPECT_HAS(load_error(dir, j.dump()), "at version");
}

TEST(TokenizerErrors, bad_regex_is_named_with_oniguruma_message) {
  testing::TempDir dir;
  json j = minimal();
  j["pre_tokenizer"] = {
      {"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}, {"invert", false}};
  std::string msg = load_error(dir, j.dump());
  EXPECT_HAS(msg, "at pre_tokenizer.pattern");
  EXPECT_HAS(msg, "Oniguruma");
}

TEST(TokenizerErrors, oversize_file_is_rejected_before_reading) {
  testing::TempDir dir;
  auto path = dir / "tokenizer.json";
  { std::ofstream(path) << "{}"; }
  std::filesystem::resize_file(path, (256ull << 20) + 1);  // sparse: no disk used
  try {
    Tokenizer::load(path);
    ADD_FAILURE() << "oversize file loaded";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()), path.string());
  }
}

TEST(TokenizerErrors, missing_unk_token_fails_at_encode_like_upstream) {
  testing::TempDir dir;
  json j = minimal();
  j["pre_tokenizer"] = nullptr;
  j["model"]["unk_token"] = "<unk>";  // not in the vocabulary: upstream fails only when a character needs it
  const Tokenizer tk = Tokenizer::load(dir.write("tokenizer.json", j.dump()));
  EXPECT_EQ(tk.encode("ab"), (std::vector<std::int32_t>{2}));
  EXPECT_THROW(tk.encode("abc"), InputError);
}

TEST(TokenizerErrors, a_word_over_one_mib_is_an_input_error_not_minutes_of_bpe) {
  testing::TempDir dir;
  json j = minimal();
  j["pre_tokenizer"] = nullptr;  // nothing splits the text: all of it is one word
  const Tokenizer tk = Tokenizer::load(dir.write("tokenizer.json", j.dump()));
  EXPECT_EQ(tk.encode(std::string(1000, 'a')).size(), 1000u);
  try {
    tk.encode(std::string((1u << 20) + 1, 'a'));
    ADD_FAILURE() << "a 1 MiB + 1 word encoded";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()),
               "a word of 1048577 bytes (a run the pre-tokenizer does not split) is over the "
               "limit of 1048576 bytes");
  }
}

TEST(TokenizerErrors, a_normalizer_that_grows_text_past_256_mib_is_an_input_error) {
  testing::TempDir dir;
  json j = minimal();
  // Each "a" becomes 60,000 bytes: 5,000 of them would make 300,000,000 bytes (> 268,435,456).
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", std::string(60000, 'b')}};
  const Tokenizer tk = Tokenizer::load(dir.write("tokenizer.json", j.dump()));
  EXPECT_EQ(tk.encode("a").size(), 60000u);  // "b" x 60,000, each its own token (the merges make only "ab")
  try {
    tk.encode(std::string(5000, 'a'));
    ADD_FAILURE() << "300 MB of normalized text encoded";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()),
               "the text to encode: the tokenizer's normalizer grows this text past the limit of 268435456 bytes");
  }
}

TEST(TokenizerErrors, a_pattern_that_backtracks_past_onigurumas_retry_limit_is_an_input_error) {
  testing::TempDir dir;
  json j = minimal();
  // (a|a)*$ over 40 a's and a "!": 2^40 ways to fail at each start. Oniguruma stops at its retry limit (tokenizers'
  // onig crate uses the same default, and fails there too).
  j["pre_tokenizer"] = {
      {"type", "Split"}, {"pattern", {{"Regex", "(a|a)*$"}}}, {"behavior", "Isolated"}, {"invert", false}};
  const Tokenizer tk = Tokenizer::load(dir.write("tokenizer.json", j.dump()));
  try {
    tk.encode(std::string(40, 'a') + "!");
    ADD_FAILURE() << "encoded";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()),
               "the text to encode: the tokenizer's regex backtracked past Oniguruma's retry limit (10000000 a match) "
               "at byte 0");
  }
}

}  // namespace
}  // namespace openrecipes::rows
