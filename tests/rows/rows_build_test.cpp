// The whole rows build (SPEC §1) against an independent reference (tests/oracles/rows_build_reference.py: Jinja2 +
// tokenizers 0.23.2 + numpy), the golden renders, determinism across thread counts, and its bad-input cases.
#include "rows/rows_build.h"
#include "rows/tokenizer/bpe.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "core/sha256.h"
#include "rows/source/source_reader.h"
#include "testing/support.h"

namespace openrecipes::rows {
namespace {
namespace fs = std::filesystem;
using testing::fixtures_dir;
using testing::TempDir;

fs::path tulu() { return fixtures_dir() / "tulu3/sft_sample.jsonl"; }
fs::path tokdir(const char* name) { return fixtures_dir() / "tokenizers" / name; }

struct Case {
  const char* tokenizer;
  std::uint32_t row_length;
  std::uint64_t seed;
  std::optional<std::uint64_t> rows;
  std::optional<fs::path> config, chat_template;
};

RowsBuildOptions options_for(const Case& c, const fs::path& out, unsigned threads = 2) {
  RowsBuildOptions o;
  o.sources = {tulu()};
  o.tokenizer.dir = tokdir(c.tokenizer);
  o.tokenizer.tokenizer_config = c.config;
  o.tokenizer.chat_template = c.chat_template;
  o.row_length = c.row_length;
  o.seed = c.seed;
  o.rows = c.rows;
  o.threads = threads;
  o.output = out;
  return o;
}

nlohmann::json reference(const Case& c) {
  std::vector<std::string> argv{testing::oracle_python(),
                                (testing::source_dir() / "tests/oracles/rows_build_reference.py").string(),
                                tulu().string(),
                                tokdir(c.tokenizer).string(),
                                std::to_string(c.row_length),
                                std::to_string(c.seed)};
  if (c.rows) argv.push_back(std::to_string(*c.rows));
  if (c.config) argv.insert(argv.end(), {"--config", c.config->string()});
  if (c.chat_template) argv.insert(argv.end(), {"--template", c.chat_template->string()});
  auto r = testing::run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

void expect_reference(const Case& c) {
  SCOPED_TRACE(fmt::format("{} L={} seed={} rows={}", c.tokenizer, c.row_length, c.seed, c.rows ? *c.rows : 0));
  TempDir d;
  auto got = build_rows(options_for(c, d / "rows.parquet"));
  auto want = reference(c);
  EXPECT_EQ(got.manifest.rows_written, want["rows"].get<std::uint64_t>());
  EXPECT_EQ(got.manifest.rows_sha256, want["rows_sha256"].get<std::string>());
  EXPECT_EQ(got.manifest.tokens_dropped, want["tokens_dropped"].get<std::uint64_t>());
  EXPECT_EQ(got.stats.tokens, want["tokens"].get<std::uint64_t>());
  // The manifest on disk says the same.
  auto m = read_manifest(d / "rows.manifest.json");
  EXPECT_EQ(m.rows_sha256, got.manifest.rows_sha256);
  EXPECT_EQ(m.sources.at(0).sha256, "1250eb7cf35a8c6f28c94a80697d887d3f7647420ee5019e2dad5c08bd769862");  // SOURCE.txt
}

TEST(RowsBuild, qwen3_row_length_512_seed_0_matches_the_independent_reference) {
  OPENRECIPES_REQUIRE_FIXTURES();
  expect_reference({"qwen3", 512, 0, std::nullopt, std::nullopt, std::nullopt});
}

TEST(RowsBuild, other_seeds_and_a_row_limit_match_the_reference) {
  OPENRECIPES_REQUIRE_FIXTURES();
  expect_reference({"qwen3", 512, 7, std::nullopt, std::nullopt, std::nullopt});
  expect_reference({"qwen3", 512, 0, 20, std::nullopt, std::nullopt});
  expect_reference({"qwen3", 8192, 12345, 3, std::nullopt, std::nullopt});
}

TEST(RowsBuild, llama31_and_deepseek_v3_builds_match_the_reference) {
  OPENRECIPES_REQUIRE_FIXTURES();
  expect_reference({"llama3", 1024, 3, std::nullopt,
                    tokdir("llama3") / "tokenizer_config.xenova-llama3-tokenizer-new.json",
                    tokdir("llama3") / "chat_template.llama-3.1-8b-instruct.jinja"});
  expect_reference({"deepseek_v3", 2048, 1, std::nullopt, std::nullopt, std::nullopt});
}

TEST(RowsBuild, row_limit_tokenizes_only_what_it_needs_over_several_rounds) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // 25,000 short conversations (about 20 tokens each): 300 rows of 1024 need about 15,000 of them, more than the
  // first round's estimate, so the build reads the sources again for a second slice of the permutation.
  TempDir d;
  std::string jsonl;
  for (int i = 0; i < 25000; ++i)
    jsonl += nlohmann::json{{"messages",
                             {{{"content", fmt::format("question {} about {}", i, i * 7919 % 1000)}, {"role", "user"}},
                              {{"content", fmt::format("answer {}", i % 97)}, {"role", "assistant"}}}}}
                 .dump() +
             "\n";
  auto src = d.write("short.jsonl", jsonl);
  RowsBuildOptions o = options_for({"qwen3", 1024, 9, 300, std::nullopt, std::nullopt}, d / "rows.parquet");
  o.sources = {src};
  auto got = build_rows(o);
  EXPECT_EQ(got.manifest.rows_written, 300u);
  EXPECT_LT(got.stats.conversations_done, 25000u);
  auto r = testing::run_process({testing::oracle_python(),
                                 (testing::source_dir() / "tests/oracles/rows_build_reference.py").string(),
                                 src.string(), tokdir("qwen3").string(), "1024", "9", "300"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto want = nlohmann::json::parse(r.out);
  EXPECT_EQ(got.manifest.rows_sha256, want["rows_sha256"].get<std::string>());
  EXPECT_EQ(got.manifest.tokens_dropped, want["tokens_dropped"].get<std::uint64_t>());
}

TEST(RowsBuild, identical_bytes_for_any_thread_count) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir a, b;
  Case c{"qwen3", 256, 5, std::nullopt, std::nullopt, std::nullopt};
  build_rows(options_for(c, a / "rows.parquet", 1));
  build_rows(options_for(c, b / "rows.parquet", 4));
  EXPECT_EQ(sha256_hex(read_file(a / "rows.parquet")), sha256_hex(read_file(b / "rows.parquet")));
  EXPECT_EQ(read_file(a / "rows.manifest.json"), read_file(b / "rows.manifest.json"));
}

// The golden per-conversation ids (Jinja2 + tokenizers 0.23.2), reproduced through the pipeline's render and encode.
void expect_golden(const char* file, const char* tokenizer, std::optional<fs::path> config,
                   std::optional<fs::path> tmpl, const char* sha) {
  SCOPED_TRACE(file);
  auto bundle = TokenizerBundle::load({tokdir(tokenizer), config, tmpl});
  auto set = SourceSet::open({tulu()}, 1);
  std::vector<std::string> rendered;
  std::vector<std::vector<std::int32_t>> ids;
  set.read_each([&](std::uint64_t, ConversationView conv) {
    rendered.push_back(bundle.render(conv, {}));
    ids.push_back(bundle.tokenizer().encode(rendered.back()));
  });
  std::ifstream in(fixtures_dir() / "golden/tulu3_first100" / file);
  std::string line;
  std::size_t i = 0;
  Sha256 all;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    ASSERT_LT(i, rendered.size());
    EXPECT_EQ(rendered[i], j["rendered"].get<std::string>()) << "conversation " << i;
    EXPECT_EQ(ids[i], j["input_ids"].get<std::vector<std::int32_t>>()) << "conversation " << i;
    for (std::int32_t id : ids[i]) {
      std::uint32_t v = static_cast<std::uint32_t>(id);
      unsigned char le[4] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8),
                             static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 24)};
      all.update(le, 4);
    }
    ++i;
  }
  EXPECT_EQ(i, 100u);
  EXPECT_EQ(all.hex(), sha);  // the digest golden/tulu3_first100/SOURCE.txt gives
}

