// Fuzz target: a model's config.json, N counted from it alone (SPEC §3; params/count.h), as `openrecipes params
// --config` reads it (strict JSON: duplicate keys refused, depth bounded).
#include "core/json_limits.h"
#include "fuzz_support.h"
#include "params/count.h"
#include "params/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  fuzz::expect_input_error_or_success([&] {
    auto config = parse_json_strict(fuzz::text(data, size), "config.json", "give a config.json");
    auto count = params::count_from_config(config, "config.json");
    params::format_table(count, "config.json");
  });
  return 0;
}
