// Fuzz target: the project's own steps.jsonl (SPEC §2; evidence/steps_jsonl.h).
#include "evidence/steps_jsonl.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  fuzz::expect_input_error_or_success([&] { evidence::parse_steps_jsonl(fuzz::text(data, size), "steps.jsonl"); });
  return 0;
}