TEST(RowsBuild, golden_tulu3_first100_reproduced_exactly) {
  OPENRECIPES_REQUIRE_FIXTURES();
  expect_golden("qwen3.jsonl", "qwen3", std::nullopt, std::nullopt,
                "48a51143273c2fc5b155dee95508ce2f6aa5f1b6d7080f7fecb2cc3415de8570");
  expect_golden("llama3_1_instruct.jsonl", "llama3",
                tokdir("llama3") / "tokenizer_config.xenova-llama3-tokenizer-new.json",
                tokdir("llama3") / "chat_template.llama-3.1-8b-instruct.jinja",
                "b0c765e04094359b4bea5b1163af89901e26fed13a8b1931b5dafdcc6e5bfb88");
  expect_golden("deepseek_v3.jsonl", "deepseek_v3", std::nullopt, std::nullopt,
                "10941fc90480934774001d92c7f6e89b6c88ae0e9ea6c183a772b0458d709186");
}

TEST(RowsBuild, deepseek_v3_config_gets_the_transformers_5_warning) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto b = TokenizerBundle::load({tokdir("deepseek_v3"), std::nullopt, std::nullopt});
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_NE(b.warnings[0].find("transformers issue 45488"), std::string::npos) << b.warnings[0];
  EXPECT_TRUE(TokenizerBundle::load({tokdir("qwen3"), std::nullopt, std::nullopt}).warnings.empty());
}

std::string error_of(const RowsBuildOptions& o) {
  return testing::message_of([&] { build_rows(o); });
}

