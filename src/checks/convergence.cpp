// Convergence check (SPEC §4.3), the rule of Megatron-Bridge's validate_convergence with pipeline thresholds.
#include "checks/convergence.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_limits.h"
#include "core/text.h"

namespace openrecipes::checks {

LossCurve loss_curve_from_log(const StepLog& log) {
  LossCurve c;
  c.source = log.file;
  for (const auto& r : log.records) {
    if (!r.loss) continue;
    if (r.steps != 1)
      throw InputError(fmt::format("{}:{}", log.file, r.line),
                       fmt::format("this record averages the loss over {} steps; the convergence check needs the "
                                   "loss of every step",
                                   r.steps),
                       "re-run the arm with --log-interval 1");
    c.loss[r.first_step] = *r.loss;
  }
  return c;
}

void require_arm_length(const StepLog& log, std::int64_t steps) {
  if (log.train_iters && *log.train_iters != steps)
    throw InputError(
        log.file,
        fmt::format("this arm ran {} steps; the convergence check compares {}-step arms", *log.train_iters, steps),
        fmt::format("give the log of a run of exactly {} steps (--train-iters {})", steps, steps));
  for (const auto& r : log.records)
    if (r.last_step() >= steps)
      throw InputError(fmt::format("{}:{}", log.file, r.line),
                       fmt::format("this arm has step {}, so it ran more than {} steps; the convergence check "
                                   "compares {}-step arms",
                                   r.last_step(), steps, steps),
                       fmt::format("give the log of a run of exactly {} steps (steps 0 to {})", steps, steps - 1));
}

const std::vector<std::string>& golden_values_run_keys() {
  static const std::vector<std::string> keys{"alloc", "max_alloc"};
  return keys;
}

LossCurve read_golden_values(std::string_view json_text, const std::string& file) {
  const char* fix = "give a Megatron-Bridge golden-values file ({\"0\": {\"lm loss\": x}}), unedited";
  // Python's json.dump writes a nan loss as the bare word NaN (and inf as Infinity): read, it is a non-finite loss,
  // which fails the check (SPEC §4.3), not a file that cannot be read. A step given twice is an error, not the
  // last one winning.
  auto j = parse_json_python(json_text, file, fix);
  if (!j.is_object()) throw InputError(file, "not a JSON object", fix);
  LossCurve c;
  c.source = file;
  const auto& run_keys = golden_values_run_keys();
  for (auto& [key, value] : j.items()) {
    if (std::find(run_keys.begin(), run_keys.end(), key) != run_keys.end()) continue;  // run-level fields
    // A step key is the canonical decimal of a 0-based step: "0", "17"; never "05", "+5", "five" or a number
    // beyond any run.
    bool canonical = !key.empty() && key.size() <= 9 && (key == "0" || key[0] != '0') &&
                     std::all_of(key.begin(), key.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!canonical)
      throw InputError(file,
                       fmt::format("key {} is neither a step (0, 1, 2, ... in plain decimal) nor one of the "
                                   "run-level keys (alloc, max_alloc)",
                                   quote_for_message(key)),
                       "give a Megatron-Bridge golden-values file ({\"0\": {\"lm loss\": x}, ...}), unedited");
    auto step = parse_int(key);
    if (!value.is_object() || !value.contains("lm loss") || !value["lm loss"].is_number())
      throw InputError(
          file + ": step " + key, "no numeric \"lm loss\"",
          "each step needs {\"lm loss\": <number>} (NaN, Infinity and -Infinity as json.dump writes them)");
    c.loss[*step] = value["lm loss"].get<double>();
  }
  if (c.loss.empty()) throw InputError(file, "no steps", "give a Megatron-Bridge golden-values file");
  return c;
}

ConvergenceResult check_convergence(const LossCurve& recipe, const LossCurve& reference, std::int64_t steps,
                                    const ConvergenceThresholds& t) {
  ConvergenceResult out;
  std::vector<double> cur, ref;
  for (std::int64_t s = 0; s < steps; ++s) {
    auto a = recipe.loss.find(s);
    auto b = reference.loss.find(s);
    if (a == recipe.loss.end()) out.problems.push_back(fmt::format("step {} has no loss in the recipe's arm", s));
    if (b == reference.loss.end()) out.problems.push_back(fmt::format("step {} has no loss in the reference arm", s));
    if (a == recipe.loss.end() || b == reference.loss.end()) continue;
    if (!std::isfinite(a->second))
      out.problems.push_back(fmt::format("step {} loss is {} in the recipe's arm", s, format_double(a->second)));
    if (!std::isfinite(b->second))
      out.problems.push_back(fmt::format("step {} loss is {} in the reference arm", s, format_double(b->second)));
    cur.push_back(a->second);
    ref.push_back(b->second);
  }
  if (!out.problems.empty()) {
    bool missing = std::any_of(out.problems.begin(), out.problems.end(),
                               [](const std::string& p) { return p.find("has no loss") != std::string::npos; });
    bool nonfinite = std::any_of(out.problems.begin(), out.problems.end(),
                                 [](const std::string& p) { return p.find(" loss is ") != std::string::npos; });
    if (missing) out.failed_tests.push_back("missing_steps");
    if (nonfinite) out.failed_tests.push_back("non_finite_loss");
    out.passed = false;
    out.correlation = std::nan("");
    out.final_loss_rel_diff = std::nan("");
    return out;
  }
  // 1. Drop the first floor(0.20 × n) points.
  const std::size_t skip =
      static_cast<std::size_t>(std::floor(static_cast<double>(cur.size()) * t.skip_first_fraction));
  cur.erase(cur.begin(), cur.begin() + static_cast<std::ptrdiff_t>(skip));
  ref.erase(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(skip));
  const std::size_t n = cur.size();
  out.points = static_cast<std::int64_t>(n);
  const double dn = static_cast<double>(n);
  // 2. Pearson correlation (numpy.corrcoef).
  double mc = 0, mr = 0;
  for (std::size_t i = 0; i < n; ++i) mc += cur[i], mr += ref[i];
  mc /= dn;
  mr /= dn;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (cur[i] - mc) * (ref[i] - mr);
    sxx += (cur[i] - mc) * (cur[i] - mc);
    syy += (ref[i] - mr) * (ref[i] - mr);
  }
  // A constant curve has no correlation (numpy.corrcoef gives nan and upstream's r >= 0.95 test then fails):
  // NaN, decided by the values themselves rather than by rounding in the sums.
  auto constant = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; });
  };
  out.correlation = constant(cur) || constant(ref) ? std::nan("") : sxy / std::sqrt(sxx) / std::sqrt(syy);
  if (std::isfinite(out.correlation)) out.correlation = std::clamp(out.correlation, -1.0, 1.0);
  if (!(out.correlation >= t.correlation)) out.failed_tests.push_back("correlation");
  // 3. Pointwise tolerance chosen by the reference value.
  for (std::size_t i = 0; i < n; ++i) {
    const double tol = pointwise_tolerance(ref[i], t);
    double rel = ref[i] != 0 ? std::fabs(cur[i] - ref[i]) / std::fabs(ref[i]) : std::fabs(cur[i]);
    if (rel > tol) ++out.pointwise_failures;
  }
  if (static_cast<double>(out.pointwise_failures) / dn > t.max_failure_ratio)
    out.failed_tests.push_back("point_wise_tolerance");
  // 4. Final point.
  out.final_loss_rel_diff =
      ref.back() != 0 ? std::fabs(cur.back() - ref.back()) / std::fabs(ref.back()) : std::fabs(cur.back());
  if (out.final_loss_rel_diff > t.final_loss_tolerance) out.failed_tests.push_back("final_loss");
  // 5. Residual outliers (3-sigma, population std).
  std::vector<double> res(n);
  double mres = 0;
  for (std::size_t i = 0; i < n; ++i) mres += (res[i] = cur[i] - ref[i]);
  mres /= dn;
  double var = 0;
  for (double r : res) var += (r - mres) * (r - mres);
  double sd = std::sqrt(var / dn);
  for (double r : res)
    if (std::fabs(r - mres) > t.outlier_sigmas * sd) ++out.outliers;
  if (static_cast<double>(out.outliers) / dn > t.max_failure_ratio) out.failed_tests.push_back("outliers");
  out.passed = out.failed_tests.empty();
  return out;
}

