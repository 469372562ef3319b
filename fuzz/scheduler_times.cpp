// Fuzz target: scheduler times (SPEC §2 GPU-hours; evidence/scheduler_times.h): the launcher's own clock, Slurm
// sacct and scontrol show job, each asked for the run or job the seeds name.
#include "evidence/scheduler_times.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto t = fuzz::text(data, size);
  const std::pair<const char*, const char*> forms[] = {
      {"launcher", "run"}, {"launcher", "ref"}, {"sacct", "12345"}, {"scontrol", "12345"}, {"scontrol", "1"}};
  for (const auto& form : forms)
    fuzz::expect_input_error_or_success([&] { evidence::parse_run_times(t, "times.txt", form.first, form.second); });
  return 0;
}
