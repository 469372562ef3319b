// Fuzz target: a training command as `plan --command` reads it (checks/megatron_arguments.h): the words, the launcher's
// GPU count, Megatron-LM's (or slime's) argparse table, validate_args' derivations, the --moe-layer-freq pattern, the
// refusals; then the model shape, the setup, the model's rules and every stage's estimate. Input: the command file.
#include <string>

#include "checks/megatron_arguments.h"
#include "fuzz_support.h"
#include "layout/memory.h"
#include "layout/model_rules.h"
#include "layout/model_shape.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const std::string_view text = fuzz::text(data, size);
  for (const auto gpus : {std::optional<std::int64_t>(), std::optional<std::int64_t>(8)}) {
    std::optional<checks::TrainingCommand> c;
    fuzz::expect_input_error_or_success(
        [&] { c = checks::read_training_command(text, "cmd", gpus, std::int64_t{50257}); });
    if (!c) continue;
    if (c->gpus < 1) fuzz::finding("a command read with no GPUs");
    if (c->arguments.at("world_size") != std::to_string(c->gpus)) fuzz::finding("world_size is not the GPU count");
    std::optional<layout::ModelShape> shape;
    std::optional<layout::TrainingSetup> setup;
    fuzz::expect_input_error_or_success([&] {
      shape = layout::shape_from_arguments(c->arguments, "cmd");
      setup = layout::setup_from_arguments(c->arguments, "cmd");
    });
    if (!shape || !setup) continue;
    const auto& l = setup->layout;
    if (l.tp * l.pp * l.cp * l.dp != c->gpus) fuzz::finding("TP x PP x CP x DP is not the GPU count");
    if (!layout::model_violations(*shape, *setup).empty() || l.pp > 64) continue;
    double largest = 0;
    for (std::int64_t s = 0; s < l.pp; ++s)
      fuzz::expect_input_error_or_success(
          [&] { largest = std::max(largest, layout::estimate_memory(*shape, *setup, s).peak_mib); });
    fuzz::expect_input_error_or_success([&] {
      const double peak = layout::estimate_memory(*shape, *setup).peak_mib;
      if (std::abs(peak - largest) > 1e-6 * std::max(1.0, peak)) fuzz::finding("the peak is not the largest stage's");
    });
  }
  return 0;
}
