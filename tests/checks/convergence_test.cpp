// Convergence check (SPEC §4.3) against the real golden-values file and the real H200 runs; expected values
// from an independent numpy script (tests/oracles/convergence.py) and from hand calculations.
#include "checks/convergence.h"

#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "evidence/megatron_log.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {
using testing::fixtures_dir;

LossCurve curve(const std::vector<double>& v) {
  LossCurve c;
  for (std::size_t i = 0; i < v.size(); ++i) c.loss[static_cast<std::int64_t>(i)] = v[i];
  return c;
}

std::vector<double> first20(const LossCurve& c) {
  std::vector<double> v;
  for (std::int64_t s = 0; s < 20; ++s) v.push_back(c.loss.at(s));
  return v;
}

LossCurve run_curve(const std::string& name) {
  auto path = fixtures_dir() / ("runs/megatron-h200/" + name + ".log");
  return loss_curve_from_log(evidence::parse_megatron_log(read_file(path), path.string(), 1));
}

// Runs the oracle on every (cur, ref) pair in one process.
std::vector<nlohmann::json> oracle(const std::vector<std::pair<std::vector<double>, std::vector<double>>>& cases) {
  std::string input;
  for (const auto& [c, r] : cases) input += nlohmann::json{{"cur", c}, {"ref", r}}.dump() + "\n";
  auto res = testing::run_process(
      {testing::oracle_python(), (testing::source_dir() / "tests/oracles/convergence.py").string()}, input);
  EXPECT_EQ(res.exit_code, 0) << res.err;
  std::vector<nlohmann::json> out;
  std::size_t pos = 0;
  while (pos < res.out.size()) {
    auto nl = res.out.find('\n', pos);
    out.push_back(nlohmann::json::parse(res.out.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  return out;
}

void expect_matches_oracle(const ConvergenceResult& got, const nlohmann::json& want, const std::string& name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(got.passed, want["passed"].get<bool>());
  EXPECT_NEAR(got.correlation, want["r"].get<double>(), 1e-12);
  EXPECT_NEAR(got.final_loss_rel_diff, want["final"].get<double>(), 1e-15);
  EXPECT_EQ(got.pointwise_failures, want["pointwise"].get<std::int64_t>());
  EXPECT_EQ(got.outliers, want["outliers"].get<std::int64_t>());
  EXPECT_EQ(got.failed_tests, want["failed"].get<std::vector<std::string>>());
  EXPECT_EQ(got.points, 16);
}

TEST(Convergence, golden_values_file_format_reads_every_step) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = fixtures_dir() / "golden_values/mbridge-deepseek-fsdp-1node-gb200.golden.json";
  auto c = read_golden_values(read_file(path), path.string());
  ASSERT_EQ(c.loss.size(), 50u);  // steps "0".."49"; "alloc" and "max_alloc" are not steps
  EXPECT_DOUBLE_EQ(c.loss.at(0), 11.89415);
  EXPECT_DOUBLE_EQ(c.loss.at(2), 6.210149);
  EXPECT_DOUBLE_EQ(c.loss.at(5), 9.052968);
}

// The real golden-values file with steps' losses set non-finite and written back by Python's own json.dump, which
// writes NaN, Infinity and -Infinity as bare words (not JSON).
std::string golden_with_python_nonfinite() {
  auto path = fixtures_dir() / "golden_values/mbridge-deepseek-fsdp-1node-gb200.golden.json";
  auto r = testing::run_process({testing::oracle_python(), "-c",
                                 "import json,sys\n"
                                 "d=json.load(open(sys.argv[1]))\n"
                                 "d['12']['lm loss']=float('nan'); d['13']['lm loss']=float('inf')\n"
                                 "d['14']['lm loss']=float('-inf')\n"
                                 "json.dump(d, sys.stdout, indent=4)\n",
                                 path.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Convergence, golden_values_written_by_python_with_nan_and_infinity_are_read_as_non_finite_losses) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const std::string text = golden_with_python_nonfinite();
  ASSERT_NE(text.find("\"lm loss\": NaN"), std::string::npos);  // json.dump's own spelling
  ASSERT_NE(text.find("\"lm loss\": -Infinity"), std::string::npos);
  auto c = read_golden_values(text, "golden.json");
  ASSERT_EQ(c.loss.size(), 50u);
  EXPECT_TRUE(std::isnan(c.loss.at(12)));
  EXPECT_EQ(c.loss.at(13), std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.loss.at(14), -std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(c.loss.at(2), 6.210149);  // the finite steps are unchanged
  auto real = read_golden_values(
      read_file(fixtures_dir() / "golden_values/mbridge-deepseek-fsdp-1node-gb200.golden.json"), "real.json");
  auto r = check_convergence(c, real);  // SPEC §4.3: a non-finite loss fails the check
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.failed_tests, (std::vector<std::string>{"non_finite_loss"}));
  EXPECT_EQ(r.problems, (std::vector<std::string>{"step 12 loss is nan in the recipe's arm",
                                                  "step 13 loss is inf in the recipe's arm",
                                                  "step 14 loss is -inf in the recipe's arm"}));
}

TEST(Convergence, golden_values_nan_inside_a_string_or_a_longer_word_is_not_a_number) {
  // Only the bare words json.dump writes are read as non-finite; "NaNa" stays invalid JSON and a string stays text.
  EXPECT_THROW(read_golden_values("{\"0\": {\"lm loss\": NaNa}}", "g.json"), InputError);
  EXPECT_THROW(read_golden_values("{\"0\": {\"lm loss\": nan}}", "g.json"), InputError);  // not Python's spelling
  try {
    read_golden_values("{\"0\": {\"lm loss\": \"NaN\"}}", "g.json");  // json.dump of the string "NaN"
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("g.json: step 0: no numeric \"lm loss\""), std::string::npos) << e.what();
  }
  // NaN as a key, inside strings and inside arrays: keys and strings stay text, the bare word in an array is a number.
  auto j = parse_json_python("{\"NaN\": [NaN, -Infinity, \"a NaN \\\" Infinity\"]}", "g.json", "fix");
  ASSERT_TRUE(j.contains("NaN"));
  EXPECT_TRUE(std::isnan(j["NaN"][0].get<double>()));
  EXPECT_EQ(j["NaN"][1].get<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(j["NaN"][2].get<std::string>(), "a NaN \" Infinity");
}

TEST(Convergence, golden_values_error_positions_are_the_files_own_after_a_nan) {
  // The same broken file with a bare NaN and with a finite number of the same length: the error names one byte.
  auto error_of = [](const std::string& text) {
    return testing::message_of([&] { read_golden_values(text, "g.json"); });
  };
  const std::string with_nan = "{\"0\": {\"lm loss\": NaN}, \"1\": {x}}";
  const std::string with_number = "{\"0\": {\"lm loss\": 1.5}, \"1\": {x}}";
  auto a = error_of(with_nan), b = error_of(with_number);
  auto at = [](const std::string& e) { return e.substr(e.find("at byte"), 12); };
  ASSERT_NE(a.find("not valid JSON at byte"), std::string::npos) << a;
  EXPECT_EQ(at(a), at(b)) << a << "\n" << b;
}

TEST(Convergence, h200_structural_change_passes_and_math_change_fails_as_the_oracle_says) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto ref = run_curve("ref"), mbs2 = run_curve("mbs2"), lr10 = run_curve("lr10");
  auto want = oracle({{first20(mbs2), first20(ref)}, {first20(lr10), first20(ref)}});
  ASSERT_EQ(want.size(), 2u);
  auto a = check_convergence(mbs2, ref);
  expect_matches_oracle(a, want[0], "mbs2 vs ref");
  EXPECT_TRUE(a.passed);
  auto b = check_convergence(lr10, ref);
  expect_matches_oracle(b, want[1], "lr10 vs ref");
  EXPECT_FALSE(b.passed);
  // Hand calculation: final losses 1.002880E+01 (lr10) and 1.132132E+01 (ref).
  EXPECT_NEAR(b.final_loss_rel_diff, (11.32132 - 10.0288) / 11.32132, 1e-15);
  // Pointwise (ref > 2 so tolerance 10%): steps 17, 18, 19 differ by 10.4%, 10.2%, 11.4%; step 16 by 9.5%.
  EXPECT_EQ(b.pointwise_failures, 3);
  EXPECT_EQ(b.failed_tests, (std::vector<std::string>{"point_wise_tolerance", "final_loss"}));
}

TEST(Convergence, golden_reference_against_perturbed_arms_agrees_with_the_oracle) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto golden = read_golden_values(
      read_file(fixtures_dir() / "golden_values/mbridge-deepseek-fsdp-1node-gb200.golden.json"), "golden.json");
  auto ref = first20(golden);
  std::vector<std::pair<std::string, std::vector<double>>> arms;
  arms.emplace_back("identical", ref);
  std::vector<double> v = ref;
  for (auto& x : v) x *= 1.03;
  arms.emplace_back("scaled 3%", v);
  v = ref;
  for (auto& x : v) x *= 1.06;
  arms.emplace_back("scaled 6%", v);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.02);
  v = ref;
  for (auto& x : v) x *= 1.0 + noise(rng);
  arms.emplace_back("2% noise", v);
  v = ref;
  v[12] *= 1.5;
  arms.emplace_back("one spike", v);
  v = ref;
  v[17] *= 0.8, v[18] *= 0.8;
  arms.emplace_back("two late drops", v);
  v = ref;
  std::reverse(v.begin() + 4, v.end());
  arms.emplace_back("reversed", v);
  std::vector<std::pair<std::vector<double>, std::vector<double>>> cases;
  for (const auto& [name, arm] : arms) cases.emplace_back(arm, ref);
  auto want = oracle(cases);
  ASSERT_EQ(want.size(), arms.size());
  int passed = 0, failed = 0;
  for (std::size_t i = 0; i < arms.size(); ++i) {
    auto got = check_convergence(curve(arms[i].second), golden);
    expect_matches_oracle(got, want[i], arms[i].first);
    (got.passed ? passed : failed)++;
  }
  EXPECT_GT(passed, 0);  // the cases exercise both verdicts
  EXPECT_GT(failed, 0);
}

