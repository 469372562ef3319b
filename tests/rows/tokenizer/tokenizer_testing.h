// Shared helpers for the tokenizer tests (SPEC §1.3): the three fixture tokenizers, loaded once per test
// binary, and the tokenizers 0.23.2 oracle (tests/oracles/tokenize.js) run once per batch of requests.
// Header-only: each test file of the folder is a *_test.cpp and only those are compiled.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/utf8.h"
#include "rows/tokenizer/tokenizer.h"
#include "testing/support.h"

namespace openrecipes::testing::tokenizer {

/// The smallest valid tokenizer.json: byte-level BPE over "a", "b", "ab" with the one merge "a b".
inline nlohmann::json minimal_tokenizer_json() {
  return nlohmann::json::parse(R"({
    "version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true},
    "post_processor": null, "decoder": null,
    "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
              "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false,
              "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}})");
}

/// One oracle request: a tokenizer.json and a text given as raw bytes (sent base64; the oracle decodes them
/// lossily as Node's Buffer.toString('utf8')).
struct OracleRequest {
  std::filesystem::path tokenizer;
  std::string bytes;
};

inline std::filesystem::path fixture_tokenizer_path(const std::string& name) {
  return fixtures_dir() / "tokenizers" / name / "tokenizer.json";
}

inline const rows::Tokenizer& fixture_tokenizer(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<rows::Tokenizer>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[name];
  if (!slot) slot = std::make_unique<rows::Tokenizer>(rows::Tokenizer::load(fixture_tokenizer_path(name)));
  return *slot;
}

namespace detail {
inline std::string base64(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += t[(v >> 6) & 63];
    out += t[v & 63];
  }
  if (i + 1 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16;
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += t[(v >> 6) & 63];
    out += '=';
  }
  return out;
}
}  // namespace detail

inline std::vector<std::vector<std::int32_t>> oracle_encode(const std::vector<OracleRequest>& requests) {
  std::string input;
  for (const auto& r : requests) {
    nlohmann::json j = {{"tokenizer", r.tokenizer.string()}, {"b64", detail::base64(r.bytes)}};
    input += j.dump();
    input += '\n';
  }
  ProcessResult pr = run_process(
      {"node", (source_dir() / "tests" / "oracles" / "tokenize.js").string(), oracle_node_modules().string()}, input);
  if (pr.exit_code != 0) {
    ADD_FAILURE() << "oracle failed (exit " << pr.exit_code << "): " << pr.err.substr(0, 2000);
    return {};
  }
  std::vector<std::vector<std::int32_t>> out;
  std::istringstream lines(pr.out);
  std::string line;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("error")) {
      ADD_FAILURE() << "oracle error: " << j["error"];
      out.emplace_back();
    } else {
      out.push_back(j["ids"].get<std::vector<std::int32_t>>());
    }
  }
  if (out.size() != requests.size()) {
    ADD_FAILURE() << "oracle answered " << out.size() << " of " << requests.size() << " requests";
    return {};
  }
  return out;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// splitmix64: a fixed, portable generator (std distributions differ between standard libraries).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

inline std::string utf8(char32_t c) {
  std::string s;
  openrecipes::append_utf8(s, c);
  return s;
}

