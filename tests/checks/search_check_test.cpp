// Tests for src/checks/search_check: tune's rule for the best trial, replayed (the whole check runs on the bundled
// tulu3-tuned in tests/registry/search_evidence_test.cpp).
#include "checks/search_check.h"

#include <gtest/gtest.h>

namespace openrecipes::checks {
namespace {

TEST(SearchCheck, the_best_trial_replays_tunes_rule_over_the_trials_in_order) {
  evidence::TuneSearch s;
  auto trial = [](std::int64_t n, const char* outcome, double low, std::optional<double> high) {
    evidence::SearchTrial t;
    t.trial = n;
    t.outcome = *evidence::outcome_named(outcome);
    if (std::string(outcome) == "measured") t.score_low = low, t.score_high = high;
    return t;
  };
  s.trials = {trial(1, "measured", 100, 110), trial(2, "measured", 105, 120), trial(3, "cut: slower", 0, 0),
              trial(4, "measured", 111, 130)};
  EXPECT_EQ(best_trial(s), 4);  // 2 overlaps 1 (no change); 4 lies above 1: [111, 130] > 110
  s.trials[3].score_low = 110;  // touching is overlapping: no change
  EXPECT_EQ(best_trial(s), 1);
  s.trials[0].score_high = std::nullopt;  // an unbounded best is never cleared
  s.trials[3].score_low = 1e9;
  EXPECT_EQ(best_trial(s), 1);
  s.trials = {trial(1, "oom", 0, 0)};
  EXPECT_EQ(best_trial(s), std::nullopt);
}

}  // namespace
}  // namespace openrecipes::checks
