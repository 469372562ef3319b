// Tests for src/rows/source/source_reader (SPEC §1.1): parquet shards built here with DuckDB from the real Tulu 3
// fixture read back exactly as the JSONL holds them, shard order by file name, and each kind of bad input.
#include "rows/source/source_reader.h"

#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/sha256.h"
#include "db/duckdb_session.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {

namespace fs = std::filesystem;
using openrecipes::testing::fixtures_dir;
using openrecipes::testing::TempDir;
using ::testing::HasSubstr;

fs::path fixture_jsonl() { return fixtures_dir() / "tulu3" / "sft_sample.jsonl"; }

// The fixture parsed independently of the reader: one Conversation per line.
std::vector<Conversation> fixture_conversations() {
  std::vector<Conversation> out;
  std::ifstream in(fixture_jsonl());
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    Conversation c;
    for (auto& m : j["messages"]) c.push_back(Message{m["role"].get<std::string>(), m["content"].get<std::string>()});
    out.push_back(std::move(c));
  }
  return out;
}

// Writes rows [begin, end) of `rows` (each a JSON messages array) to a parquet shard, with `id` and `source`
// columns around `messages` as the Hugging Face shards have them, in small row groups.
void write_shard(db::DuckDbSession& db, const fs::path& path, const std::vector<nlohmann::json>& rows,
                 std::size_t begin, std::size_t end) {
  db.query(
      "CREATE OR REPLACE TABLE t (rn INTEGER, id VARCHAR, messages STRUCT(content VARCHAR, role VARCHAR)[], "
      "source VARCHAR)");
  for (std::size_t i = begin; i < end; ++i)
    db.query(
        fmt::format("INSERT INTO t VALUES ({}, 'id{}', json_transform({}, '[{{\"content\":\"VARCHAR\",\"role\":"
                    "\"VARCHAR\"}}]'), 'fixture')",
                    i, i, db::sql_literal(rows[i].dump(-1, ' ', false))));
  db.query(
      fmt::format("COPY (SELECT id, messages, source FROM t ORDER BY rn) TO {} (FORMAT parquet, ROW_GROUP_SIZE 16)",
                  db::sql_literal(path.string())));
}

std::vector<nlohmann::json> fixture_messages_json() {
  std::vector<nlohmann::json> out;
  std::ifstream in(fixture_jsonl());
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line)["messages"]);
  return out;
}

std::vector<Conversation> read_all(const SourceSet& set) {
  std::vector<Conversation> out;
  set.read_each([&](std::uint64_t index, ConversationView c) {
    EXPECT_EQ(index, out.size());
    out.push_back(to_conversation(c));
  });
  return out;
}

std::string error_of(const std::vector<fs::path>& files, bool read = true) {
  return testing::message_of([&] {
    auto set = SourceSet::open(files);
    if (read) set.read_each([](std::uint64_t, ConversationView) {});
  });
}

// One shard from SQL (for bad schemas and values).
fs::path shard_from_sql(const TempDir& tmp, const std::string& name, const std::string& select) {
  db::DuckDbSession db(1);
  fs::path p = tmp / name;
  db.query(fmt::format("COPY ({}) TO {} (FORMAT parquet)", select, db::sql_literal(p.string())));
  return p;
}

