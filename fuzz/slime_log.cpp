// Fuzz target: a slime or miles log (`step N: {...}` / `perf N: {...}` lines in Python literal syntax; SPEC §2;
// evidence/slime_log.h, evidence/python_literal.h), as slime and as miles.
#include "evidence/slime_log.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  for (const char* format : {"slime", "miles"})
    fuzz::expect_input_error_or_success(
        [&] { evidence::parse_slime_log(fuzz::text(data, size), "train.log", format); });
  return 0;
}
