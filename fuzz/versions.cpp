// Fuzz target: a versions dump (the stack a run shows; SPEC §6; evidence/versions.h).
#include "evidence/versions.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  fuzz::expect_input_error_or_success([&] { evidence::parse_versions(fuzz::text(data, size), "versions.txt"); });
  return 0;
}