// Fragments that stress the pre-tokenizers, normalizers and added-token matching.
inline const std::vector<std::string>& fragments() {
  static const std::vector<std::string> f = {
      // words, case, contractions (incl. U+017F long s and the curly apostrophe)
      "hello",
      "World",
      "HTTPServer",
      "don't",
      "DON'T",
      "we'LL",
      "I'M",
      "they'Ve",
      "it'ſ",
      "it's",
      "it’s",
      "'s",
      "'S",
      "'ll",
      "'RE",
      "'d",
      "'t",
      "''",
      "'",
      "'x",
      "o'clock",
      "x'",
      "ſ",
      "ß",
      "ẞ",
      "İ",
      "ı",
      "ﬅ",
      "ﬆ",
      "K",
      "Å",
      "ǅ",
      "Ω",
      "ﬁ",
      "café",
      "naïve",
      // digits, non-ASCII digits, number-like symbols
      "0",
      "7",
      "42",
      "123",
      "1234567",
      "3.14159",
      "1,000,000",
      "٠١٢٣٤٥",
      "१२३",
      "１２３",
      "²³",
      "½",
      "Ⅻ",
      "①",
      "𝟘𝟙",
      // spaces and line breaks
      " ",
      "  ",
      "   ",
      "\t",
      "\n",
      "\n\n",
      "\r\n",
      "\r",
      " \n ",
      "\u00a0",
      "\u2000",
      "\u2001\u2002",
      "\u2003",
      "\u2004\u2005\u2006",
      "\u2007",
      "\u2008",
      "\u2009",
      "\u200a",
      "\u3000",
      "\u0085",
      "\u2028",
      "\u2029",
      "\u202f",
      "\u205f",
      "\u1680",
      "\u180e",
      "\u200b",
      "\f",
      "\v",
      "          ",
      "\t\t\t",
      "\n\n\n\n",
      // CJK, kana, Hangul (syllables and jamo)
      "中文",
      "汉字测试",
      "日本語",
      "ひらがな",
      "カタカナ",
      "ｶﾀｶﾅ",
      "한국어",
      "\u1100\u1161\u11a8",
      "\u1100\u1161",
      "각\u11a8",
      "龥龦",
      "〇",
      "々",
      // emoji, ZWJ sequences, flags, skin tones, keycaps, variation selectors
      "😀",
      "👨‍👩‍👧‍👦",
      "👩🏽‍💻",
      "🇺🇸",
      "🇯🇵",
      "👍🏽",
      "1️⃣",
      "❤️",
      "☺︎",
      "🏳️‍🌈",
      "\u200d",
      "\u200c",
      "\ufe0f",
      // combining marks (order, composition), Hangul composition
      "e\u0301",
      "a\u0308\u0301",
      "\u0301",
      "o\u0323\u0302",
      "o\u0302\u0323",
      "\u0345",
      "A\u030a",
      "\u212b",
      "\u0344",
      "\u0f73",
      "q\u0307\u0323",
      "\u1e0b\u0323",
      "\u0958",
      "\u2adc",
      "\u0b47\u0b3e",
      // characters newer than Unicode 9.0 (normalization) and 15.1/16.0 (regex classes)
      "\u0898a",
      "a\u0898\u0316",
      "\u1dfa",
      "x\U00010efd\u0301",
      "\U0001e030",
      "\U0001e08f",
      "\U0002ebf0",
      "\u31ef",
      "\u2ffc",
      "\u1c89",
      "\U00010d40",
      "\u0870",
      "\U00011f00",
      // controls and format characters
      "\x01",
      "\x1b[0m",
      "\x7f",
      "\u00ad",
      "\ufeff",
      "\u200e",
      "\u2066",
      "\ue000",
      "\U000f0000",
      "\ufffd",
      // punctuation and symbols
      "!",
      "!!!",
      "...",
      "?!",
      "—",
      "–",
      "«",
      "»",
      "\"",
      "``",
      "```",
      "<<",
      ">>=",
      "{}",
      "[]",
      "()",
      "#",
      "@",
      "$",
      "%",
      "^",
      "&&",
      "*",
      "\\",
      "/",
      "|",
      "~",
      "_",
      "+=",
      "•",
      "©",
      "™",
      "€",
      "¥",
      "→",
      "∑",
      "≤",
      // other scripts
      "Привет",
      "мир",
      "Ελληνικά",
      "مرحبا",
      "עברית",
      "ภาษาไทย",
      "हिन्दी",
      "தமிழ்",
      "ქართული",
      "Հայերեն",
      "አማርኛ",
      // special-token text, whole and partial
      "<|im_end|>",
      "<|im_start|>",
      "<|endoftext|>",
      "<think>",
      "</think>",
      "<|eot_id|>",
      "<|begin_of_text|>",
      "<|start_header_id|>",
      "<|end_header_id|>",
      "<|reserved_special_token_5|>",
      "<｜end▁of▁sentence｜>",
      "<｜begin▁of▁sentence｜>",
      "<｜User｜>",
      "<｜Assistant｜>",
      "<｜tool▁sep｜>",
      "<|im_",
      "end|>",
      "<|",
      "|>",
      "<｜end▁of",
      "▁",
      "<think",
      "think>",
      "<|<|im_end|>",
      "<|im_end|>|>",
      // invalid UTF-8 (lossy)
      "\xff",
      "\xfe\xfe",
      "\xc3",
      "\xe2\x82",
      "\xed\xa0\x80",
      "\xf4\x90\x80\x80",
      "\xc0\xaf",
      "\x80",
      "\xe0\x80\x80",
      "\xf0\x9f\x98",
      "a\xc3(b",
      "\xf8\x88\x80\x80\x80",
  };
  return f;
}

inline std::string random_code_point(Rng& rng) {
  static const std::pair<char32_t, char32_t> ranges[] = {
      {0x20, 0x7e},     {0xa0, 0x24f},      {0x300, 0x36f},     {0x370, 0x52f},    {0x591, 0x6ff},   {0x900, 0xdff},
      {0x1100, 0x11ff}, {0x1e00, 0x1fff},   {0x2000, 0x2bff},   {0x3000, 0x30ff},  {0x4e00, 0x9fff}, {0xac00, 0xd7a3},
      {0xf900, 0xfffd}, {0x10000, 0x1ffff}, {0x20000, 0x2ffff}, {0xe0000, 0xe01ef}};
  const auto& r = ranges[rng.below(std::size(ranges))];
  char32_t c = r.first + static_cast<char32_t>(rng.below(r.second - r.first + 1));
  return utf8(c);
}

inline std::string random_text(Rng& rng) {
  const auto& f = fragments();
  std::size_t parts = 1 + rng.below(rng.below(10) == 0 ? 60 : 10);
  std::string s;
  for (std::size_t i = 0; i < parts; ++i) {
    switch (rng.below(6)) {
      case 0:
        s += random_code_point(rng);
        break;
      case 1:
        s += " ";
        [[fallthrough]];
      default:
        s += f[rng.below(f.size())];
    }
  }
  if (rng.below(50) == 0) s = std::string(1 + rng.below(300), rng.below(2) ? ' ' : '\n') + s;  // long runs
  return s;
}

}  // namespace openrecipes::testing::tokenizer