TEST(Convergence, a_missing_step_fails_even_though_upstream_would_not_see_it) {
  std::vector<double> v(20, 3.0);
  for (int i = 0; i < 20; ++i) v[i] = 5.0 - 0.1 * i;
  auto ref = curve(v);
  auto cur = curve(v);
  cur.loss.erase(7);
  auto r = check_convergence(cur, ref);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.failed_tests, std::vector<std::string>{"missing_steps"});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0], "step 7 has no loss in the recipe's arm");
}

TEST(Convergence, a_nan_loss_fails_where_upstream_silently_passes) {
  std::vector<double> v(20);
  for (int i = 0; i < 20; ++i) v[i] = 5.0 - 0.1 * i;
  auto cur = v;
  cur[15] = std::nan("");
  auto r = check_convergence(curve(cur), curve(v));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.failed_tests, std::vector<std::string>{"non_finite_loss"});
  EXPECT_EQ(r.problems[0], "step 15 loss is nan in the recipe's arm");
}

TEST(Convergence, tolerance_follows_the_reference_value) {
  // ref 0.4 (tolerance 2%) with cur 0.41 (2.5% off) fails pointwise at every point; ref 1.0 (5%) with 1.04 passes.
  std::vector<double> low(20), lowc(20), mid(20), midc(20);
  for (int i = 0; i < 20; ++i) {
    low[i] = 0.4 + 0.001 * i, lowc[i] = low[i] * 1.025;
    mid[i] = 1.0 + 0.01 * i, midc[i] = mid[i] * 1.04;
  }
  auto a = check_convergence(curve(lowc), curve(low));
  EXPECT_EQ(a.pointwise_failures, 16);
  auto b = check_convergence(curve(midc), curve(mid));
  EXPECT_EQ(b.pointwise_failures, 0);
  EXPECT_TRUE(b.passed);
}

