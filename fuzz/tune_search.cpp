// Fuzz target: a tuned recipe's search record (evidence/search.json, the tune.json of `openrecipes tune`;
// evidence/tune_search.h), parsed as build reads it.
#include "evidence/tune_search.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  std::optional<evidence::TuneSearch> s;
  fuzz::expect_input_error_or_success([&] { s = evidence::parse_tune_search(fuzz::text(data, size), "search.json"); });
  if (!s) return 0;
  // What it accepted holds together: trials numbered in order, each of a listed candidate, the winner one of them.
  for (std::size_t i = 0; i < s->trials.size(); ++i) {
    if (s->trials[i].trial != static_cast<std::int64_t>(i) + 1) fuzz::finding("a trial out of order was accepted");
    if (!s->find_candidate(s->trials[i].candidate)) fuzz::finding("a trial of an unlisted candidate was accepted");
  }
  if (s->winner && !s->find_candidate(s->winner->candidate)) fuzz::finding("a winner of no candidate was accepted");
  return 0;
}
