// The loaded parts of one tokenizer.json, shared by the loader (tokenizer_json.cpp) and the encoder
// (tokenizer.cpp) (SPEC §1.3).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "rows/tokenizer/added_vocabulary.h"
#include "rows/tokenizer/bpe.h"
#include "rows/tokenizer/normalizer.h"
#include "rows/tokenizer/pre_tokenizer.h"

namespace openrecipes::rows::tok {

struct Pipeline {
  std::string file;  ///< tokenizer.json path, for messages
  AddedVocabulary added;
  NormalizerChain normalizer;
  PreTokenizer pre_tokenizer;
  std::unique_ptr<BpeModel> model;
  bool raw_bytes = false;  ///< pieces are raw bytes; the model applies the byte-level mapping
  std::size_t vocab_size = 0;
  std::string description;
};

/// Reads tokenizer.json (at most 256 MiB) with the spare capacity load_pipeline parses in place.
std::string read_tokenizer_json(const std::filesystem::path& path);
/// Loads and validates tokenizer.json, given as `bytes` (`path` names it in messages), into a Pipeline; throws
/// InputError (see Tokenizer::load). `fast`: try simdjson first (Tokenizer::JsonParser).
std::unique_ptr<Pipeline> load_pipeline(const std::filesystem::path& path, std::string bytes, bool fast = true);

}  // namespace openrecipes::rows::tok
