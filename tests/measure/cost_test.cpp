#include "measure/cost.h"

#include <gtest/gtest.h>

namespace openrecipes::measure {
namespace {

TEST(Cost, gpu_hours_is_gpus_times_admission_to_finish) {
  // ref run of the H200 fixture: start 1795973020.792464496, end 1795973164.166403326 -> 143.373938830 s
  EXPECT_NEAR(gpu_hours(1, 1795973020.792464496, 1795973164.166403326), 143.373938830 / 3600, 1e-9);
  EXPECT_DOUBLE_EQ(gpu_hours(64, 0, 1800), 32.0);
}

TEST(Cost, dollars_per_million_tokens_from_the_rate) {
  // H200 at $7.912/GPU-hour and 10,000 tokens/s/GPU: 36e6 tokens per GPU-hour -> 7.912 / 36 = $0.21978/1M
  EXPECT_NEAR(dollars_per_million_tokens(7.912, 10000), 7.912 / 36.0, 1e-12);
}

}  // namespace
}  // namespace openrecipes::measure
