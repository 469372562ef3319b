// Fuzz target: a Megatron-Bridge training log ("Step Time : x s" lines; SPEC §2; evidence/megatron_log.h).
#include "evidence/megatron_log.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  fuzz::expect_input_error_or_success(
      [&] { evidence::parse_megatron_bridge_log(fuzz::text(data, size), "train.log", std::nullopt); });
  return 0;
}
