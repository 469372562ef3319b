// A model's tokenizer files as the rows build uses them (SPEC §1.2, §1.3, §1.5): tokenizer.json (the tokenizer),
// tokenizer_config.json (special tokens, chat template) and an optional chat_template.jinja, with their digests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rows/source/conversation.h"
#include "rows/template/chat_template.h"
#include "rows/tokenizer/tokenizer.h"

namespace openrecipes::rows {

/// Where the files are. `dir` holds tokenizer.json; the others default to files in `dir`.
struct TokenizerFiles {
  std::filesystem::path dir;
  std::optional<std::filesystem::path> tokenizer_config;  ///< default dir/tokenizer_config.json
  std::optional<std::filesystem::path> chat_template;     ///< default dir/chat_template.jinja if present, else the
                                                          ///< config's chat_template
};

class TokenizerBundle {
 public:
  /// Loads and checks everything. Throws InputError naming the file and the fix when tokenizer.json or
  /// tokenizer_config.json is missing or malformed, there is no chat template, the template does not compile, the
  /// config has no eos_token, or the eos_token is not a token of tokenizer.json.
  static TokenizerBundle load(const TokenizerFiles& files);

  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const ChatTemplate& chat_template() const { return *template_; }

  /// Renders one conversation exactly as transformers' apply_chat_template(messages, tokenize=False) does:
  /// messages (each {"content", "role"}, the Tulu 3 schema's field order), tools=None, documents=None,
  /// add_generation_prompt=False, and the special tokens the config sets (bos/eos/pad/unk_token).
  /// Throws TemplateError (from the template) unchanged.
  std::string render(ConversationView conversation, const RenderOptions& options) const;

  std::string eos_token;    ///< tokenizer_config's eos_token
  std::int32_t eos_id = 0;  ///< its id in tokenizer.json
  std::string tokenizer_json_sha256, tokenizer_config_sha256, chat_template_sha256;
  std::string chat_template_origin;   ///< which file the template came from
  std::vector<std::string> warnings;  ///< e.g. the transformers 5.x DeepSeek-V3 warning (SPEC §1.3)

 private:
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::shared_ptr<const ChatTemplate> template_;
  nlohmann::ordered_json special_tokens_;
};

}  // namespace openrecipes::rows