TEST(RowsBuildBadInput, template_that_raises_names_the_conversation_and_leaves_no_rows_file) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  // Raises on the 4-message conversations only, so some rows are written before it fails.
  auto tmpl = d.write("t.jinja",
                      "{% if messages|length > 2 %}{{ raise_exception('only single-turn conversations') }}{% endif %}"
                      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}");
  fs::create_directories(d / "out");
  Case c{"qwen3", 64, 0, std::nullopt, std::nullopt, tmpl};
  auto m = error_of(options_for(c, d / "out/rows.parquet"));
  EXPECT_NE(m.find("conversation "), std::string::npos) << m;
  EXPECT_NE(m.find("(sft_sample.jsonl row "), std::string::npos) << m;
  EXPECT_NE(m.find("only single-turn conversations"), std::string::npos) << m;
  EXPECT_TRUE(openrecipes::testing::file_names_in(d / "out").empty());  // no rows.parquet, no manifest, no temp file
}

TEST(RowsBuildBadInput, a_word_over_one_mib_names_its_conversation_instead_of_minutes_of_bpe) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  // Conversation 1 holds a run of letters the Qwen3 pre-tokenizer does not split, one byte over the limit.
  std::string word(rows::tok::kMaxWordBytes + 1, 'a');
  auto src = d.write("long.jsonl",
                     "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n"
                     "{\"messages\": [{\"role\": \"user\", \"content\": \"" +
                         word + "\"}]}\n");
  fs::create_directories(d / "out");
  RowsBuildOptions o = options_for({"qwen3", 64, 0, std::nullopt, std::nullopt, std::nullopt}, d / "out/rows.parquet");
  o.sources = {src};
  auto m = error_of(o);
  EXPECT_NE(m.find("conversation 1 (long.jsonl row 1): cannot tokenize its rendered text: a word of 1048577 bytes"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("over the limit of 1048576 bytes"), std::string::npos) << m;
  EXPECT_TRUE(openrecipes::testing::file_names_in(d / "out").empty());
}

TEST(RowsBuildBadInput, template_that_loops_forever_or_explodes_is_bounded) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  fs::create_directories(d / "out");
  auto loop = d.write("loop.jinja", "{% for i in range(10**12) %}x{% endfor %}");
  auto m = error_of(options_for({"qwen3", 64, 0, std::nullopt, std::nullopt, loop}, d / "out/rows.parquet"));
  EXPECT_NE(m.find("the chat template failed"), std::string::npos) << m;
  auto bomb = d.write("bomb.jinja", "{{ 'a' * 10**12 }}");
  m = error_of(options_for({"qwen3", 64, 0, std::nullopt, std::nullopt, bomb}, d / "out/rows.parquet"));
  EXPECT_NE(m.find("the chat template failed"), std::string::npos) << m;
  EXPECT_TRUE(openrecipes::testing::file_names_in(d / "out").empty());
}

TEST(RowsBuildBadInput, more_rows_than_the_sources_give_is_an_error_naming_both_counts) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto m = error_of(options_for({"qwen3", 512, 0, 1000, std::nullopt, std::nullopt}, d / "rows.parquet"));
  EXPECT_NE(m.find("give 41695 tokens, 81 rows of 512; 1000 rows were asked for"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(d / "rows.parquet"));
}

TEST(RowsBuildBadInput, invalid_utf8_in_a_source_names_the_line) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  auto src = d.write("bad.jsonl",
                     "{\"messages\": [{\"role\": \"user\", \"content\": \"ok\"}]}\n"
                     "{\"messages\": [{\"role\": \"user\", \"content\": \"caf\xe9\"}]}\n");
  RowsBuildOptions o = options_for({"qwen3", 8, 0, std::nullopt, std::nullopt, std::nullopt}, d / "rows.parquet");
  o.sources = {src};
  auto m = error_of(o);
  EXPECT_NE(m.find("bad.jsonl:2"), std::string::npos) << m;
  EXPECT_NE(m.find("UTF-8"), std::string::npos) << m;
}

TEST(RowsBuildBadInput, tokenizer_folder_without_eos_token_or_template) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  fs::create_directories(d / "tok");
  fs::copy_file(tokdir("qwen3") / "tokenizer.json", d / "tok/tokenizer.json");
  d.write("tok/tokenizer_config.json", "{\"chat_template\": \"{{ messages }}\"}");
  RowsBuildOptions o = options_for({"qwen3", 8, 0, std::nullopt, std::nullopt, std::nullopt}, d / "rows.parquet");
  EXPECT_NO_THROW(build_rows(o)) << "sanity";  // the fixture folder itself is fine
  o.tokenizer.dir = d / "tok";
  auto m = error_of(o);
  EXPECT_NE(m.find("no eos_token"), std::string::npos) << m;
  d.write("tok/tokenizer_config.json", "{\"eos_token\": \"<|im_end|>\"}");
  m = error_of(o);
  EXPECT_NE(m.find("no chat template"), std::string::npos) << m;
  d.write("tok/tokenizer_config.json", "{\"eos_token\": \"<|not_a_token|>\", \"chat_template\": \"x\"}");
  m = error_of(o);
  EXPECT_NE(m.find("is not a token of"), std::string::npos) << m;
}

}  // namespace
}  // namespace openrecipes::rows