TEST(SourceReader, parquet_shards_read_back_exactly_as_the_jsonl_fixture_in_file_name_order) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir tmp;
  auto rows = fixture_messages_json();
  ASSERT_EQ(rows.size(), 100u);
  {
    db::DuckDbSession db(1);
    // Byte order puts part-10 before part-2: rows 0..39 go to part-10, 40..99 to part-2.
    write_shard(db, tmp / "part-10.parquet", rows, 0, 40);
    write_shard(db, tmp / "part-2.parquet", rows, 40, 100);
  }
  auto set = SourceSet::open({tmp / "part-2.parquet", tmp / "part-10.parquet"});
  ASSERT_EQ(set.size(), 100u);
  ASSERT_EQ(set.shards().size(), 2u);
  EXPECT_EQ(set.shards()[0].name, "part-10.parquet");
  EXPECT_EQ(set.shards()[0].conversations, 40u);
  EXPECT_EQ(set.shards()[0].first_index, 0u);
  EXPECT_EQ(set.shards()[1].name, "part-2.parquet");
  EXPECT_EQ(set.shards()[1].first_index, 40u);
  auto expected = fixture_conversations();
  EXPECT_EQ(read_all(set), expected);

  auto arena = set.load_all();
  ASSERT_EQ(arena.size(), 100u);
  for (std::size_t i : {99u, 0u, 57u, 40u, 39u}) EXPECT_EQ(to_conversation(arena[i]), expected[i]) << i;
  std::uint64_t text = 0, messages = 0;
  for (const auto& c : expected)
    for (const auto& m : c) text += m.role.size() + m.content.size(), ++messages;
  EXPECT_EQ(arena.text_bytes(), text);
  EXPECT_EQ(arena.message_count(), messages);
}

TEST(SourceReader, jsonl_fixture_reads_as_its_lines) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto set = SourceSet::open({fixture_jsonl()});
  EXPECT_EQ(set.size(), 100u);
  EXPECT_EQ(read_all(set), fixture_conversations());
}

TEST(SourceReader, mixed_parquet_and_jsonl_follow_file_names_and_sha256_is_of_the_file_bytes) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir tmp;
  auto rows = fixture_messages_json();
  {
    db::DuckDbSession db(1);
    write_shard(db, tmp / "b.parquet", rows, 0, 10);
  }
  // a.jsonl: the fixture's last two lines, with a blank line and CRLF endings (both tolerated).
  std::ifstream in(fixture_jsonl());
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto a = tmp.write("a.jsonl", lines[98] + "\r\n\n   \n" + lines[99] + "\r\n");
  auto set = SourceSet::open({tmp / "b.parquet", a});
  ASSERT_EQ(set.size(), 12u);
  auto got = read_all(set);
  auto expected = fixture_conversations();
  EXPECT_EQ(got[0], expected[98]);
  EXPECT_EQ(got[1], expected[99]);
  EXPECT_EQ(got[2], expected[0]);
  EXPECT_EQ(got[11], expected[9]);
  set.compute_sha256();
  EXPECT_EQ(set.shards()[0].sha256, sha256_hex(read_file(a)));
  EXPECT_EQ(set.shards()[1].sha256, sha256_hex(read_file(tmp / "b.parquet", 1ull << 30)));
  EXPECT_EQ(set.shards()[1].bytes, fs::file_size(tmp / "b.parquet"));
}

TEST(SourceReader, empty_message_list_is_a_conversation_with_no_messages) {
  TempDir tmp;
  auto p = tmp.write("e.jsonl", "{\"messages\": []}\n{\"messages\": [{\"role\": \"user\", \"content\": \"\"}]}\n");
  auto got = read_all(SourceSet::open({p}));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[0].empty());
  EXPECT_EQ(got[1], (Conversation{{"user", ""}}));
}

TEST(SourceReader, missing_file_is_an_input_error_naming_it) {
  TempDir tmp;
  EXPECT_THAT(error_of({tmp / "nope.parquet"}), HasSubstr("nope.parquet: file not found"));
}

