// Tests for src/rows/source/jsonl_line (SPEC §1.1): the simdjson fast path never accepts what the reference parser
// refuses, and gives the same messages when it accepts; the real fixture takes the fast path; each kind of line the
// fast path leaves to the reference parser is decided there as before.
#include "rows/source/jsonl_line.h"

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

using Owned = std::vector<std::pair<std::string, std::string>>;

// The reference parser's verdict: the messages, or the error's text.
struct Verdict {
  bool ok = false;
  Owned messages;
  std::string error;
};

Verdict reference(std::string_view line) {
  Verdict v;
  try {
    parse_jsonl_line("f.jsonl:1", line, v.messages);
    v.ok = true;
  } catch (const InputError& e) {
    v.error = e.what();
  }
  return v;
}

// The fast path on `line` (copied into a buffer with simdjson's padding after it): true and the messages, or false.
bool fast(JsonlLineParser& parser, std::string_view line, Owned& out) {
  std::string buffer(line);
  buffer.reserve(line.size() + simdjson::SIMDJSON_PADDING);
  std::vector<MessageView> views;
  if (!parser.parse_fast(std::string_view(buffer.data(), line.size()), views)) return false;
  out.clear();
  for (const auto& m : views) out.emplace_back(std::string(m.role), std::string(m.content));
  return true;
}

// The contract: whatever the fast path accepts, the reference accepts with the same messages.
void expect_agree(JsonlLineParser& parser, std::string_view line) {
  Owned got;
  if (!fast(parser, line, got)) return;
  Verdict ref = reference(line);
  ASSERT_TRUE(ref.ok) << "the fast path accepted a line the reference refuses (" << ref.error << "): " << line;
  EXPECT_EQ(got, ref.messages) << line;
}

TEST(JsonlLine, every_fixture_line_takes_the_fast_path_with_the_reference_messages) {
  const auto path = testing::fixtures_dir() / "tulu3" / "sft_sample.jsonl";
  OPENRECIPES_REQUIRE_FIXTURE_FILE(path);
  std::ifstream in(path);
  JsonlLineParser parser;
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    Owned got;
    ASSERT_TRUE(fast(parser, line, got)) << "line " << lines + 1;
    Verdict ref = reference(line);
    ASSERT_TRUE(ref.ok);
    EXPECT_EQ(got, ref.messages);
    ++lines;
  }
  EXPECT_EQ(lines, 100);
}

TEST(JsonlLine, lines_the_fast_path_leaves_to_the_reference_are_decided_there) {
  JsonlLineParser parser;
  struct Case {
    std::string line;
    bool reference_accepts;
    const char* error;  // part of the reference's message when it refuses
  };
  const std::string m = R"([{"role":"user","content":"hi"}])";
  const std::vector<Case> cases = {
      {R"({"messages":)" + m + R"(,"messages":[]})", true, ""},  // a key twice: nlohmann keeps the last
      {R"({"messages":[{"role":"user","role":"x","content":"hi"}]})", true, ""},
      {"\xEF\xBB\xBF{\"messages\":" + m + "}", true, ""},                                        // a byte-order mark
      {R"({"messages":[{"role":"user","content":"\ud800"}]})", false, "not valid JSON"},         // lone surrogate
      {"{\"messages\":[{\"role\":\"user\",\"content\":\"a\x01b\"}]}", false, "not valid JSON"},  // raw control
      {"{\"messages\":[{\"role\":\"user\",\"content\":\"a\tb\"}]}", false, "not valid JSON"},
      {R"({"messages":)" + m + R"(,"x":[[[[[[[[[1]]]]]]]]]})", true, ""},  // deeper than the fast path's 8
      {R"({"messages":)" + m + R"(,"x":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]})", false, "nested deeper than 16"},
      {R"({"messages":)" + m + R"(,"x":1e400})", false, "not valid JSON"},
      {R"({"messages":)" + m + R"(,"x":18446744073709551616})", true, ""},
      {R"({"messages":null})", false, "messages is null"},
      {R"({"messages":[{"role":"user","content":null}]})", false, "messages[0].content is null"},
      {R"({"messages":[{"role":"user","content":"hi","name":"x"}]})", false, "has a field `name`"},
      {R"({"messages":[{"role":"user","content":7}]})", false, "expected a string"},
      {R"({"messages":[{"role":"user"}]})", false, "messages[0].content is missing"},
      {R"({"messages":{}})", false, "expected a list"},
      {R"([1,2])", false, "not an object"},
      {R"({"no":1})", false, "no `messages` key"},
      {R"({"messages":)" + m + "} x", false, "not valid JSON"},
      {"{\"messages\":[{\"role\":\"user\",\"content\":\"\xC3\x28\"}]}", false, "not valid UTF-8"},
      {"{\"messages\":[{\"role\":\"user\",\"content\":\"\xED\xA0\x80\"}]}", false, "not valid UTF-8"},
  };
  for (const auto& c : cases) {
    Owned got;
    EXPECT_FALSE(fast(parser, c.line, got)) << c.line;
    Verdict ref = reference(c.line);
    EXPECT_EQ(ref.ok, c.reference_accepts) << c.line << ": " << ref.error;
    if (!c.reference_accepts) {
      EXPECT_THAT(ref.error, ::testing::HasSubstr(c.error)) << c.line;
    }
  }
}

TEST(JsonlLine, escapes_and_empty_strings_read_the_same_on_both_paths) {
  JsonlLineParser parser;
  const std::string line = R"({"id":"x","messages":[{"role":"user","content":"a\"b\\c\/d\n\u00e9\u0000\ud83d\ude00"},)"
                           R"({"role":"assistant","content":""}],"source":null,"n":-0.5e-3,"t":[true,false,{}]})";
  Owned got;
  ASSERT_TRUE(fast(parser, line, got));
  Verdict ref = reference(line);
  ASSERT_TRUE(ref.ok);
  EXPECT_EQ(got, ref.messages);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].second, std::string("a\"b\\c/d\n\xC3\xA9") + std::string(1, '\0') + "\xF0\x9F\x98\x80");
  EXPECT_EQ(got[1].second, "");
}

TEST(JsonlLine, ten_thousand_mutated_lines_never_make_the_fast_path_accept_what_the_reference_refuses) {
  JsonlLineParser parser;
  const std::string seed_line =
      R"({"messages":[{"role":"user","content":"What is 2+2? \u00e9"},{"role":"assistant","content":"4"}],)"
      R"("id":"a1","source":"tulu"})";
  std::mt19937_64 rng(20261202);
  const std::string alphabet = "{}[]\":,\\ u0123456789abcdefnrtl-+.eE\x01\x7f\xc3\xa9\xed\xa0\x80\xff";
  int accepted = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string line = seed_line;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !line.empty(); ++e) {
      const std::size_t at = rng() % line.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          line[at] = c;
          break;
        case 1:
          line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          line.erase(at, 1);
      }
    }
    Owned got;
    if (fast(parser, line, got)) ++accepted;
    expect_agree(parser, line);
  }
  EXPECT_GT(accepted, 100);  // the mutations also reach lines the fast path accepts
}

}  // namespace
}  // namespace openrecipes::rows
