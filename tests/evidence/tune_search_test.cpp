// Tests for src/evidence/tune_search: tune.json read back as a recipe's search record (docs/tune.md).
#include "evidence/tune_search.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {

using json = nlohmann::json;

json candidate(const char* name, bool start, const char* knobs, int mbs, const char* command) {
  return json{{"name", name},
              {"start", start},
              {"knobs", knobs},
              {"layout", {{"tp", 1}, {"pp", 1}, {"vpp", nullptr}, {"cp", 1}, {"ep", 1}, {"etp", 1}, {"dp", 1}}},
              {"micro_batch", mbs},
              {"recompute", "none"},
              {"distributed_optimizer", false},
              {"sequence_parallel", false},
              {"predicted_peak_mib", 1000.0},
              {"planner_fits", true},
              {"relative_time", 1.0},
              {"changes", start ? json::array() : json::array({"--micro-batch-size 4 -> 8"})},
              {"command", command}};
}

// A two-candidate search as tune writes it: the start measured, the variant measured and best, the winner's run.
json record() {
  auto trial = [](int n, const char* name, double score, double low, bool best) {
    return json{{"trial", n},
                {"candidate", name},
                {"knobs", n == 1 ? "the start" : "micro-batch 4 -> 8"},
                {"outcome", "measured"},
                {"reason", ""},
                {"predicted_peak_mib", 1000.0 * n},
                {"planner_fits", true},
                {"measured_peak_mib", 990.5 * n},
                {"planner", "right: fits"},
                {"steps_measured", 10},
                {"tokens_per_s_per_gpu", score},
                {"tokens_per_s_per_gpu_interval", {low, nullptr}},
                {"mean_step_time_s", 0.5},
                {"wall_s", 40.0},
                {"startup_s", 30.0},
                {"best", best},
                {"within_noise_of_best", false},
                {"run_dir", "trials/x"}};
  };
  return json{{"format", "openrecipes-tune"},
              {"format_version", 1},
              {"recipe", "m/H200/ref"},
              {"gpus", 1},
              {"nodes", 1},
              {"launcher", "local"},
              {"budget_minutes", 8},
              {"warmup_steps", 3},
              {"trial_steps", 10},
              {"memory_mib", 143771},
              {"usable_memory_mib", 136000},
              {"interval_method", "t"},
              {"candidates",
               {candidate("ref-start", true, "the start", 4, "torchrun a"),
                candidate("ref-mbs8", false, "micro-batch 4 -> 8", 8, "torchrun b")}},
              {"trials", {trial(1, "ref-start", 100.0, 95.0, false), trial(2, "ref-mbs8", 200.0, 190.0, true)}},
              {"stopped", "every candidate tried"},
              {"elapsed_s", 123.5},
              {"winner",
               {{"trial", 2},
                {"candidate", "ref-mbs8"},
                {"start", false},
                {"knobs", "micro-batch 4 -> 8"},
                {"recipe", "recipes/m/H200/ref-mbs8"},
                {"run_dir", "winner"},
                {"status", "completed"},
                {"tokens_per_s_per_gpu", 210.25},
                {"tokens_per_s_per_gpu_interval", {200.5, 220.0}}}}};
}

std::string error_of(const json& j) {
  return testing::message_of([&] { parse_tune_search(j.dump(), "evidence/search.json"); });
}

TEST(TuneSearch, a_record_as_tune_writes_it_reads) {
  const auto s = parse_tune_search(record().dump(2), "f");
  EXPECT_EQ(s.file, "f");
  EXPECT_EQ(s.recipe, "m/H200/ref");
  EXPECT_EQ(s.gpus, 1);
  EXPECT_EQ(s.budget_minutes, 8);
  EXPECT_EQ(s.trial_steps, 10);
  EXPECT_EQ(s.stopped, "every candidate tried");
  EXPECT_EQ(s.elapsed_s, 123.5);
  ASSERT_EQ(s.candidates.size(), 2u);
  EXPECT_TRUE(s.candidates[0].start);
  EXPECT_EQ(s.find_candidate("ref-mbs8")->command, "torchrun b");
  EXPECT_EQ(s.find_candidate("nope"), nullptr);
  ASSERT_EQ(s.trials.size(), 2u);
  EXPECT_EQ(s.trials[1].tokens_per_s_per_gpu, 200.0);
  EXPECT_EQ(s.trials[1].score_low, 190.0);
  EXPECT_FALSE(s.trials[1].score_high);  // null: unbounded
  EXPECT_EQ(s.trials[1].measured_peak_mib, 1981.0);
  EXPECT_TRUE(s.trials[1].best);
  ASSERT_TRUE(s.winner);
  EXPECT_EQ(s.winner->trial, 2);
  EXPECT_EQ(s.winner->run_dir, "winner");
  EXPECT_EQ(s.winner->tokens_per_s_per_gpu, 210.25);
}