TEST(Convergence, interval_records_cannot_make_a_loss_curve) {
  StepLog log;
  log.file = "x.log";
  StepRecord r;
  r.steps = 10;
  r.loss = 2.0;
  r.line = 3;
  log.records.push_back(r);
  EXPECT_THROW(loss_curve_from_log(log), InputError);
}

TEST(Convergence, golden_file_with_a_step_without_loss_is_an_error) {
  EXPECT_THROW(read_golden_values("{\"0\": {\"elapsed time per iteration (ms)\": 1}}", "g.json"), InputError);
  EXPECT_THROW(read_golden_values("[1, 2]", "g.json"), InputError);
}

std::string golden_error(const std::string& json) {
  return testing::message_of([&] { read_golden_values(json, "g.json"); });
}

TEST(Convergence, golden_keys_are_canonical_steps_or_the_known_run_level_keys) {
  const std::string loss = "{\"lm loss\": 2.0}";
  for (const char* key : {"five", "99999999999999999999999", "05", "+5", "-1", " 5", "5.0", "", "allocated"}) {
    auto m = golden_error(fmt::format("{{\"0\": {}, \"{}\": {}}}", loss, key, loss));
    EXPECT_NE(m.find("g.json: key '" + std::string(key) + "' is neither a step"), std::string::npos)
        << key << ": " << m;
  }
  // The real file's run-level keys (alloc, max_alloc) are read past; "0" and "10" are steps.
  auto c =
      read_golden_values("{\"0\": " + loss + ", \"10\": " + loss + ", \"alloc\": 81.9, \"max_alloc\": 93.2}", "g.json");
  EXPECT_EQ(c.loss.size(), 2u);
  EXPECT_EQ(c.loss.count(10), 1u);
}

