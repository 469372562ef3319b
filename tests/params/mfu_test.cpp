#include "params/mfu.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"

namespace openrecipes::params {

TEST(Mfu, six_n_times_tokens_over_peak_by_hand) {
  // Qwen3-0.6B (N = 595,984,384) at 100,000 tokens/s/GPU on an H100 (989 TFLOP/s dense BF16):
  // 6 × 595,984,384 × 100,000 = 357,590,630,400,000 FLOP/s; / 989 × 10^12 = 0.361568...
  EXPECT_NEAR(mfu(595'984'384, 100'000, 989), 357'590'630'400'000.0 / 989e12, 1e-15);
  EXPECT_NEAR(mfu(595'984'384, 100'000, 989), 0.3615678, 1e-7);
  // 1e9 parameters at 1,000 tokens/s on a 6 TFLOP/s chip: 6e12 / 6e12 = exactly 1.
  EXPECT_DOUBLE_EQ(mfu(1e9, 1000, 6), 1.0);
  EXPECT_DOUBLE_EQ(mfu(1e9, 0, 989), 0.0);
}

TEST(Mfu, bad_inputs_are_errors) {
  EXPECT_THROW(mfu(1e9, 1000, 0), InputError);
  EXPECT_THROW(mfu(1e9, 1000, -1), InputError);
  EXPECT_THROW(mfu(-1, 1000, 989), InputError);
  EXPECT_THROW(mfu(1e9, -5, 989), InputError);
  EXPECT_THROW(mfu(1e9, std::numeric_limits<double>::infinity(), 989), InputError);
  EXPECT_THROW(mfu(std::numeric_limits<double>::quiet_NaN(), 1000, 989), InputError);
}

}  // namespace openrecipes::params
