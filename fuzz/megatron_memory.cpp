// Fuzz target: a Megatron log as the planner reads it (SPEC §7): the memory lines (evidence/megatron_memory.h), and
// the model shape and run setup of its argument dump through the memory model and the model's layout rules
// (layout/memory.h, layout/model_rules.h), as `build`, the recipe page and `plan --log` read a stranger's evidence.
#include "evidence/megatron_memory.h"
#include "evidence/megatron_args.h"
#include "fuzz_support.h"
#include "layout/memory.h"
#include "layout/model_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto t = fuzz::text(data, size);
  fuzz::expect_input_error_or_success([&] { evidence::parse_megatron_memory(t, "train.log"); });
  fuzz::expect_input_error_or_success([&] {
    const auto dump = evidence::parse_megatron_args(t, "train.log");
    const auto shape = layout::shape_from_arguments(dump.values, "train.log");
    const auto setup = layout::setup_from_arguments(dump.values, "train.log");
    layout::model_violations(shape, setup);
    layout::estimate_memory(shape, setup);
  });
  return 0;
}
