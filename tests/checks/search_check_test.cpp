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

// A candidate's recorded knobs against what its command sets, ETP included where experts are in play.
TEST(SearchCheck, a_candidates_expert_tensor_parallel_size_is_held_to_its_command) {
  evidence::TuneSearch s;
  evidence::SearchCandidate c;
  c.name = "ep4";
  c.start = true;
  c.layout.tp = 2, c.layout.ep = 4, c.layout.etp = 1, c.layout.dp = 4;
  c.micro_batch = 1;
  c.recompute = "none";
  c.sequence_parallel = true;
  c.planner_fits = true;
  c.command = "torchrun pretrain_gpt.py";
  s.candidates = {c};
  layout::TrainingSetup set;
  set.layout.tp = 2, set.layout.ep = 4, set.layout.etp = 2, set.layout.dp = 4;
  set.sequence_parallel = true;
  SearchSubject subject;
  subject.where = "search.json";
  subject.predict = [&](const std::string&) { return std::optional<CandidatePrediction>({set, std::nullopt}); };
  auto messages = [&] {
    std::vector<std::string> out;
    for (const auto& r : check_search(s, subject))
      if (r.message.find("candidate ep4 records") != std::string::npos) out.push_back(r.message);
    return out;
  };
  EXPECT_EQ(messages(), std::vector<std::string>{"candidate ep4 records ETP 1, and its command sets ETP 2"});
  set.layout.etp = 1;
  EXPECT_TRUE(messages().empty());
}

}  // namespace
}  // namespace openrecipes::checks
