// Tokenizer components that the fixture tokenizers do not use, each checked against the live oracle,
// tokenizers 0.23.2, on small synthetic tokenizer.json files (SPEC §1.3): normalizers, Split behaviours
// and invert, Digits, ByteLevel with add_prefix_space and its regex, added-token flags, ignore_merges,
// byte_fallback, unk_token/fuse_unk, continuing_subword_prefix/end_of_word_suffix.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "rows/tokenizer/bpe.h"
#include "testing/support.h"
#include "tokenizer_testing.h"

namespace openrecipes::rows {
namespace {

using json = nlohmann::json;
using testing::tokenizer::oracle_encode;
using testing::tokenizer::OracleRequest;
using testing::tokenizer::random_text;
using testing::tokenizer::Rng;

// A small byte-level BPE: the 256 byte-level characters, then every prefix of some words built by merges.
json byte_level_model(bool ignore_merges) {
  json vocab = json::object();
  json merges = json::array();
  int next = 0;
  for (char32_t c : tok::byte_level_chars()) vocab[testing::tokenizer::utf8(c)] = next++;
  const char* words[] = {"the", "Ġthe", "ing", "Ġa", "er", "ĠĠ", "ĠĠĠĠ", "ĊĊ",  "Ġw",     "Ġwe", "hello", "Ġ1",
                         "12",  "123",  "ä¸Ń", "ll", "'s", "Ġ'", "ab",   "abc", "Ġhello", "Ġi",  "in",    "Ġin"};
  for (const char* w : words) {
    std::vector<std::string> chars;
    for (std::size_t i = 0; w[i];) {
      std::size_t len = openrecipes::utf8_len(static_cast<unsigned char>(w[i]));
      chars.emplace_back(w + i, len);
      i += len;
    }
    std::string prefix = chars[0];
    for (std::size_t i = 1; i < chars.size(); ++i) {
      std::string merged = prefix + chars[i];
      if (!vocab.contains(merged)) {
        vocab[merged] = next++;
        merges.push_back(json::array({prefix, chars[i]}));
      }
      prefix = merged;
    }
  }
  // A token only reachable with ignore_merges: "hel" + "lo" are not merged into it ("hellow" has no merges).
  vocab["hellow"] = next++;
  return {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", nullptr},
          {"continuing_subword_prefix", nullptr},
          {"end_of_word_suffix", nullptr},
          {"fuse_unk", false},
          {"byte_fallback", false},
          {"ignore_merges", ignore_merges},
          {"vocab", vocab},
          {"merges", merges}};
}

json added(const std::string& content, int id, bool special, bool normalized, bool single_word = false,
           bool lstrip = false, bool rstrip = false) {
  return {{"id", id},         {"content", content},       {"single_word", single_word}, {"lstrip", lstrip},
          {"rstrip", rstrip}, {"normalized", normalized}, {"special", special}};
}

json tokenizer_json(json model, json normalizer, json pre_tokenizer, json added_tokens = json::array()) {
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", added_tokens},
          {"normalizer", normalizer},
          {"pre_tokenizer", pre_tokenizer},
          {"post_processor", nullptr},
          {"decoder", nullptr},
          {"model", model}};
}

json byte_level(bool add_prefix_space, bool use_regex) {
  return {
      {"type", "ByteLevel"}, {"add_prefix_space", add_prefix_space}, {"trim_offsets", false}, {"use_regex", use_regex}};
}

json split(const std::string& kind, const std::string& pattern, const std::string& behavior, bool invert) {
  return {{"type", "Split"}, {"pattern", {{kind, pattern}}}, {"behavior", behavior}, {"invert", invert}};
}

json seq_pre(std::vector<json> items) { return {{"type", "Sequence"}, {"pretokenizers", items}}; }
json seq_norm(std::vector<json> items) { return {{"type", "Sequence"}, {"normalizers", items}}; }

// Texts: fixed cases for the feature plus 300 seeded stress strings.
std::vector<std::string> texts_with(std::vector<std::string> extra) {
  Rng rng{7};
  for (int i = 0; i < 300; ++i) extra.push_back(random_text(rng));
  extra.push_back("");
  return extra;
}

// Writes each config, encodes every text with ours and with the oracle, and compares.
void check_configs(const std::vector<std::pair<std::string, json>>& configs, const std::vector<std::string>& texts) {
  testing::TempDir dir;
  std::vector<OracleRequest> reqs;
  std::vector<std::filesystem::path> paths;
  for (const auto& [name, cfg] : configs) {
    paths.push_back(dir.write(name + ".json", cfg.dump()));
    for (const auto& t : texts) reqs.push_back({paths.back(), t});
  }
  auto expected = oracle_encode(reqs);
  ASSERT_EQ(expected.size(), reqs.size());
  std::size_t k = 0;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    const Tokenizer tk = Tokenizer::load(paths[c]);
    std::size_t failures = 0;
    for (const auto& t : texts) {
      auto ours = tk.encode(t);
      if (ours != expected[k] && ++failures <= 5)
        ADD_FAILURE() << configs[c].first << " differs on " << quote_for_message(t, 120)
                      << "\nours:   " << ::testing::PrintToString(ours)
                      << "\noracle: " << ::testing::PrintToString(expected[k]);
      ++k;
    }
    EXPECT_EQ(failures, 0u) << configs[c].first;
  }
}

