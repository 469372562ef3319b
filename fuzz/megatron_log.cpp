// Fuzz target: a Megatron-LM training log (SPEC §2; evidence/megatron_log.h), parsed with and without the argument
// dump's log interval, then its loss curve (checks/convergence.h).
#include "evidence/megatron_log.h"
#include "checks/convergence.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto t = fuzz::text(data, size);
  for (std::optional<std::int64_t> interval : {std::optional<std::int64_t>{}, std::optional<std::int64_t>{1}})
    fuzz::expect_input_error_or_success([&] {
      auto log = evidence::parse_megatron_log(t, "train.log", interval);
      checks::loss_curve_from_log(log);
    });
  return 0;
}