// The writer beside the reader (docs/tune.md): what tune writes reads back to the same record, and a record read back
// is written as the same bytes, the bundled tulu3-tuned's tune.json (a real search) among them.
TEST(TuneSearch, a_record_written_and_read_back_is_the_same_and_the_same_bytes) {
  auto s = parse_tune_search(record().dump(2), "f");
  s.swaps = std::vector<SearchSwap>{
      {"cross_entropy_loss_fusion", {{"cross_entropy_loss_fusion", "False", "True"}}, "m/H200/cefusion"}};
  s.candidates[1].swap = "";
  s.trials[0].outcome = TrialOutcome::cut_slower;
  s.trials[0].best = false;
  const std::string text = tune_search_json(s);
  auto back = parse_tune_search(text, "f");
  EXPECT_EQ(back, s);
  EXPECT_EQ(tune_search_json(back), text);
  const auto bundled = testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/tulu3-tuned/evidence/search.json";
  const std::string file = read_file(bundled);
  EXPECT_EQ(tune_search_json(parse_tune_search(file, bundled.string())), file);
  // Each outcome as docs/tune.md "Trials" spells it, both ways.
  const std::pair<TrialOutcome, const char*> spelled[] = {
      {TrialOutcome::measured, "measured"},      {TrialOutcome::cut_slower, "cut: slower"},
      {TrialOutcome::cut_budget, "cut: budget"}, {TrialOutcome::oom, "oom"},
      {TrialOutcome::crashed, "crashed"},        {TrialOutcome::refused, "refused"},
      {TrialOutcome::interrupted, "interrupted"}};
  for (const auto& [o, name] : spelled) {
    EXPECT_STREQ(outcome_name(o), name);
    EXPECT_EQ(outcome_named(name), o) << name;
  }
  EXPECT_EQ(outcome_named("fast"), std::nullopt);
}

TEST(TuneSearch, the_predicted_step_time_is_kept_where_tune_recorded_it_and_absent_before) {
  auto j = record();
  j["candidates"][1]["predicted_step_time_s"] = 0.4291;
  j["trials"][1]["predicted_step_time_s"] = 0.4291;
  const auto s = parse_tune_search(j.dump(2), "f");
  EXPECT_EQ(s.candidates[0].predicted_step_time_s, std::nullopt);  // a record before the step-time model
  EXPECT_EQ(s.candidates[1].predicted_step_time_s, 0.4291);
  EXPECT_EQ(s.trials[0].predicted_step_time_s, std::nullopt);
  EXPECT_EQ(s.trials[1].predicted_step_time_s, 0.4291);
  const std::string text = tune_search_json(s);
  EXPECT_EQ(parse_tune_search(text, "f"), s);
  EXPECT_EQ(json::parse(text)["trials"][1]["predicted_step_time_s"], 0.4291);
  EXPECT_FALSE(json::parse(text)["trials"][0].contains("predicted_step_time_s"));
  j["trials"][1]["predicted_step_time_s"] = "fast";
  EXPECT_THROW(parse_tune_search(j.dump(), "f"), InputError);
}

TEST(TuneSearch, a_search_without_a_winner_reads) {
  auto j = record();
  j["winner"] = nullptr;
  j["trials"][1]["best"] = false;
  EXPECT_FALSE(parse_tune_search(j.dump(), "f").winner);
}

