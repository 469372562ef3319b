// SPEC §4 for one recipe: both checks against its reference (registry/evaluation_context.h).
#include <fmt/format.h>

#include <algorithm>

#include "checks/command_policy.h"
#include "checks/config_check.h"
#include "checks/convergence.h"
#include "core/protocol.h"
#include "registry/component_tests.h"
#include "registry/evaluation_context.h"

namespace openrecipes::registry {
namespace {

// Run length in the configuration check (PROTOCOL.md "Measurement"): a profiler run (21–25 steps) or a 14-step
// run differs from its 20-step reference in train_iters, which sets the learning-rate schedule, so by default that
// is math. It is bookkeeping exactly when the recipe's convergence evidence is a separate 20-step arm whose
// argument dump equals the reference's in every math argument: the arm then shows the recipe's math is the
// reference's, and the measured run (which the arm check ties to the arm) differs only in length. A recipe whose
// measured run is its own arm keeps the strict rule.
checks::ConfigCheckOptions run_length_options(const Recipe& r, const RecipeEvidence& ev, const RecipeEvidence& rev,
                                              const checks::ArgumentRules& rules, const checks::ModelFacts& facts) {
  checks::ConfigCheckOptions o;
  if (!r.convergence_arm || r.convergence_arm->path == r.log.path || !ev.arm || !ev.arm_args || !rev.args) return o;
  auto arm_vs_reference = checks::check_configuration(ev.arm_args->values, rev.args->values, rules, {}, facts);
  for (const auto& c : arm_vs_reference.changes)
    if (c.classification.cls == checks::ArgClass::math || c.classification.cls == checks::ArgClass::unclassified)
      return o;
  o.run_length_is_bookkeeping = true;
  o.run_length_why = fmt::format(
      "the recipe's convergence arm {} is a separate {}-step run whose arguments equal the reference's in every math "
      "argument",
      ev.arm_file, protocol::kConvergenceSteps);
  return o;
}

}  // namespace

// SPEC §4: both checks against the reference recipe; a reference recipe passes them trivially, but the objective
// conventions still apply to it.
void run_reference_checks(const EvaluationContext& c, const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  checks::ModelFacts facts;
  if (auto model = c.reg.models.find(r.model); model != c.reg.models.end())
    facts = {model->second.family, model->second.layer_shape};
  const ReferenceResolution res = resolve_reference(r, c.by_id, c.pair_reference);
  out.is_reference = res.is_reference;
  if (res.problem) out.reasons.push_back(*res.problem);
  if (ev.arm) out.arm = ArmCurve{ev.arm_file, ev.arm->loss};
  if (res.reference) {
    const Recipe& ref = *res.reference;
    const RecipeEvidence& rev = c.loaded.at(ref.id);
    if (rev.arm) out.reference_arm = ArmCurve{rev.arm_file, rev.arm->loss};
    if (!ev.arm_sha256.empty() && ev.arm_sha256 == rev.arm_sha256)
      add_reason(out, Stage::convergence, "convergence.same-arm",
                 fmt::format("the recipe's arm is byte-identical to the reference's arm '{}/{}'", ref.id, rev.arm_file),
                 "give the recipe's own 20-step run");
    if (ref.model != r.model)
      add_reason(out, Stage::reference, "reference.model", "'" + ref.id + "' is a recipe of another model");
    if (ref.workload.key != r.workload.key || ref.workload.row_length != r.workload.row_length ||
        ref.workload.global_batch != r.workload.global_batch ||
        (r.workload.standard && ref.workload.rows_sha256 != r.workload.rows_sha256))
      add_reason(out, Stage::reference, "reference.workload", "'" + ref.id + "' ran on another workload or other rows");
    // The rows the reference records are the recipe's too (SPEC §4.3: the arms ran on the same rows), whatever the
    // workload: a recipe that records none, or others, did not show it ran on them.
    else if (!ref.workload.rows_sha256.empty() &&
             (r.workload.rows_sha256 != ref.workload.rows_sha256 || r.workload.rows_count != ref.workload.rows_count))
      add_reason(
          out, Stage::reference, "reference.rows",
          fmt::format("workload.rows is {}, and its reference '{}' records {{count: {}, sha256: {}}}: the two arms did "
                      "not run on the same rows",
                      r.workload.rows_sha256.empty()
                          ? std::string("not recorded")
                          : fmt::format("{{count: {}, sha256: {}}}", r.workload.rows_count, r.workload.rows_sha256),
                      ref.id, ref.workload.rows_count, ref.workload.rows_sha256),
          "record the rows the run read (openrecipes rows verify), the same as its reference's");
    if (!ev.args || !rev.args) {
      add_reason(out, Stage::configuration, "configuration.cannot-run",
                 "cannot run: " + (ev.args ? "the reference: " + rev.args_error : ev.args_error));
    } else {
      auto options = run_length_options(r, ev, rev, c.reg.rules, facts);
      options.recipe_env = ev.env;
      options.reference_env = rev.env;
      options.environment = [](const std::string& name) {
        return checks::CommandPolicy::bundled().environment_class(name);
      };
      out.component_tests = judge_component_tests(c.reg, r, &*ev.args, &*rev.args, facts.layer_shape);
      out.configuration = checks::check_configuration(ev.args->values, rev.args->values, c.reg.rules,
                                                      out.component_tests, facts, options);
    }
    if (!ev.arm || !rev.arm)
      add_reason(
          out, Stage::convergence, "convergence.cannot-run",
          "cannot run: " + (ev.arm ? "the reference arm: " + rev.arm_error : "the recipe's arm: " + ev.arm_error));
    else
      out.convergence = checks::check_convergence(*ev.arm, *rev.arm);
  } else if (!r.reference) {
    std::map<std::string, std::string> none;
    out.configuration = checks::check_configuration(ev.args ? ev.args->values : none, std::nullopt, c.reg.rules,
                                                    r.component_tests, facts);
  }
  // A component-test record must justify a same-math swap the recipe makes: one of no changed argument is refused (a
  // record the evidence does not need would still be published beside the recipe).
  if (out.configuration)
    for (const auto& t : out.component_tests.empty() ? r.component_tests : out.component_tests) {
      bool used = false;
      for (const auto& ch : out.configuration->changes)
        used |= ch.classification.cls == checks::ArgClass::same_math_swap &&
                (ch.name == t.swap || std::find(t.covers.begin(), t.covers.end(), ch.name) != t.covers.end());
      if (!used)
        add_reason(
            out, Stage::configuration, "configuration.component-test-unused",
            fmt::format("component test of {} ({}): the recipe makes no same-math swap of {} against its reference",
                        t.swap, t.where, t.swap),
            "remove the record, or test a swap the recipe makes");
    }
  if (out.configuration && !out.configuration->eligible) {
    std::string why;
    for (const auto& p : out.configuration->problems) why += (why.empty() ? "" : "; ") + p;
    add_reason(out, Stage::configuration, "configuration.ineligible", "ineligible: " + why);
  }
  if (out.convergence && !out.convergence->passed) {
    std::string why;
    for (const auto& d : checks::describe_failures(*out.convergence)) why += (why.empty() ? "" : "; ") + d;
    for (const auto& p : out.convergence->problems) why += (why.empty() ? "" : "; ") + p;
    add_reason(out, Stage::convergence, "convergence.failed", "failed: " + why);
  }
}

}  // namespace openrecipes::registry