TEST(Convergence, constant_curves_have_no_correlation_and_fail_that_test) {
  // Identical constant arms: numpy.corrcoef gives nan (0/0), and upstream's r >= 0.95 is then false. Every
  // other test passes (no pointwise difference, no residual spread).
  auto flat = curve(std::vector<double>(20, 1.2));
  auto r = check_convergence(flat, flat);
  EXPECT_TRUE(std::isnan(r.correlation));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.failed_tests, std::vector<std::string>{"correlation"});
  // 0.1 summed in different orders is not exactly constant in floating point, but the values are: still nan.
  auto tenth = curve(std::vector<double>(20, 0.1));
  EXPECT_TRUE(std::isnan(check_convergence(tenth, tenth).correlation));
}

TEST(Convergence, an_arm_must_be_a_run_of_exactly_20_steps) {
  StepLog log;
  log.file = "arm.log";
  log.train_iters = 25;
  EXPECT_THROW(require_arm_length(log), InputError);
  try {
    require_arm_length(log);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("arm.log: this arm ran 25 steps; the convergence check compares 20-step arms"),
              std::string::npos)
        << e.what();
  }
  // A format without a run length (slime, steps.jsonl): a record at step 24 shows a 25-step run.
  StepLog nolen;
  nolen.file = "arm.jsonl";
  for (int s = 0; s < 25; ++s) {
    StepRecord r;
    r.first_step = s;
    r.line = static_cast<std::size_t>(s + 1);
    nolen.records.push_back(r);
  }
  EXPECT_THAT(testing::message_of([&] { require_arm_length(nolen); }),
              ::testing::HasSubstr("arm.jsonl:21: this arm has step 20, so it ran more than 20 steps"));
  nolen.records.resize(20);
  EXPECT_NO_THROW(require_arm_length(nolen));
}

TEST(GoldenValues, a_step_given_twice_is_an_error_not_the_last_one_winning) {
  EXPECT_THAT(testing::message_of([&] {
                read_golden_values(R"({"0": {"lm loss": 10.0}, "1": {"lm loss": 9.0}, "1": {"lm loss": 1.0}})",
                                   "g.json");
              }),
              ::testing::HasSubstr("g.json: the key \"1\" appears twice in one object"));
}

TEST(ConvergenceWording, each_failed_test_is_described_with_the_limits_the_check_ran_with) {
  ConvergenceResult r;
  r.points = 16;
  r.correlation = 0.91234;
  r.final_loss_rel_diff = 0.1142;
  r.pointwise_failures = 3;  // 3 / 16 = 18.75%
  r.outliers = 2;            // 2 / 16 = 12.5%
  r.failed_tests = {"correlation", "point_wise_tolerance", "final_loss", "outliers", "missing_steps"};
  const auto d = describe_failures(r);
  ASSERT_EQ(d.size(), 4u);  // missing_steps is told by r.problems
  EXPECT_EQ(d[0], "correlation r = 0.9123 < 0.95");
  EXPECT_EQ(d[1],
            "3 of 16 points (18.8%, more than the 10% allowed) differ from the reference loss by more than the "
            "pointwise tolerance (10%, 5% or 2% by loss level)");
  EXPECT_EQ(d[2], "final loss differs by 11.42% relative to the reference (> 5%)");
  EXPECT_EQ(d[3], "2 of 16 residuals (12.5%, more than the 10% allowed) are 3-sigma outliers");
  r.correlation = std::nan("");  // a constant curve: upstream's nan >= 0.95 is false
  r.failed_tests = {"correlation"};
  EXPECT_EQ(describe_failures(r).at(0), "correlation undefined (a constant curve), not >= 0.95");
}

TEST(ConvergenceWording, other_thresholds_give_other_numbers_in_the_wording_never_fixed_literals) {
  ConvergenceThresholds t;
  t.correlation = 0.9;
  t.high_loss_tolerance = 0.2;
  t.medium_loss_tolerance = 0.075;
  t.low_loss_tolerance = 0.025;
  t.max_failure_ratio = 0.15;
  t.final_loss_tolerance = 0.03;
  t.outlier_sigmas = 2.5;
  ConvergenceResult r;
  r.points = 20;
  r.correlation = 0.5;
  r.final_loss_rel_diff = 0.04;
  r.pointwise_failures = 4;
  r.outliers = 4;
  r.failed_tests = {"correlation", "point_wise_tolerance", "final_loss", "outliers"};
  const auto d = describe_failures(r, t);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0], "correlation r = 0.5000 < 0.9");
  EXPECT_EQ(d[1],
            "4 of 20 points (20.0%, more than the 15% allowed) differ from the reference loss by more than the "
            "pointwise tolerance (20%, 7.5% or 2.5% by loss level)");
  EXPECT_EQ(d[2], "final loss differs by 4.00% relative to the reference (> 3%)");
  EXPECT_EQ(d[3], "4 of 20 residuals (20.0%, more than the 15% allowed) are 2.5-sigma outliers");
}

}  // namespace
}  // namespace openrecipes::checks