TEST(TokenizerConfigs, split_behaviours_and_invert_match_oracle) {
  std::vector<std::pair<std::string, json>> configs;
  for (const char* behavior : {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"})
    for (bool invert : {false, true}) {
      configs.push_back(
          {std::string("regex_") + behavior + (invert ? "_inv" : ""),
           tokenizer_json(byte_level_model(false), nullptr,
                          seq_pre({split("Regex", R"(\s+|[aeiou])", behavior, invert), byte_level(false, false)}))});
      configs.push_back({std::string("string_") + behavior + (invert ? "_inv" : ""),
                         tokenizer_json(byte_level_model(false), nullptr,
                                        seq_pre({split("String", "l", behavior, invert), byte_level(false, false)}))});
    }
  // Empty matches (Oniguruma iteration rules) and a regex the scanners do not know.
  configs.push_back({"regex_empty_matches",
                     tokenizer_json(byte_level_model(false), nullptr,
                                    seq_pre({split("Regex", "x*", "Isolated", false), byte_level(false, false)}))});
  configs.push_back(
      {"regex_lookbehind", tokenizer_json(byte_level_model(false), nullptr,
                                          seq_pre({split("Regex", R"((?<=\p{L})(?=\p{N}))", "Removed", false),
                                                   byte_level(false, false)}))});
  check_configs(configs, texts_with({"hello world", "aaa", "llama", "  x  ", "xx yx", "abc123def"}));
}

TEST(TokenizerConfigs, byte_level_prefix_space_regex_and_digits_match_oracle) {
  check_configs(
      {{"gpt2_prefix", tokenizer_json(byte_level_model(false), nullptr, byte_level(true, true))},
       {"gpt2_noprefix", tokenizer_json(byte_level_model(false), nullptr, byte_level(false, true))},
       {"digits_individual",
        tokenizer_json(byte_level_model(false), nullptr,
                       seq_pre({{{"type", "Digits"}, {"individual_digits", true}}, byte_level(true, true)}))},
       {"digits_runs",
        tokenizer_json(byte_level_model(false), nullptr,
                       seq_pre({{{"type", "Digits"}, {"individual_digits", false}}, byte_level(false, false)}))},
       {"byte_level_twice", tokenizer_json(byte_level_model(false), nullptr,
                                           seq_pre({byte_level(false, false), byte_level(false, false)}))},
       {"no_pre_tokenizer", tokenizer_json(byte_level_model(false), nullptr, nullptr)},
       {"ignore_merges", tokenizer_json(byte_level_model(true), nullptr, byte_level(false, true))}},
      texts_with({"hellow", " hellow", "hello", "I'm 12345 ok", " a", "a", "٣٤٥ 12", "'s 'S"}));
}

TEST(TokenizerConfigs, normalizers_match_oracle) {
  auto with = [](json normalizer) {
    return tokenizer_json(byte_level_model(false), normalizer, byte_level(false, true));
  };
  const std::vector<std::pair<std::string, json>> configs = {
      {"nfc", with({{"type", "NFC"}})},
      {"nfd", with({{"type", "NFD"}})},
      {"nfkc", with({{"type", "NFKC"}})},
      {"nfkd", with({{"type", "NFKD"}})},
      {"lowercase", with({{"type", "Lowercase"}})},
      {"strip", with(seq_norm({{{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}}))},
      {"lstrip", with({{"type", "Strip"}, {"strip_left", true}, {"strip_right", false}})},
      {"prepend_replace", with(seq_norm({{{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}},
                                         {{"type", "Prepend"}, {"prepend", "▁"}}}))},
      {"replace_regex", with({{"type", "Replace"}, {"pattern", {{"Regex", R"(\s+)"}}}, {"content", " "}})},
      {"nfkd_lowercase", with(seq_norm({{{"type", "NFKD"}}, {{"type", "Lowercase"}}}))}};
  const auto texts =
      texts_with({"ÉCOLE", "İstanbul", "ﬁ", "①", "Å", "\u1e9b\u0323", "  a  b  ", "abba", "\u00a0x\u3000"});
  for (const auto& c : configs) check_configs({c}, texts);  // one oracle run each: a failure names its config
}

TEST(TokenizerConfigs, added_token_flags_match_oracle) {
  json tokens = json::array({added("<s>", 1000, true, false), added("[MASK]", 1001, true, false, false, true, true),
                             added("word", 1002, false, true, true), added("<lstrip>", 1003, false, false, false, true),
                             added("<rstrip>", 1004, false, false, false, false, true), added("ÉTÉ", 1005, false, true),
                             added("hello", 1006, false, false), added("hel", 1007, false, false),
                             added("", 1008, false, false), added("<s>", 1009, true, false)});
  check_configs({{"flags_plain", tokenizer_json(byte_level_model(false), nullptr, byte_level(false, true), tokens)},
                 {"flags_lowercase_nfd",
                  tokenizer_json(byte_level_model(false), seq_norm({{{"type", "NFD"}}, {{"type", "Lowercase"}}}),
                                 byte_level(true, true), tokens)}},
                texts_with({"a word here", "words", "sword", "word", " word ", "x  [MASK]  y", "[MASK][MASK]",
                            "a <lstrip> b", "a  <rstrip>  b", "été ÉTÉ ete\u0301", "hello helium hel", "<s><s>",
                            " <lstrip><rstrip> ", "\u00a0<lstrip>\u2003", "wordword", "_word_", "1word2"}));
}

// A character-level (not byte-level) model: byte_fallback, unk_token with and without fuse_unk, and
// continuing_subword_prefix / end_of_word_suffix.
TEST(TokenizerConfigs, char_level_models_match_oracle) {
  auto model = [](bool byte_fallback, bool fuse_unk, const json& prefix, const json& suffix) {
    json vocab = json::object();
    int next = 0;
    vocab["<unk>"] = next++;
    for (int b = 0; b < 256; ++b) {
      static const char* hex = "0123456789ABCDEF";
      vocab[std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">"] = next++;
    }
    const std::string p = prefix.is_string() ? prefix.get<std::string>() : "";
    const std::string s = suffix.is_string() ? suffix.get<std::string>() : "";
    for (char c = 'a'; c <= 'z'; ++c) {
      vocab[std::string(1, c)] = next++;
      if (!p.empty()) vocab[p + std::string(1, c)] = next++;
      if (!s.empty()) vocab[std::string(1, c) + s] = next++;
      if (!p.empty() && !s.empty()) vocab[p + std::string(1, c) + s] = next++;
    }
    vocab[" "] = next++;
    vocab["é"] = next++;
    json merges = json::array();
    auto add_merge = [&](const std::string& a, const std::string& b) {
      std::string joined = a + b.substr(p.size() <= b.size() ? p.size() : 0);
      if (!vocab.contains(joined)) vocab[joined] = next++;
      merges.push_back(a + " " + b);
    };
    add_merge("t", p + "h");
    add_merge("th", p + "e");
    if (!s.empty()) add_merge("th", p + "e" + s);
    add_merge("a", p + "b");
    return json{{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", "<unk>"},
                {"continuing_subword_prefix", prefix},
                {"end_of_word_suffix", suffix},
                {"fuse_unk", fuse_unk},
                {"byte_fallback", byte_fallback},
                {"ignore_merges", false},
                {"vocab", vocab},
                {"merges", merges}};
  };
  json ws = split("Regex", R"(\s+)", "Removed", false);
  check_configs({{"byte_fallback", tokenizer_json(model(true, false, nullptr, nullptr), nullptr, ws)},
                 {"unk", tokenizer_json(model(false, false, nullptr, nullptr), nullptr, ws)},
                 {"unk_fused", tokenizer_json(model(false, true, nullptr, nullptr), nullptr, ws)},
                 {"no_pre_tokenizer", tokenizer_json(model(true, true, nullptr, nullptr), nullptr, nullptr)},
                 {"prefix_suffix", tokenizer_json(model(false, true, "##", "</w>"), nullptr, ws)}},
                texts_with({"the", "then", "abab", "xyz", "THE", "été", "日本語 the",
                            "a\xff"
                            "b",
                            "the\u00e9e", "t h e"}));
}

}  // namespace
}  // namespace openrecipes::rows