TEST(SourceReader, garbage_and_truncated_parquet_are_input_errors_naming_the_file) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir tmp;
  auto g = tmp.write("garbage.parquet", std::string(5000, 'x'));
  auto e = error_of({g});
  EXPECT_THAT(e, HasSubstr("garbage.parquet"));
  EXPECT_THAT(e, HasSubstr("cannot read the parquet file"));
  EXPECT_THAT(e, HasSubstr("download the shard again"));
  EXPECT_THAT(e, ::testing::Not(HasSubstr("LINE 1:")));  // DuckDB's echo of our SQL is not the user's business
  EXPECT_THAT(e, ::testing::Not(HasSubstr("read_parquet(")));
  {
    db::DuckDbSession db(1);
    write_shard(db, tmp / "full.parquet", fixture_messages_json(), 0, 100);
  }
  std::string bytes = read_file(tmp / "full.parquet", 1ull << 30);
  auto t = tmp.write("truncated.parquet", bytes.substr(0, bytes.size() / 2));
  e = error_of({t});
  EXPECT_THAT(e, HasSubstr("truncated.parquet"));
  EXPECT_THAT(e, HasSubstr("cannot read the parquet file"));
  // Garbage in the middle (the data pages) while the footer stays intact: an error while reading rows.
  std::string mid = bytes;
  for (std::size_t i = 64; i < mid.size() / 2; ++i) mid[i] = static_cast<char>(i * 7);
  auto m = tmp.write("mangled.parquet", mid);
  e = error_of({m});
  EXPECT_THAT(e, HasSubstr("mangled.parquet"));
}

TEST(SourceReader, schema_without_messages_column_names_the_columns_it_found) {
  TempDir tmp;
  auto p = shard_from_sql(tmp, "nomsg.parquet", "SELECT 'a' AS id, 'b' AS text");
  auto e = error_of({p}, false);
  EXPECT_THAT(e, HasSubstr("nomsg.parquet: no `messages` column (the file has: id VARCHAR, text VARCHAR)"));
}

TEST(SourceReader, messages_of_the_wrong_type_are_refused_with_the_expected_type) {
  TempDir tmp;
  for (const auto& [name, select] : std::vector<std::pair<std::string, std::string>>{
           {"string.parquet", "SELECT 'hi' AS messages"},
           {"intcontent.parquet", "SELECT [{'content': 1, 'role': 'user'}] AS messages"},
           {"struct.parquet", "SELECT {'content': 'a', 'role': 'user'} AS messages"},
           {"ints.parquet", "SELECT [1, 2] AS messages"},
           {"norole.parquet", "SELECT [{'content': 'a'}] AS messages"}}) {
    auto e = error_of({shard_from_sql(tmp, name, select)}, false);
    EXPECT_THAT(e, HasSubstr(name + ": column `messages` has type")) << name;
    EXPECT_THAT(e, HasSubstr("expected list<struct<content: string, role: string>>")) << name;
  }
  auto e = error_of(
      {shard_from_sql(tmp, "extra.parquet", "SELECT [{'content': 'a', 'role': 'user', 'name': 'bob'}] AS messages")},
      false);
  EXPECT_THAT(e, HasSubstr("extra.parquet: messages carry a field `name`"));
}

TEST(SourceReader, null_messages_role_or_content_name_the_file_and_row) {
  TempDir tmp;
  const std::string good = "[{'content': 'a', 'role': 'user'}]::STRUCT(content VARCHAR, role VARCHAR)[]";
  struct Case {
    std::string name, bad, expect;
  };
  for (const auto& c : std::vector<Case>{
           {"nullrole.parquet", "[{'content': 'x', 'role': NULL}]", "row 2: messages[0].role is null"},
           {"nullcontent.parquet", "[{'content': 'x', 'role': 'user'}, {'content': NULL, 'role': 'assistant'}]",
            "row 2: messages[1].content is null"},
           {"nulllist.parquet", "NULL", "row 2: messages is null"},
           {"nullitem.parquet", "[NULL]", "row 2: messages[0] is null"}}) {
    auto p = shard_from_sql(
        tmp, c.name,
        fmt::format(
            "SELECT messages FROM (VALUES (0, {0}), (1, {0}), (2, {1}::STRUCT(content VARCHAR, role VARCHAR)[])) "
            "v(i, messages) ORDER BY i",
            good, c.bad));
    auto e = error_of({p});
    EXPECT_THAT(e, HasSubstr(c.name + ": " + c.expect)) << e;
  }
}