namespace {

// A fraction as a percentage with no trailing zeros: 0.1 -> "10%", 0.025 -> "2.5%".
std::string percent_limit(double fraction) { return fmt::format("{:g}%", 100 * fraction); }

// A failure count as a share of the points ("3 of 16 points (18.8%, more than the 10% allowed)").
std::string share(std::int64_t count, std::int64_t points, const char* noun, double allowed) {
  return fmt::format("{} of {} {} ({:.1f}%, more than the {} allowed)", count, points, noun,
                     100.0 * static_cast<double>(count) / static_cast<double>(points), percent_limit(allowed));
}

}  // namespace

std::vector<std::string> describe_failures(const ConvergenceResult& r, const ConvergenceThresholds& t) {
  std::vector<std::string> out;
  for (const auto& test : r.failed_tests) {
    if (test == "missing_steps" || test == "non_finite_loss") continue;  // r.problems name the steps
    if (test == "correlation") {
      if (std::isfinite(r.correlation))
        out.push_back(fmt::format("correlation r = {:.4f} < {}", r.correlation, format_double(t.correlation)));
      else
        out.push_back(fmt::format("correlation undefined (a constant curve), not >= {}", format_double(t.correlation)));
    } else if (test == "point_wise_tolerance") {
      out.push_back(share(r.pointwise_failures, r.points, "points", t.max_failure_ratio) +
                    fmt::format(" differ from the reference loss by more than the pointwise tolerance ({}, {} or {} "
                                "by loss level)",
                                percent_limit(t.high_loss_tolerance), percent_limit(t.medium_loss_tolerance),
                                percent_limit(t.low_loss_tolerance)));
    } else if (test == "final_loss") {
      out.push_back(fmt::format("final loss differs by {:.2f}% relative to the reference (> {})",
                                100 * r.final_loss_rel_diff, percent_limit(t.final_loss_tolerance)));
    } else if (test == "outliers") {
      out.push_back(share(r.outliers, r.points, "residuals", t.max_failure_ratio) +
                    fmt::format(" are {:g}-sigma outliers", t.outlier_sigmas));
    } else {
      out.push_back(test);
    }
  }
  return out;
}

double pointwise_tolerance(double reference_loss, const ConvergenceThresholds& t) {
  return reference_loss > 2.0   ? t.high_loss_tolerance
         : reference_loss > 0.5 ? t.medium_loss_tolerance
                                : t.low_loss_tolerance;
}

}  // namespace openrecipes::checks