TEST(TuneSearch, anything_else_is_refused_naming_the_file_and_the_field) {
  auto expect = [](const json& j, const std::string& needle) {
    const std::string e = error_of(j);
    EXPECT_NE(e.find("evidence/search.json: "), std::string::npos) << e;
    EXPECT_NE(e.find(needle), std::string::npos) << e << "\nwanted: " << needle;
  };
  json j = record();
  j["format"] = "other";
  expect(j, "format is not openrecipes-tune");
  j = record(), j["format_version"] = 2;
  expect(j, "format_version is not 1");
  j = record(), j.erase("stopped");
  expect(j, "the record has no field 'stopped'");
  j = record(), j["trials"][0]["wall_s"] = -1;
  expect(j, "trials[0].wall_s is negative or not finite");
  j = record(), j["trials"][0]["outcome"] = "fast";
  expect(j, "trials[0].outcome 'fast' is not one tune writes");
  j = record(), j["trials"][1]["trial"] = 3;
  expect(j, "trials[1] is numbered 3, not 2");
  j = record(), j["trials"][1]["candidate"] = "ghost";
  expect(j, "trials[1] names a candidate the record does not list");
  j = record(), j["trials"][0]["tokens_per_s_per_gpu_interval"] = nullptr;
  expect(j, "trials[0] has a score without its interval");
  j = record(), j["trials"][0]["knobs"] = std::string(70000, 'x');
  expect(j, "trials[0].knobs is longer than 64 KiB");
  j = record(), j["winner"]["trial"] = 1;
  expect(j, "the winner is not one of the record's trials");
  j = record(), j["trials"][0]["best"] = true;
  expect(j, "trial 1's best mark disagrees with the winner (trial 2)");
  j = record(), j["candidates"][1]["name"] = "ref-start";
  expect(j, "the candidate ref-start appears twice");
  j = record(), j["trials"][0]["run_dir"] = 3;
  expect(j, "trials[0].run_dir is not a string or null");
  j = record(), j["trials"][0]["run_dir"] = nullptr;  // a trial that never started
  EXPECT_NO_THROW(parse_tune_search(j.dump(), "evidence/search.json"));
  j = record(), j["gpus"] = 1.5;
  expect(j, "gpus is not a whole number from 0 to 10^6");
  j = record(), j["gpus"] = 4000000;
  expect(j, "gpus is not a whole number from 0 to 10^6");
  j = record(), j["trials"][0]["predicted_peak_mib"] = 1e308;
  expect(j, "trials[0].predicted_peak_mib is over 10^9");
  j = record(), j["trials"][0]["reason"] = "a\x1b[31mred";
  expect(j, "trials[0].reason holds a control character");
  j = record(), j["candidates"][1]["command"] = "torchrun \\\n  --bf16\t--x 1";  // a command keeps its lines
  EXPECT_NO_THROW(parse_tune_search(j.dump(), "evidence/search.json"));
  j = record(), j["trials"][1]["knobs"] = "FP8 and custom kernels";
  expect(j, "trials[1].knobs are not its candidate's");
  j = record(), j["trials"][1]["candidate"] = "ref-start";
  expect(j, "trials[1] tries a candidate a trial before it tried");
  j = record(), j["candidates"][1]["start"] = true;
  expect(j, "2 candidates are the start, not one");
  j = record(), std::swap(j["candidates"][0]["start"], j["candidates"][1]["start"]);
  expect(j, "the first trial is not the start");
  j = record(), j["trials"][1]["tokens_per_s_per_gpu_interval"] = {250.0, 300.0};
  expect(j, "trials[1]'s score lies outside its own interval");
  j = record(), j["trials"][1]["outcome"] = "oom";
  expect(j, "the winner's trial was not measured (oom)");
  EXPECT_NE(error_of(json::array()).find("not a JSON object"), std::string::npos);
  try {
    parse_tune_search(R"({"format": "openrecipes-tune", "format": "openrecipes-tune"})", "f");
    ADD_FAILURE() << "a duplicate key parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("twice"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace openrecipes::evidence

namespace openrecipes::evidence {
namespace {

TEST(TuneSearch, a_trials_log_sits_beside_the_record) {
  EXPECT_EQ(trial_log_path("evidence/search.json", 3), "evidence/search-trials/03.log");
  EXPECT_EQ(trial_log_path("evidence/search.json", 123), "evidence/search-trials/123.log");
  EXPECT_EQ(trial_log_path("search.json", 1), "search-trials/01.log");
}

}  // namespace
}  // namespace openrecipes::evidence
