// Fuzz target: tokenizer.json (SPEC §1.3; rows/tokenizer): loaded through simdjson and through nlohmann alone, which
// must agree (the same error, word for word, or tokenizers that encode a few texts to the same ids), then encoding.
#include <optional>

#include "fuzz_support.h"
#include "rows/tokenizer/tokenizer.h"

namespace {
using namespace openrecipes;
using Parser = rows::Tokenizer::JsonParser;

struct Loaded {
  std::optional<rows::Tokenizer> tokenizer;
  std::string error;
};
Loaded load(std::string_view bytes, Parser parser) {
  Loaded l;
  try {
    l.tokenizer.emplace(rows::Tokenizer::load("tokenizer.json", std::string(bytes), parser));
  } catch (const InputError& e) {
    l.error = e.what();
  }
  return l;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = fuzz::text(data, size);
  Loaded fast = load(bytes, Parser::fast), ref = load(bytes, Parser::reference);
  if (fast.error != ref.error) fuzz::finding("the two parsers disagree: [" + fast.error + "] vs [" + ref.error + "]");
  if (!fast.tokenizer) return 0;
  const char* texts[] = {"Hello world, héllo 123!\n", "  <|im_start|>user\nhi<|im_end|>\t\t", "日本語 😀 don't",
                         "\xff\xfe broken \xc3 utf-8"};
  for (const char* t : texts) {
    std::vector<std::int32_t> a, b;
    std::string ea, eb;
    try {
      a = fast.tokenizer->encode(t);
    } catch (const InputError& e) {
      ea = e.what();
    }
    try {
      b = ref.tokenizer->encode(t);
    } catch (const InputError& e) {
      eb = e.what();
    }
    if (a != b || ea != eb) fuzz::finding("the two parsers' tokenizers encode differently");
  }
  return 0;
}
