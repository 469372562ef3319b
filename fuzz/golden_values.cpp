// Fuzz target: a Megatron-Bridge golden-values JSON, the convergence check's input (SPEC §4.3;
// checks/convergence.h), read and checked against itself.
#include "checks/convergence.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  fuzz::expect_input_error_or_success([&] {
    auto curve = checks::read_golden_values(fuzz::text(data, size), "golden.json");
    auto result = checks::check_convergence(curve, curve);
    checks::describe_failures(result);
  });
  return 0;
}