TEST(SourceReader, invalid_utf8_in_a_parquet_string_is_an_input_error_naming_the_file) {
  TempDir tmp;
  auto good = shard_from_sql(tmp, "a.parquet", "SELECT [{'content': 'ok', 'role': 'user'}] AS messages");
  // DuckDB cannot write invalid UTF-8, so write a marker uncompressed and patch its bytes in the file: a bad
  // continuation, a surrogate (U+D800), an overlong '/', and a code point above U+10FFFF.
  for (const std::string& bad : {std::string("\xC3(\xFF\xFE"), std::string("\xED\xA0\x80Q"), std::string("\xC0\xAFQQ"),
                                 std::string("\xF4\x90\x80\x80")}) {
    fs::path q = tmp / "utf8.parquet";
    {
      db::DuckDbSession db(1);
      db.query(
          fmt::format("COPY (SELECT [{{'content': 'hello QQQQ world', 'role': 'user'}}] AS messages) TO {} "
                      "(FORMAT parquet, COMPRESSION uncompressed)",
                      db::sql_literal(q.string())));
    }
    std::string bytes = read_file(q);
    std::size_t at, count = 0;
    while ((at = bytes.find("QQQQ")) != std::string::npos) bytes.replace(at, 4, bad), ++count;
    ASSERT_GE(count, 1u);
    write_file_atomic(q, bytes);
    auto e = error_of({good, q});
    EXPECT_THAT(e, HasSubstr("utf8.parquet: row 0"));
    EXPECT_THAT(e, HasSubstr("is not valid UTF8"));
    EXPECT_THAT(e, HasSubstr("not valid UTF-8: fix or drop that row"));
  }
}

TEST(SourceReader, bad_jsonl_lines_are_input_errors_naming_file_and_line) {
  TempDir tmp;
  const std::string ok = "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n";
  struct Case {
    std::string line, expect;
  };
  for (const auto& c : std::vector<Case>{
           {"{\"messages\": [{\"role\": \"user\", \"content\": \"caf\xC3\"}]}",
            "bad.jsonl:3: not valid UTF-8 at byte 46 (0xC3 0x22"},
           {"{\"messages\": [{\"role\": \"user\", \"content\": \"\xED\xA0\x80\"}]}",
            "bad.jsonl:3: not valid UTF-8 at byte 43 (0xED 0xA0 0x80"},
           {"{\"messages\": [", "bad.jsonl:3: not valid JSON"},
           {"[1, 2]", "bad.jsonl:3: the line is a JSON array, not an object"},
           {"{\"msgs\": []}", "bad.jsonl:3: no `messages` key"},
           {"{\"messages\": null}", "bad.jsonl:3: messages is null"},
           {"{\"messages\": \"hi\"}", "bad.jsonl:3: messages is a JSON string, expected a list"},
           {"{\"messages\": [{\"role\": \"user\", \"content\": null}]}", "bad.jsonl:3: messages[0].content is null"},
           {"{\"messages\": [{\"content\": \"x\"}]}", "bad.jsonl:3: messages[0].role is missing"},
           {"{\"messages\": [{\"role\": \"user\", \"content\": 5}]}",
            "bad.jsonl:3: messages[0].content is a JSON number, expected a string"},
           {"{\"messages\": [{\"role\": \"user\", \"content\": \"x\", \"name\": \"n\"}]}",
            "bad.jsonl:3: messages[0] has a field `name`"},
           {"{\"messages\": [7]}", "bad.jsonl:3: messages[0] is a JSON number, expected an object"},
           {"{\"messages\": [], \"x\": " + std::string(40, '[') + std::string(40, ']') + "}",
            "nested deeper than 16 levels"},
       }) {
    auto p = tmp.write("bad.jsonl", ok + "\n" + c.line + "\n" + ok);
    EXPECT_THAT(error_of({p}), HasSubstr(c.expect)) << c.line;
  }
}

