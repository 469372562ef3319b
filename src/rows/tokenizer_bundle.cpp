// Tokenizer files of a model (SPEC §1.2, §1.3, §1.5).
#include "rows/tokenizer_bundle.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/sha256.h"

namespace openrecipes::rows {
namespace fs = std::filesystem;
namespace {

// A special token in tokenizer_config.json: a string, an AddedToken dict {"content": ...}, or null.
std::optional<std::string> token_text(const nlohmann::json& cfg, const char* key, const std::string& where) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string())
    return (*it)["content"].get<std::string>();
  throw InputError(where + ": " + key, "expected a string or {\"content\": ...}", "fix tokenizer_config.json");
}

}  // namespace

TokenizerBundle TokenizerBundle::load(const TokenizerFiles& files) {
  TokenizerBundle b;
  fs::path tj = files.dir / "tokenizer.json";
  if (!fs::is_directory(files.dir))
    throw InputError(files.dir.string(), "not a folder", "give the folder holding the model's tokenizer.json");
  std::string tj_bytes = read_file(tj, kMaxTokenizerJsonBytes, Tokenizer::kParsePadding);
  b.tokenizer_json_sha256 = sha256_hex(tj_bytes);
  b.tokenizer_ = std::make_shared<Tokenizer>(Tokenizer::load(tj, std::move(tj_bytes)));

  fs::path cfg_path = files.tokenizer_config.value_or(files.dir / "tokenizer_config.json");
  std::error_code ec;
  if (!files.tokenizer_config && !fs::exists(cfg_path, ec))
    throw InputError(cfg_path.string(),
                     "no tokenizer_config.json beside tokenizer.json (it holds the special tokens and, usually, the "
                     "chat template)",
                     "give it with --tokenizer-config FILE, and the template with --chat-template FILE when that "
                     "config has none");
  std::string cfg_bytes = read_file(cfg_path, 16ull << 20);
  b.tokenizer_config_sha256 = sha256_hex(cfg_bytes);
  auto cfg = parse_json_strict(cfg_bytes, cfg_path.string(), "give the model's tokenizer_config.json");
  if (!cfg.is_object())
    throw InputError(cfg_path.string(), "not a JSON object", "give the model's tokenizer_config.json");
  const std::string where = cfg_path.string();

  for (const char* key : {"bos_token", "eos_token", "pad_token", "unk_token"})
    if (auto t = token_text(cfg, key, where)) b.special_tokens_[key] = *t;
  auto eos = token_text(cfg, "eos_token", where);
  if (!eos) throw InputError(where, "no eos_token", "the rows join conversations with the EOS token; set eos_token");
  b.eos_token = *eos;
  auto id = b.tokenizer_->token_to_id(b.eos_token);
  if (!id)
    throw InputError(where + ": eos_token", "'" + b.eos_token + "' is not a token of " + tj.string(),
                     "use the tokenizer_config.json that belongs to this tokenizer.json");
  b.eos_id = *id;

  // The chat template: an explicit file, else chat_template.jinja beside tokenizer.json, else the config's.
  std::string source;
  fs::path jinja = files.dir / "chat_template.jinja";
  if (files.chat_template) {
    source = read_file(*files.chat_template, 1u << 20);
    b.chat_template_origin = files.chat_template->string();
  } else if (fs::exists(jinja)) {
    source = read_file(jinja, 1u << 20);
    b.chat_template_origin = jinja.string();
  } else if (auto it = cfg.find("chat_template"); it != cfg.end() && it->is_string()) {
    source = it->get<std::string>();
    b.chat_template_origin = where + ": chat_template";
  } else if (it != cfg.end() && it->is_array()) {
    // transformers' named templates: [{"name": "default", "template": "..."}, ...]
    for (const auto& t : *it)
      if (t.is_object() && t.value("name", "") == "default" && t.contains("template") && t["template"].is_string()) {
        source = t["template"].get<std::string>();
        b.chat_template_origin = where + ": chat_template[default]";
      }
    if (source.empty()) throw InputError(where + ": chat_template", "no template named 'default'");
  } else {
    throw InputError(where, "no chat template (no chat_template.jinja and no chat_template in the config)",
                     "give one with --chat-template");
  }
  b.chat_template_sha256 = sha256_hex(source);
  b.template_ = std::make_shared<ChatTemplate>(ChatTemplate::compile(source, b.chat_template_origin));

  // SPEC §1.3: transformers 5.x loads LlamaTokenizerFast over a ByteLevel tokenizer.json with a Metaspace
  // pre-tokenizer (transformers issue 45488); we follow tokenizer.json as tokenizers 0.23.2 does.
  std::string cls = cfg.value("tokenizer_class", "");
  std::string desc = b.tokenizer_->describe();
  auto pre = desc.find("pre-tokenizer:");
  if (cls == "LlamaTokenizerFast" && pre != std::string::npos && desc.find("ByteLevel", pre) != std::string::npos)
    b.warnings.push_back(fmt::format(
        "{} names tokenizer_class LlamaTokenizerFast over a ByteLevel tokenizer.json: transformers 5.x's "
        "AutoTokenizer loads that combination with a Metaspace pre-tokenizer and drops spaces (transformers issue "
        "45488), so its ids differ from these; openrecipes follows tokenizer.json, as tokenizers 0.23.2 does",
        where));
  return b;
}

std::string TokenizerBundle::render(ConversationView conversation, const RenderOptions& options) const {
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const auto& m : conversation) {
    nlohmann::ordered_json msg = nlohmann::ordered_json::object();
    msg["content"] = std::string(m.content);
    msg["role"] = std::string(m.role);
    messages.push_back(std::move(msg));
  }
  vars["messages"] = std::move(messages);
  vars["tools"] = nullptr;
  vars["documents"] = nullptr;
  vars["add_generation_prompt"] = false;
  for (const auto& [k, v] : special_tokens_.items()) vars[k] = v;
  return template_->render(vars, options);
}

}  // namespace openrecipes::rows
