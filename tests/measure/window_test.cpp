#include "measure/window.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::measure {
namespace {

TEST(Window, window_20_step_run_is_5_to_19) { EXPECT_EQ(window_for_run(20, std::nullopt, "r"), (Window{5, 19})); }

TEST(Window, profiler_run_of_up_to_25_steps_keeps_5_to_19) {
  EXPECT_EQ(window_for_run(23, std::nullopt, "r"), (Window{5, 19}));
  EXPECT_EQ(window_for_run(25, std::nullopt, "r"), (Window{5, 19}));
}

TEST(Window, window_14_step_run_is_4_to_13) { EXPECT_EQ(window_for_run(14, std::nullopt, "r"), (Window{4, 13})); }

TEST(Window, other_lengths_need_a_declared_window) {
  EXPECT_THROW(window_for_run(30, std::nullopt, "r"), InputError);
  EXPECT_EQ(window_for_run(30, Window{10, 29}, "r"), (Window{10, 29}));
}

TEST(Window, declared_window_must_fit_and_agree_with_the_rule) {
  EXPECT_THROW(window_for_run(20, Window{4, 19}, "r"), InputError);  // disagrees with the 20-step rule
  EXPECT_THROW(window_for_run(30, Window{0, 10}, "r"), InputError);  // step 0 is never measured
  EXPECT_THROW(window_for_run(30, Window{5, 30}, "r"), InputError);  // past the run's last step
  EXPECT_EQ(window_for_run(20, Window{5, 19}, "r"), (Window{5, 19}));
}

TEST(Window, a_declared_window_over_the_step_limit_is_an_error_naming_it) {
  // A log whose run claims 10^15 steps and a --window to match would otherwise size a table of 10^15 step times.
  const std::int64_t run = 1'000'000'000'000'000;
  EXPECT_THAT(testing::message_of([&] {
                window_for_run(run, Window{1, run - 1}, "--window");
              }),
              ::testing::HasSubstr("--window: window 1–999999999999999 spans 999999999999999 steps, over the "
                                   "limit of 100000"));
  EXPECT_EQ(window_for_run(run, Window{1, 100000}, "r"), (Window{1, 100000}));  // the limit itself is allowed
}

}  // namespace
}  // namespace openrecipes::measure