// A JSONL file of about 18 MB (three of the reader's 8 MiB chunks, cut between lines wherever they fall) with blank
// lines, CRLF line ends and no line feed after the last line; line `bad` (1-based; 0: none) is not JSON.
std::string long_jsonl(std::vector<Conversation>& expected, std::uint64_t bad = 0) {
  std::string text;
  expected.clear();
  std::uint64_t line = 0;
  for (int i = 0; i < 9000; ++i) {
    ++line;
    if (i % 97 == 5) {
      text += i % 2 ? "   \r\n" : "\n";  // a blank line
      ++line;
    }
    Conversation c{{"user", fmt::format("question {} {}", i, std::string(900 + i % 211, 'q'))},
                   {"assistant", fmt::format("answer {} {}", i, std::string(1000 + i % 173, 'a'))}};
    nlohmann::json row = {{"messages", nlohmann::json::array()}, {"id", i}};
    for (const auto& m : c) row["messages"].push_back({{"role", m.role}, {"content", m.content}});
    text += line == bad ? std::string("{\"messages\": [oops]}") : row.dump();
    text += i == 8999 ? "" : (i % 3 ? "\n" : "\r\n");
    expected.push_back(std::move(c));
  }
  return text;
}

TEST(SourceReader, a_jsonl_file_of_several_chunks_reads_every_row_in_order) {
  TempDir tmp;
  std::vector<Conversation> expected;
  auto p = tmp.write("long.jsonl", long_jsonl(expected));
  ASSERT_GT(fs::file_size(p), 16u << 20);
  for (unsigned threads : {1u, 3u}) {
    auto set = SourceSet::open({p}, threads);
    ASSERT_EQ(set.size(), expected.size());
    auto arena = set.load_all();
    ASSERT_EQ(arena.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(to_conversation(arena[i]), expected[i]) << i;
    std::uint64_t next = 0;
    set.read_each([&](std::uint64_t index, ConversationView c) {
      ASSERT_EQ(index, next++);
      ASSERT_EQ(to_conversation(c), expected[index]);
    });
    EXPECT_EQ(next, expected.size());
  }
}

TEST(SourceReader, a_bad_line_in_a_later_chunk_is_named_by_its_line_number) {
  TempDir tmp;
  std::vector<Conversation> expected;
  // Line 8123 of the file (blank lines counted) lies in the third chunk.
  auto p = tmp.write("long.jsonl", long_jsonl(expected, 8123));
  EXPECT_THAT(error_of({p}), HasSubstr("long.jsonl:8123: not valid JSON"));
}

TEST(SourceReader, message_over_64_mib_is_refused) {
  TempDir tmp;
  std::string big(kMaxMessageBytes + 1, 'a');
  auto p = tmp.write("big.jsonl", "{\"messages\": [{\"role\": \"user\", \"content\": \"" + big + "\"}]}\n");
  EXPECT_THAT(error_of({p}),
              HasSubstr("big.jsonl:1: messages[0].content is 67108865 bytes, over the limit of 67108864"));
}

TEST(SourceReader, duplicate_file_names_and_unknown_extensions_are_refused) {
  TempDir tmp;
  auto a = tmp.write("x/s.jsonl", "{\"messages\": []}\n");
  auto b = tmp.write("y/s.jsonl", "{\"messages\": []}\n");
  EXPECT_THAT(error_of({a, b}), HasSubstr("two sources have the file name 's.jsonl'"));
  auto c = tmp.write("s.csv", "a,b\n");
  EXPECT_THAT(error_of({c}), HasSubstr("s.csv: unknown source format '.csv'"));
  EXPECT_THAT(error_of({}), HasSubstr("no source files given"));
}

TEST(SourceReader, file_names_with_glob_characters_are_refused_before_duckdb_sees_them) {
  TempDir tmp;
  auto p = shard_from_sql(tmp, "ok.parquet", "SELECT [{'content': 'a', 'role': 'user'}] AS messages");
  fs::copy_file(p, tmp / "a[1].parquet");
  EXPECT_THAT(error_of({tmp / "a[1].parquet"}), HasSubstr("DuckDB reads as a file pattern"));
}

}  // namespace
}  // namespace openrecipes::rows
