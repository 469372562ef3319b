// Per-recipe evaluation (SPEC §2–§6): reads each recipe's evidence once, then runs each stage's rules in the
// SPEC's order (measurement, cost and MFU, scheduler times, the arm, layout and stack, rows, both checks, the
// claims of the checks). The rules themselves live in their stages: measure/, params/, checks/, layout/ and
// registry/references.
#include "registry/evaluate.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "checks/lr_schedule.h"
#include "checks/run_length.h"
#include "checks/stack.h"
#include "core/error.h"
#include "core/files.h"
#include "core/protocol.h"
#include "core/sha256.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/scheduler_times.h"
#include "evidence/step_log.h"
#include "evidence/versions.h"
#include "measure/claims.h"
#include "measure/cost.h"
#include "params/mfu.h"
#include "registry/model_params.h"
#include "registry/references.h"

namespace openrecipes::registry {
namespace {

/// Evidence read once per recipe (a reference's evidence is reused by every recipe that names it).
struct Loaded {
  std::optional<evidence::ArgumentDump> args;
  std::string args_error;
  std::optional<StepLog> log;
  std::string log_error;
  std::optional<checks::LossCurve> arm;  ///< the 20-step convergence arm
  std::string arm_error;
  std::string arm_sha256;  ///< sha256 of the arm's file bytes (empty when it could not be read)
  std::string arm_file;    ///< the arm's path as the recipe writes it
  /// The argument dump of a separate arm file (evidence.convergence_arm other than the measured log).
  std::optional<evidence::ArgumentDump> arm_args;
  std::string arm_args_error;
};

Loaded load_evidence(const Recipe& r) {
  Loaded out;
  if (r.arguments) {
    try {
      out.args = evidence::parse_megatron_args(read_file(r.arguments->path), r.arguments->relative);
    } catch (const InputError& e) {
      out.args_error = e.what();
    }
  } else {
    out.args_error = "the recipe gives no argument dump (evidence.arguments)";
  }
  std::optional<std::int64_t> interval;
  if (out.args) interval = evidence::log_interval_of(*out.args);
  try {
    out.log = evidence::read_step_log(r.log.path, r.log.format, interval, r.log.relative);
  } catch (const InputError& e) {
    out.log_error = e.what();
  }
  try {
    if (r.convergence_arm) {
      out.arm_file = r.convergence_arm->relative;
      out.arm_sha256 = sha256_hex(read_file(r.convergence_arm->path));
      if (r.convergence_arm->path != r.log.path) {
        try {
          out.arm_args = evidence::parse_megatron_args(read_file(r.convergence_arm->path), r.convergence_arm->relative);
        } catch (const InputError& e) {
          out.arm_args_error = e.what();
        }
      }
      // A separate arm is read with its own logging interval (its own dump's, else the gaps between its lines), as
      // `check convergence` reads it.
      std::optional<std::int64_t> arm_interval = interval;
      if (r.convergence_arm->path != r.log.path)
        arm_interval = out.arm_args ? evidence::log_interval_of(*out.arm_args) : std::nullopt;
      auto arm = evidence::read_step_log(r.convergence_arm->path, r.convergence_arm->format, arm_interval,
                                         r.convergence_arm->relative);
      checks::require_arm_length(arm);
      out.arm = checks::loss_curve_from_log(arm);
    } else if (r.steps_per_run == protocol::kConvergenceSteps) {
      out.arm_file = r.log.relative;
      if (out.log) out.arm_sha256 = sha256_hex(read_file(r.log.path));
      if (out.log)
        out.arm = checks::loss_curve_from_log(*out.log);
      else
        out.arm_error = out.log_error;
    } else {
      out.arm_error = fmt::format(
          "the measured run ran {} steps, so it is not a convergence arm (only a run of "
          "exactly {} steps is), and the recipe gives no separate {}-step arm "
          "(evidence.convergence_arm)",
          r.steps_per_run, protocol::kConvergenceSteps, protocol::kConvergenceSteps);
    }
  } catch (const InputError& e) {
    out.arm_error = e.what();
  }
  return out;
}

// Run length in the configuration check (PROTOCOL.md "Measurement"): a profiler run (21–25 steps) or a 14-step
// run differs from its 20-step reference in train_iters, which sets the learning-rate schedule, so by default that
// is math. It is bookkeeping exactly when the recipe's convergence evidence is a separate 20-step arm whose
// argument dump equals the reference's in every math argument: the arm then shows the recipe's math is the
// reference's, and the measured run (which the arm check above ties to the arm) differs only in length. A recipe
// whose measured run is its own arm keeps the strict rule.
checks::ConfigCheckOptions run_length_options(const Recipe& r, const Loaded& ev, const Loaded& rev,
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

std::string pct(double x) { return fmt::format("{:.2f}%", 100 * x); }

// What every step below reads: the registry, its recipes by id, each recipe's evidence (read once) and each
// model's N (recounted once).
struct Context {
  const Registry& reg;
  const RecipesById& by_id;
  const std::map<std::string, Loaded>& loaded;
  const std::map<std::string, ModelCount>& counts;
  const std::map<std::string, std::string>& pair_reference;
};

void add_all(RecipeResult& out, const std::string& stage, const std::vector<std::string>& sentences) {
  for (const auto& s : sentences) out.reasons.push_back(stage + s);
}

// The recipe's GPU type and model must be in the registry.
void check_known_names(const Registry& reg, const Recipe& r, RecipeResult& out) {
  if (!reg.gpus.count(r.gpu)) {
    std::string list;
    for (const auto& [k, v] : reg.gpus) list += (list.empty() ? "" : ", ") + k;
    out.reasons.push_back(fmt::format("recipe: unknown GPU type '{}' (registry/gpus.yaml has {})", r.gpu, list));
  }
  if (!reg.models.count(r.model))
    out.reasons.push_back(fmt::format("recipe: unknown model '{}' (no registry/models/{}.yaml)", r.model, r.model));
}

// SPEC §2: the score and CV over the protocol's window, and the recipe's claims of them.
void measure_run(const Recipe& r, const Loaded& ev, RecipeResult& out) {
  if (!ev.log) {
    out.reasons.push_back("measurement: " + ev.log_error);
    return;
  }
  out.step_time_field = ev.log->time_field;
  for (const auto& rec : ev.log->records)
    out.run_series.push_back(
        {rec.first_step, rec.steps, rec.time_s,
         rec.tokens ? *rec.tokens : rec.rows.value_or(r.workload.global_batch) * r.workload.row_length, rec.loss});
  if (ev.log->train_iters && *ev.log->train_iters != r.steps_per_run)
    out.reasons.push_back(fmt::format("measurement: the recipe records steps_per_run {}, but {} shows a {}-step run",
                                      r.steps_per_run, ev.log->file, *ev.log->train_iters));
  try {
    auto window = measure::window_for_run(r.steps_per_run, r.window, r.file.string() + ": window");
    out.window = window;
    out.throughput =
        measure::measure_throughput(*ev.log, window, {r.gpus, r.workload.row_length, r.workload.global_batch});
  } catch (const InputError& err) {
    out.reasons.push_back(std::string("measurement: ") + err.what());
  }
  if (out.throughput)
    add_all(out, "measurement: ",
            measure::throughput_claim_problems(r.claims.tokens_per_s_per_gpu, r.claims.cv, *out.throughput));
}

// SPEC §3: $ per 1M tokens from the GPU's rate, MFU from the model's N, and numbers no real run can give.
void price_run(const Context& c, const Recipe& r, RecipeResult& out) {
  if (!out.throughput) return;
  const double score = out.throughput->tokens_per_s_per_gpu;
  if (auto gpu = c.reg.gpus.find(r.gpu); gpu != c.reg.gpus.end()) {
    out.dollars_per_million_tokens = measure::dollars_per_million_tokens(gpu->second.dollars_per_gpu_hour, score);
    if (c.reg.models.count(r.model)) {
      const ModelCount& n = c.counts.at(r.model);
      out.active_params = n.n;
      out.active_params_from = n.counted_from;
      try {
        out.mfu = params::mfu(static_cast<double>(n.n), score, gpu->second.dense_bf16_tflops);
      } catch (const InputError& err) {
        out.reasons.push_back(std::string("measurement: ") + err.what());
      }
      for (const auto& p : n.problems) out.reasons.push_back(p);
    }
  }
  add_all(out, "measurement: ", measure::implausible_numbers(score, out.dollars_per_million_tokens, out.mfu));
}

// SPEC §2 "GPU-hours": from the scheduler's admission and finish times; they must cover the logged steps.
void check_scheduler_times(const Recipe& r, const Loaded& ev, RecipeResult& out) {
  if (!r.times) {
    out.reasons.push_back("measurement: no scheduler times (evidence.times), so GPU-hours cannot be computed");
    return;
  }
  try {
    auto text = read_file(r.times->path);
    auto t = evidence::parse_run_times(text, r.times->relative, r.times->format, r.times->run);
    if (t.exit_code != 0)
      out.reasons.push_back(
          fmt::format("measurement: the run exited with code {} ({}:{})", t.exit_code, r.times->relative, t.line));
    else if (!t.state.empty() && t.state != "COMPLETED")
      out.reasons.push_back(fmt::format("measurement: the Slurm job ended {}, not COMPLETED ({}:{})", t.state,
                                        r.times->relative, t.line));
    out.gpu_hours = measure::gpu_hours(r.gpus, t.admitted_s, t.finished_s);
    if (ev.log)
      if (auto p = measure::scheduler_span_problem(*ev.log, t.admitted_s, t.finished_s))
        out.reasons.push_back("measurement: " + *p);
    if (auto p = measure::gpu_hours_claim_problem(r.claims.gpu_hours, *out.gpu_hours))
      out.reasons.push_back("measurement: " + *p);
  } catch (const InputError& err) {
    out.reasons.push_back(std::string("measurement: ") + err.what());
  }
}

// SPEC §4.3: a separate convergence arm must be the measured recipe's own configuration, only shorter.
void check_arm_is_the_measured_run(const Context& c, const Recipe& r, const Loaded& ev, RecipeResult& out) {
  if (!r.convergence_arm || r.convergence_arm->path == r.log.path) return;
  if (!ev.arm_args) {
    out.reasons.push_back("convergence: the arm's arguments cannot be compared with the measured run's: " +
                          ev.arm_args_error);
    return;
  }
  if (!ev.args) return;
  auto diff = checks::check_configuration(ev.arm_args->values, ev.args->values, c.reg.rules, {}, {});
  std::string why;
  for (const auto& ch : diff.changes) {
    // The arm differs from the measured run in run length and bookkeeping only. A structural difference would let
    // another layout's run (the reference's own log, say) stand as the recipe's arm.
    if (ch.classification.cls == checks::ArgClass::bookkeeping ||
        checks::is_run_length_change(ch.name, ev.arm_args->values, ev.args->values))
      continue;
    why += fmt::format("{}{} is {} in the arm but {} in the measured run", why.empty() ? "" : "; ", ch.name,
                       ch.recipe_value.value_or("(absent)"), ch.reference_value.value_or("(absent)"));
  }
  if (!why.empty()) out.reasons.push_back("convergence: the arm's arguments differ from the measured run's: " + why);
}

// SPEC §6: the layout the argument dump shows, and the stack the versions dump shows.
void check_layout_and_stack(const Recipe& r, const Loaded& ev, RecipeResult& out) {
  if (ev.args)
    add_all(out, "",
            layout::argument_dump_mismatches(
                {r.layout, r.gpus, r.workload.global_batch, r.workload.row_length, r.stack.framework == "megatron-lm"},
                ev.args->values));
  std::optional<evidence::VersionDump> dump;
  if (r.versions) {
    try {
      dump = evidence::parse_versions(read_file(r.versions->path), r.versions->relative);
    } catch (const InputError& e) {
      out.reasons.push_back(std::string("stack: ") + e.what());
    }
  }
  auto stack = checks::check_stack(r.stack.versions, dump ? &*dump : nullptr, ev.args ? &ev.args->values : nullptr);
  add_all(out, "", stack.problems);
  out.stack = std::move(stack.stack);
}

// The logged learning rates must follow the run's own schedule; each patch must have its recorded sha256.
void check_evidence_consistency(const Recipe& r, const Loaded& ev, RecipeResult& out) {
  if (ev.args && ev.log) add_all(out, "evidence: ", checks::check_logged_learning_rates(ev.args->values, *ev.log));
  for (const auto& p : r.patches) {
    try {
      if (sha256_hex(read_file(p.path)) != p.sha256)
        out.reasons.push_back("patches: " + p.relative + " does not have the sha256 the recipe records");
    } catch (const InputError& err) {
      out.reasons.push_back(std::string("patches: ") + err.what());
    }
  }
}

// SPEC §1, §5: a standard recipe's rows must be checked against a rows build.
void check_rows(const Recipe& r, RecipeResult& out) {
  if (r.workload.standard) {
    out.rows_status = "not verified: the registry records no rows build to check rows_sha256 against";
    out.reasons.push_back("rows: " + out.rows_status);
  } else {
    out.rows_status = "not applicable (non-standard workload)";
  }
}

// SPEC §4: both checks against the reference recipe; a reference recipe passes them trivially, but the objective
// conventions still apply to it.
void run_checks(const Context& c, const Recipe& r, const Loaded& ev, RecipeResult& out) {
  checks::ModelFacts facts;
  if (auto model = c.reg.models.find(r.model); model != c.reg.models.end())
    facts = {model->second.family, model->second.layer_shape};
  const ReferenceResolution res = resolve_reference(r, c.by_id, c.pair_reference);
  out.is_reference = res.is_reference;
  if (res.problem) out.reasons.push_back(*res.problem);
  if (ev.arm) out.arm = ArmCurve{ev.arm_file, ev.arm->loss};
  if (res.reference && c.loaded.at(res.reference->id).arm)
    out.reference_arm = ArmCurve{c.loaded.at(res.reference->id).arm_file, c.loaded.at(res.reference->id).arm->loss};
  if (res.reference) {
    const Recipe& ref = *res.reference;
    const Loaded& rev = c.loaded.at(ref.id);
    if (!ev.arm_sha256.empty() && ev.arm_sha256 == rev.arm_sha256)
      out.reasons.push_back(fmt::format(
          "convergence: the recipe's arm is byte-identical to the reference's arm '{}/{}'", ref.id, rev.arm_file));
    if (ref.model != r.model) out.reasons.push_back("reference: '" + ref.id + "' is a recipe of another model");
    if (ref.workload.key != r.workload.key || ref.workload.row_length != r.workload.row_length ||
        ref.workload.global_batch != r.workload.global_batch ||
        (r.workload.standard && ref.workload.rows_sha256 != r.workload.rows_sha256))
      out.reasons.push_back("reference: '" + ref.id + "' ran on another workload or other rows");
    if (!ev.args || !rev.args)
      out.reasons.push_back("configuration check: cannot run: " +
                            (ev.args ? "the reference: " + rev.args_error : ev.args_error));
    else
      out.configuration = checks::check_configuration(ev.args->values, rev.args->values, c.reg.rules, r.component_tests,
                                                      facts, run_length_options(r, ev, rev, c.reg.rules, facts));
    if (!ev.arm || !rev.arm)
      out.reasons.push_back("convergence check: cannot run: " +
                            (ev.arm ? "the reference arm: " + rev.arm_error : "the recipe's arm: " + ev.arm_error));
    else
      out.convergence = checks::check_convergence(*ev.arm, *rev.arm);
  } else if (!r.reference) {
    std::map<std::string, std::string> none;
    out.configuration = checks::check_configuration(ev.args ? ev.args->values : none, std::nullopt, c.reg.rules,
                                                    r.component_tests, facts);
    if (!ev.args && c.reg.models.count(r.model)) {
      bool bound = false;
      for (const auto& conv : c.reg.rules.objective_conventions())
        bound |= std::find(conv.families.begin(), conv.families.end(), facts.family) != conv.families.end();
      if (bound) out.reasons.push_back("configuration check: " + ev.args_error);
    }
  }
  if (out.configuration && !out.configuration->eligible) {
    std::string why;
    for (const auto& p : out.configuration->problems) why += (why.empty() ? "" : "; ") + p;
    out.reasons.push_back("configuration check: ineligible: " + why);
  }
  if (out.convergence && !out.convergence->passed) {
    std::string why;
    for (const auto& d : checks::describe_failures(*out.convergence)) why += (why.empty() ? "" : "; ") + d;
    for (const auto& p : out.convergence->problems) why += (why.empty() ? "" : "; ") + p;
    out.reasons.push_back("convergence check: failed: " + why);
  }
}

// What the recipe says its checks concluded must be what they conclude.
void check_check_claims(const Recipe& r, RecipeResult& out) {
  if (out.configuration) {
    std::string got = out.configuration->eligible ? "eligible" : "ineligible";
    if (got != r.claims.configuration)
      out.reasons.push_back("claims: the recipe records the configuration check as " + r.claims.configuration +
                            ", but it is " + got);
  }
  std::string conv = out.is_reference ? "pass" : out.convergence ? (out.convergence->passed ? "pass" : "fail") : "";
  if (!conv.empty() && conv != r.claims.convergence)
    out.reasons.push_back("claims: the recipe records the convergence check as " + r.claims.convergence +
                          ", but it is " + conv);
  if (!out.convergence) return;
  const auto& cv = *out.convergence;
  if (r.claims.pointwise_failures && *r.claims.pointwise_failures != cv.pointwise_failures)
    out.reasons.push_back(fmt::format("claims: the recipe records {} pointwise failures, the check finds {}",
                                      *r.claims.pointwise_failures, cv.pointwise_failures));
  if (r.claims.correlation && std::isfinite(cv.correlation) && std::fabs(*r.claims.correlation - cv.correlation) > 5e-4)
    out.reasons.push_back(fmt::format("claims: the recipe records correlation {:.4f}, the check finds {:.4f}",
                                      *r.claims.correlation, cv.correlation));
  if (r.claims.final_loss_rel_diff && std::isfinite(cv.final_loss_rel_diff) &&
      std::fabs(*r.claims.final_loss_rel_diff - cv.final_loss_rel_diff) > 5e-5)
    out.reasons.push_back(fmt::format("claims: the recipe records a final loss difference of {}, the check finds {}",
                                      pct(*r.claims.final_loss_rel_diff), pct(cv.final_loss_rel_diff)));
}

}  // namespace

std::vector<RecipeResult> evaluate_registry(const Registry& reg,
                                            const std::map<std::string, std::filesystem::path>& checkpoints) {
  std::map<std::string, ModelCount> counts;  // N per model, recounted once (SPEC §3)
  for (const auto& [id, m] : reg.models) {
    auto ck = checkpoints.find(id);
    counts.emplace(id,
                   recount_active_params(
                       m, ck == checkpoints.end() ? std::nullopt : std::optional<std::filesystem::path>(ck->second)));
  }
  RecipesById by_id;
  for (const auto& e : reg.recipes) by_id[e.id] = &e;
  // Evidence and results are per recipe, read-only on the shared context: both loops run on every core, each
  // writing only its own slot, so the results do not depend on the thread count.
  std::map<std::string, Loaded> loaded;
  std::vector<std::pair<const Recipe*, Loaded*>> to_load;
  for (const auto& e : reg.recipes)
    if (e.recipe) to_load.emplace_back(&*e.recipe, &loaded[e.id]);
  tbb::parallel_for(std::size_t{0}, to_load.size(),
                    [&](std::size_t i) { *to_load[i].second = load_evidence(*to_load[i].first); });
  const auto pair_reference = choose_pair_references(reg, by_id);
  const Context c{reg, by_id, loaded, counts, pair_reference};

  std::vector<RecipeResult> results(reg.recipes.size());
  tbb::parallel_for(std::size_t{0}, reg.recipes.size(), [&](std::size_t i) {
    const RecipeEntry& e = reg.recipes[i];
    RecipeResult& out = results[i];
    out.id = e.id;
    out.entry = &e;
    if (!e.recipe) {
      out.reasons.push_back("recipe: " + e.load_error);
      return;
    }
    const Recipe& r = *e.recipe;
    const Loaded& ev = loaded.at(e.id);
    check_known_names(reg, r, out);
    measure_run(r, ev, out);                       // SPEC §2
    price_run(c, r, out);                          // SPEC §3
    check_scheduler_times(r, ev, out);             // SPEC §2 "GPU-hours"
    check_arm_is_the_measured_run(c, r, ev, out);  // SPEC §4.3
    check_layout_and_stack(r, ev, out);            // SPEC §6
    check_evidence_consistency(r, ev, out);
    check_rows(r, out);         // SPEC §1, §5
    run_checks(c, r, ev, out);  // SPEC §4
    check_check_claims(r, out);
    out.verified = out.reasons.empty();
  });
  require_verified_references(results);  // SPEC §4, §5
  return results;
}

}  // namespace openrecipes::registry
