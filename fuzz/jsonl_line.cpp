// Fuzz target: one JSONL source row (SPEC §1.1; rows/source/jsonl_line.h), read as the rows build reads it (the
// simdjson fast path, then the bounds on what it read; the reference parser where the fast path declines) and by the
// reference parser alone: the two verdicts must be the same, word for word, and so must the messages.
#include "rows/source/jsonl_line.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  static rows::JsonlLineParser parser;
  std::string line(fuzz::text(data, size));
  line.reserve(line.size() + simdjson::SIMDJSON_PADDING);
  std::vector<rows::MessageView> views;
  std::string fast_error;
  const bool fast = parser.parse_fast(line, views);
  if (fast) {
    try {
      const auto where = [] { return std::string("f.jsonl:1"); };
      rows::check_message_count(where, views.size());
      for (std::size_t k = 0; k < views.size(); ++k)
        rows::check_message_sizes(where, k, views[k].role, views[k].content);
    } catch (const InputError& e) {
      fast_error = e.what();
    }
  }
  std::vector<std::pair<std::string, std::string>> owned;
  std::string ref_error;
  try {
    rows::parse_jsonl_line("f.jsonl:1", line, owned);
  } catch (const InputError& e) {
    ref_error = e.what();
  }
  if (!fast) return 0;
  if (fast_error != ref_error) fuzz::finding("the verdicts differ: [" + fast_error + "] vs [" + ref_error + "]");
  if (!ref_error.empty()) return 0;
  if (views.size() != owned.size()) fuzz::finding("the two parsers read different message counts");
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i].role != owned[i].first || views[i].content != owned[i].second)
      fuzz::finding("the two parsers read different messages");
  return 0;
}
