// Fuzz target: Megatron-LM's argument dump (SPEC §4.1; evidence/megatron_args.h): the block alone, found in a log,
// and the log interval read from it.
#include "evidence/megatron_args.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto t = fuzz::text(data, size);
  fuzz::expect_input_error_or_success([&] {
    auto dump = evidence::parse_megatron_args(t, "args.txt");
    evidence::log_interval_of(dump);
  });
  fuzz::expect_input_error_or_success([&] { evidence::find_megatron_args(t, "train.log"); });
  fuzz::expect_input_error_or_success([&] { evidence::own_log_interval(t, "train.log"); });
  return 0;
}
