// Shared helpers for the chat-template tests (header-only: the test glob compiles *_test.cpp files only): the
// fixture templates, the Tulu 3 sample conversations, and one batched run of the Python Jinja2 oracle
// (tests/oracles/render_template.py) for many renders.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "testing/support.h"

namespace openrecipes::testing::chat_templates {

/// Reads a whole file (test inputs only).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A chat template from the fixtures: a short name, its source, and the special-token variables transformers
/// passes with it (tokenizer_config's bos/eos/pad/unk tokens; absent or null ones are not passed).
struct FixtureTemplate {
  std::string name;
  std::string source;
  nlohmann::ordered_json special_tokens = nlohmann::ordered_json::object();
};

inline nlohmann::ordered_json special_tokens_of(const nlohmann::ordered_json& config) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* key : {"bos_token", "eos_token", "pad_token", "unk_token"}) {
    if (!config.contains(key)) continue;
    const auto& v = config[key];
    if (v.is_string()) out[key] = v;
    if (v.is_object() && v.contains("content")) out[key] = v["content"];
  }
  return out;
}

/// The seven fixture templates (Qwen3, DeepSeek-V3, Llama-3.1-8B-Instruct, Llama-3 (Xenova), DeepSeek-V3.1,
/// gpt-oss-120b, Kimi-K2) from ../shared/fixtures/tokenizers. Empty when the fixtures are missing.
inline std::vector<FixtureTemplate> fixture_templates() {
  std::vector<FixtureTemplate> out;
  auto dir = fixtures_dir();
  if (dir.empty()) return out;
  auto tok = dir / "tokenizers";
  auto qwen_config = nlohmann::ordered_json::parse(read_text((tok / "qwen3/tokenizer_config.json").string()));
  auto ds_config = nlohmann::ordered_json::parse(read_text((tok / "deepseek_v3/tokenizer_config.json").string()));
  auto llama_config = nlohmann::ordered_json::parse(
      read_text((tok / "llama3/tokenizer_config.xenova-llama3-tokenizer-new.json").string()));
  // Llama 3.1 Instruct's tokenizer_config is not in the fixtures; its special tokens are Meta's.
  nlohmann::ordered_json llama31_tokens = {{"bos_token", "<|begin_of_text|>"}, {"eos_token", "<|eot_id|>"}};
  out.push_back({"qwen3", read_text((tok / "qwen3/chat_template.jinja").string()), special_tokens_of(qwen_config)});
  out.push_back({"deepseek_v3", ds_config["chat_template"].get<std::string>(), special_tokens_of(ds_config)});
  out.push_back({"llama3_1_instruct", read_text((tok / "llama3/chat_template.llama-3.1-8b-instruct.jinja").string()),
                 llama31_tokens});
  out.push_back({"llama3_xenova", llama_config["chat_template"].get<std::string>(), special_tokens_of(llama_config)});
  out.push_back({"deepseek_v3_1", read_text((tok / "chat_templates/deepseek-ai-DeepSeek-V3.1.jinja").string()),
                 special_tokens_of(ds_config)});
  // gpt-oss and Kimi-K2 use no special-token variables; their tokenizer configs are not in the fixtures.
  out.push_back({"gpt_oss_120b", read_text((tok / "chat_templates/openai-gpt-oss-120b.jinja").string())});
  out.push_back({"kimi_k2", read_text((tok / "chat_templates/moonshotai-Kimi-K2.jinja").string())});
  return out;
}

/// The `messages` of every row of tulu3/sft_sample.jsonl, in file order (key order kept).
inline std::vector<nlohmann::ordered_json> tulu_conversations() {
  std::vector<nlohmann::ordered_json> out;
  auto dir = fixtures_dir();
  if (dir.empty()) return out;
  std::istringstream in(read_text((dir / "tulu3/sft_sample.jsonl").string()));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(nlohmann::ordered_json::parse(line)["messages"]);
  return out;
}

/// One render request for the oracle.
struct OracleRender {
  std::string template_name;
  nlohmann::ordered_json variables;
  std::string today = "2026-01-01";
};

/// The oracle's answer: rendered text, or the Python exception type and message.
struct OracleResult {
  bool ok = false;
  std::string rendered;
  std::string error_type;
  std::string message;
};

/// Runs the oracle once: defines `templates` (name, source), then renders every request, in order. Fails the
/// current test when the oracle cannot run or answers the wrong number of lines, and (unless told otherwise)
/// when Jinja2 cannot compile a template (a render of such a template answers the compile error).
inline std::vector<OracleResult> run_oracle(const std::vector<std::pair<std::string, std::string>>& templates,
                                            const std::vector<OracleRender>& renders,
                                            bool templates_must_compile = true) {
  std::string input;
  for (const auto& t : templates)
    input += nlohmann::ordered_json{{"op", "define"}, {"name", t.first}, {"source", t.second}}.dump() + "\n";
  for (const auto& r : renders)
    input +=
        nlohmann::ordered_json{
            {"op", "render"}, {"template", r.template_name}, {"variables", r.variables}, {"today", r.today}}
            .dump() +
        "\n";
  auto script = (source_dir() / "tests/oracles/render_template.py").string();
  ProcessResult pr = run_process({oracle_python(), script}, input);
  std::vector<OracleResult> out;
  EXPECT_EQ(pr.exit_code, 0) << pr.err;
  std::istringstream lines(pr.out);
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    if (n++ < templates.size()) {
      if (templates_must_compile) {
        EXPECT_TRUE(j["ok"].get<bool>()) << "oracle could not compile a template: " << line;
      }
      continue;
    }
    OracleResult r;
    r.ok = j["ok"].get<bool>();
    if (r.ok) {
      r.rendered = j["rendered"].get<std::string>();
    } else {
      r.error_type = j["type"].get<std::string>();
      r.message = j["message"].get<std::string>();
    }
    out.push_back(std::move(r));
  }
  EXPECT_EQ(out.size(), renders.size()) << "oracle answered " << out.size() << " renders of " << renders.size();
  return out;
}

}  // namespace openrecipes::testing::chat_templates
