// Per-recipe evaluation (SPEC §2–§6): reads each recipe's evidence once, then runs each stage's rules in the SPEC's
// order (measurement, cost and MFU, scheduler times, the arm, layout, stack and device, the model's shape, the command,
// the evidence's consistency, rows, both checks, a tuned recipe's search, the claims of the checks) and records what
// the evidence covers. The rules themselves live in their stages: measure/, params/, checks/, layout/ and
// registry/references, reference_checks, component_tests, predicted_memory and evidence_origin; this file only
// orchestrates and turns each stage's sentences into typed reasons.
#include "registry/evaluate.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/check_claims.h"
#include "checks/command_check.h"
#include "checks/command_policy.h"
#include "checks/device.h"
#include "checks/framework_options.h"
#include "checks/lr_schedule.h"
#include "checks/run_length.h"
#include "checks/search_check.h"
#include "checks/stack.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/scheduler_times.h"
#include "evidence/tune_search.h"
#include "evidence/versions.h"
#include "layout/layout.h"
#include "layout/memory.h"
#include "layout/model_rules.h"
#include "layout/model_shape.h"
#include "measure/claims.h"
#include "measure/cost.h"
#include "params/mfu.h"
#include "registry/component_tests.h"
#include "registry/evaluation_context.h"
#include "registry/evidence_origin.h"
#include "registry/model_params.h"
#include "registry/predicted_memory.h"
#include "registry/recipe_evidence.h"
#include "registry/recipe_memory.h"
#include "registry/references.h"

namespace openrecipes::registry {

std::string EvidenceCoverage::code() const {
  std::string out;
  out += log.empty() ? '-' : 'L';
  out += arguments ? 'A' : '-';
  out += versions ? 'V' : '-';
  out += device.empty() ? '-' : 'D';
  out += times.empty() ? '-' : 'T';
  out += launch ? 'C' : '-';
  return out;
}

namespace {

using Context = EvaluationContext;

void add_all(RecipeResult& out, Stage stage, const char* rule, const std::vector<std::string>& sentences,
             const std::string& fix = "") {
  for (const auto& s : sentences) add_reason(out, stage, rule, s, fix);
}

void add_all(RecipeResult& out, const Reasons& reasons) {
  out.reasons.insert(out.reasons.end(), reasons.begin(), reasons.end());
}

// The recipe's GPU type and model must be in the registry.
void check_known_names(const Registry& reg, const Recipe& r, RecipeResult& out) {
  if (!reg.gpus.count(r.gpu)) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : reg.gpus) keys.push_back(k);
    const std::string near = nearest_name(r.gpu, keys);
    add_reason(out, Stage::recipe, "recipe.gpu",
               fmt::format("unknown GPU type '{}' (registry/gpus.yaml has {})", r.gpu, fmt::join(keys, ", ")),
               (near.empty() ? std::string() : "did you mean " + near + "? ") +
                   "file the recipe under a GPU type of registry/gpus.yaml (its key as written there)");
  }
  if (!reg.models.count(r.model)) {
    std::vector<std::string> ids;
    for (const auto& [id, m] : reg.models) ids.push_back(id);
    const std::string near = nearest_name(r.model, ids);
    add_reason(out, Stage::recipe, "recipe.model",
               fmt::format("unknown model '{}' (no registry/models/{}.yaml)", r.model, r.model),
               (near.empty() ? std::string() : "file the recipe under models/" + near + "/ if that is its model, or ") +
                   "add registry/models/" + r.model +
                   ".yaml (docs/models-format.md; openrecipes params --config config.json counts its N)");
  }
}

// SPEC §2: the score and CV over the protocol's window, and the recipe's claims of them.
void measure_run(const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  if (!ev.log) {
    add_reason(out, Stage::measurement, "measurement.log", ev.log_error);
    return;
  }
  out.step_time_field = ev.log->time_field;
  for (const auto& rec : ev.log->records)
    out.run_series.push_back(
        {rec.first_step, rec.steps, rec.time_s,
         rec.tokens ? *rec.tokens : rec.rows.value_or(r.workload.global_batch) * r.workload.row_length, rec.loss});
  if (ev.log->train_iters && *ev.log->train_iters != r.steps_per_run)
    add_reason(out, Stage::measurement, "measurement.run-length",
               fmt::format("the recipe records steps_per_run {}, but {} shows a {}-step run", r.steps_per_run,
                           ev.log->file, *ev.log->train_iters),
               "record the run's own length");
  // slime and miles logs have no 'iteration k/ N': their dump's num_rollout and batch give the run length.
  else if (const auto steps = !ev.log->train_iters && ev.args ? evidence::run_steps_of(*ev.args) : std::nullopt;
           steps && *steps != r.steps_per_run)
    add_reason(out, Stage::measurement, "measurement.run-length",
               fmt::format("the recipe records steps_per_run {}, but the argument dump of {} gives a {}-step run",
                           r.steps_per_run, ev.args->file, *steps),
               "record the run's own length");
  try {
    auto window = measure::window_for_run(r.steps_per_run, r.window, r.file.string() + ": window");
    out.window = window;
    out.throughput =
        measure::measure_throughput(*ev.log, window, {r.gpus, r.workload.row_length, r.workload.global_batch});
  } catch (const InputError& err) {
    add_reason(out, Stage::measurement, "measurement.window", err.what());
  }
  if (out.throughput)
    add_all(out, Stage::measurement, "measurement.claim",
            measure::throughput_claim_problems(r.claims.tokens_per_s_per_gpu, r.claims.cv, *out.throughput),
            "record the numbers the build computes (openrecipes submit writes them)");
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
        add_reason(out, Stage::measurement, "measurement.mfu", err.what());
      }
      add_all(out, Stage::model, "model.active-params", n.problems, "record the N the recount gives");
    }
  }
  add_all(out, Stage::measurement, "measurement.plausible",
          measure::implausible_numbers(score, out.dollars_per_million_tokens, out.mfu));
}

// SPEC §2 "GPU-hours": from the scheduler's admission and finish times; they must cover the logged steps.
void check_scheduler_times(const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  if (!r.times) {
    add_reason(out, Stage::measurement, "measurement.times",
               "no scheduler times (evidence.times), so GPU-hours cannot be computed",
               "keep the launcher's or Slurm's times as evidence (openrecipes run records them)");
    return;
  }
  try {
    auto text = read_file(r.times->path);
    auto t = evidence::parse_run_times(text, r.times->relative, r.times->format, r.times->run);
    if (t.exit_code != 0)
      add_reason(out, Stage::measurement, "measurement.exit",
                 fmt::format("the run exited with code {} ({}:{})", t.exit_code, r.times->relative, t.line));
    else if (!t.state.empty() && t.state != "COMPLETED")
      add_reason(out, Stage::measurement, "measurement.exit",
                 fmt::format("the Slurm job ended {}, not COMPLETED ({}:{})", t.state, r.times->relative, t.line));
    out.gpu_hours = measure::gpu_hours(r.gpus, t.admitted_s, t.finished_s);
    out.coverage.times = r.times->format;
    if (ev.log)
      if (auto p = measure::scheduler_span_problem(*ev.log, t.admitted_s, t.finished_s,
                                                   r.times->format == "launcher" ? 0.0 : 1.0))  // Slurm: whole s
        add_reason(out, Stage::measurement, "measurement.times", *p);
    if (auto p = measure::gpu_hours_claim_problem(r.claims.gpu_hours, *out.gpu_hours))
      add_reason(out, Stage::measurement, "measurement.claim", *p);
  } catch (const InputError& err) {
    add_reason(out, Stage::measurement, "measurement.times", err.what());
  }
}

// SPEC §4.3: a separate convergence arm must be the measured recipe's own configuration, only shorter.
void check_arm_is_the_measured_run(const Context& c, const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  if (!r.convergence_arm || r.convergence_arm->path == r.log.path) return;
  if (!ev.arm_args) {
    add_reason(out, Stage::convergence, "convergence.arm-arguments",
               "the arm's arguments cannot be compared with the measured run's: " + ev.arm_args_error);
    return;
  }
  if (!ev.args) return;
  if (auto why = checks::arm_differences(ev.arm_args->values, ev.args->values, c.reg.rules); !why.empty())
    add_reason(out, Stage::convergence, "convergence.arm-arguments",
               "the arm's arguments differ from the measured run's: " + why,
               "give the arm of the recipe's own configuration");
}

// SPEC §5, §6: the layout the argument dump shows, the stack the versions dump and the log's banners show, and the
// device and GPU count the evidence shows.
void check_layout_stack_device(const Context& c, const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  if (ev.args)
    add_all(out, Stage::layout, "layout.argument-dump",
            layout::argument_dump_mismatches(
                {r.layout, r.gpus, r.workload.global_batch, r.workload.row_length, r.stack.framework == "megatron-lm"},
                ev.args->values),
            "record the layout the run's argument dump shows");
  // The planner's view of the run (SPEC §7): the model's own layout rules (a layout Megatron-LM refuses at start-up
  // never ran) and the predicted peak memory beside the measured one.
  try {
    const auto mem = ev.args ? recipe_memory(r, *ev.args, ev.memory) : recipe_memory(r);
    if (ev.args) {
      auto setup = layout::setup_from_arguments(ev.args->values, "argument dump");
      if (r.stack.framework != "megatron-lm")  // slime and miles pack rows: their dump's batch sizes are not Megatron's
        setup.global_batch = setup.layout.dp * setup.layout.micro_batch;
      for (const auto& v : layout::model_violations(mem.shape, setup))
        add_reason(out, Stage::layout, "layout.model-rules",
                   "the argument dump's layout breaks a rule of its model: " + v.what,
                   "a layout Megatron-LM refuses at start-up cannot have run; give the run's own, unedited evidence");
    }
    out.memory = MemoryPrediction{layout::estimate_memory(mem.shape, mem.setup), std::nullopt};
    if (mem.measured) out.memory->measured_peak_mib = mem.measured->max_allocated_mib;
  } catch (const InputError&) {
    // A minimal argument dump (docs/evidence-format.md) need not hold the model's shape: nothing to check or predict.
  }
  if (!ev.versions_error.empty()) add_reason(out, Stage::stack, "stack.versions", ev.versions_error);
  const evidence::VersionDump* dump = ev.versions ? &*ev.versions : nullptr;
  auto stack = checks::check_stack(r.stack.versions, dump, ev.args ? &ev.args->values : nullptr);
  add_all(out, stack.problems);
  out.stack = std::move(stack.stack);
  out.coverage.versions = r.versions && ev.versions_error.empty();
  out.coverage.device = checks::evidence_device(dump);
  if (auto gpu = c.reg.gpus.find(r.gpu); gpu != c.reg.gpus.end())
    add_all(out, checks::check_device({r.gpu, gpu->second.device_names, r.gpus,
                                       !gpu->second.hardware || gpu->second.hardware->dense_fp8_tflops > 0},
                                      dump, ev.args ? &ev.args->values : nullptr));
}

// SPEC §3, §5: the run trained the model its recipe names (N and MFU are that model's): the model file's shape (its
// config.json, else its layer shape) against the argument dump's.
void check_model_shape(const Context& c, const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  const auto model = c.reg.models.find(r.model);
  if (model == c.reg.models.end() || !ev.args) return;  // each is a reason of its own
  const auto& args = ev.args->values;
  const std::string fix =
      "give the run's own, whole argument dump, filed under the model it trained (its N and MFU "
      "are that model's)";
  std::vector<std::string> differences;
  try {
    const layout::ModelShape run = layout::shape_from_arguments(args, "the argument dump");
    if (!model->second.config.empty()) {
      const auto number = [&](const char* name, std::int64_t fallback) {
        auto it = args.find(name);
        return it == args.end() ? fallback : parse_int(it->second).value_or(fallback);
      };
      const std::int64_t multiple = number("make_vocab_size_divisible_by", layout::kVocabDivisibleBy) *
                                    std::max<std::int64_t>(number("tensor_model_parallel_size", 1), 1);
      differences = layout::shape_differences(
          layout::shape_from_config(model->second.config, model->second.file + ": config"), run, multiple);
    } else {
      for (const auto& [name, value] : model->second.layer_shape) {
        auto it = args.find(name);
        const auto got = it == args.end() ? std::nullopt : parse_int(it->second);
        if (got != value)
          differences.push_back(
              fmt::format("{}: the model has {}, the run {}", name, value, it == args.end() ? "none" : it->second));
      }
    }
  } catch (const InputError& e) {
    add_reason(out, Stage::model, "model.shape", "the argument dump does not show the model's shape: " + e.problem(),
               fix);
    return;
  }
  if (!differences.empty())
    add_reason(out, Stage::model, "model.shape",
               fmt::format("the run did not train {} ({}): {}", model->second.name, model->second.file,
                           fmt::join(differences, "; ")),
               fix);
}

// SPEC §5, §6: the command keeps the program policy, and is the command the run started (its launch, and every
// argument it sets against the argument dump).
void check_command(const Context& c, const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  const std::string where = "the published command";
  if (ev.words_error) {
    add_reason(out, Stage::command, "command.words", ev.words_error->problem(), ev.words_error->fix());
    return;
  }
  const auto& words = ev.words;
  const auto policy = checks::CommandPolicy::bundled().check(words, r.stack.framework, where, patch_modules(r));
  add_all(out, policy.problems);
  if (r.launch && !ev.launch) add_reason(out, Stage::command, "command.launch", ev.launch_error);
  if (!policy.shape || !ev.args) return;
  // slime and miles add their arguments to Megatron-LM's parser: their tables hold Megatron-LM's options too (a
  // framework without a table of its own is read with Megatron-LM's).
  const checks::OptionTable* table = checks::OptionTable::bundled_or_megatron(r.stack.framework);
  // The table is the run's own parser when it is of the recipe's framework at the commit the recipe pins: a flag it
  // lacks would have stopped the run (Megatron-LM's parse_args refuses unknown flags). Not so for an extended table:
  // slime parses with ignore_unknown_args (its --sglang-* words go to a parser of their own), and the Megatron-LM
  // its image runs need not be the one the table extends.
  bool table_is_the_runs = false;
  if (table && table->framework == r.stack.framework && table->extends_framework.empty())
    for (const auto& v : r.stack.versions)
      if (v.component == r.stack.framework + "_commit" && checks::commits_agree(table->commit, v.version))
        table_is_the_runs = true;
  add_all(out, checks::check_command_evidence(
                   words, *policy.shape, ev.args->values, ev.launch ? &*ev.launch : nullptr, table, where,
                   [&](const std::string& dest) { return c.reg.rules.classify(dest).cls; }, table_is_the_runs));
}

// The logged learning rates must follow the run's own schedule; each patch must be the one the recipe pins.
void check_evidence_consistency(const Recipe& r, const RecipeEvidence& ev, RecipeResult& out) {
  if (ev.args && ev.log)
    add_all(out, Stage::evidence, "evidence.learning-rate",
            checks::check_logged_learning_rates(ev.args->values, *ev.log));
  for (const auto& p : r.patches)
    if (auto problem = patch_problem(p))
      add_reason(out, Stage::patches, "patches.sha256", *problem,
                 "restore the patch the run applied, or record its sha256");
  add_all(out, Stage::patches, "patches.folder", patch_folder_problems(r));
  if (!ev.args)
    add_reason(out, Stage::evidence, "evidence.argument-dump",
               ev.args_problem + "; without one a recipe can neither be checked against its reference nor serve as one",
               ev.args_fix.empty()
                   ? "keep the run's argument dump (Megatron prints it at start-up) as evidence.arguments"
                   : ev.args_fix);
}

// A tuned recipe's search (evidence.search: the tune.json of the `openrecipes tune` that found it) held to the
// recipe (checks/search_check.h); kept in `out.search` for the page when it holds.
void check_search(const Context& c, const Recipe& r, RecipeResult& out) {
  if (!r.search) return;
  // Messages name the record as the registry does (recipes/<id>/<relative>), wherever the registry lies.
  const std::string where = "recipes/" + r.id + "/" + r.search->relative;
  evidence::TuneSearch s;
  try {
    s = evidence::parse_tune_search(read_file(r.search->path, evidence::kMaxSearchBytes), where);
  } catch (const InputError& e) {
    add_reason(out, Stage::search, "search.unreadable", e.where() + ": " + e.problem(), e.fix());
    return;
  }
  checks::SearchSubject subject;
  subject.where = where;
  subject.search_relative = r.search->relative;
  subject.command = r.command;
  subject.gpus = r.gpus;
  subject.row_length = r.workload.row_length;
  subject.global_batch = r.workload.global_batch;
  if (out.throughput) subject.tokens_per_s_per_gpu = out.throughput->tokens_per_s_per_gpu;
  subject.reference = r.reference;
  subject.read = [&r](const std::string& relative) {
    return read_file(resolve_inside(r.dir, relative, r.file.string() + ": evidence.search"));
  };
  if (r.reference)
    if (auto ref = c.by_id.find(*r.reference); ref != c.by_id.end() && ref->second->recipe) {
      const Recipe& start = *ref->second->recipe;
      if (start.gpus == s.gpus) subject.reference_command = start.command;
      if (const auto& rev = c.loaded.at(ref->second->id); rev.args) {
        subject.predict = [&start, &rev, gpus = s.gpus](const std::string& command) {
          return candidate_prediction(start, *rev.args, command, gpus);
        };
      }
    }
  if (auto gpu = c.reg.gpus.find(r.gpu); gpu != c.reg.gpus.end() && gpu->second.memory_mib > 0)
    subject.memory_mib = gpu->second.memory_mib;
  const auto problems = checks::check_search(s, subject);
  add_all(out, problems);
  if (problems.empty()) out.search = std::move(s);
}

// Evaluates the recipes of `reg` at `which` (indices into reg.recipes), every recipe's evidence read for the
// duplicate-run rule; `which` must hold each one's reference chain, for require_verified_references.
std::vector<RecipeResult> evaluate_recipes(const Registry& reg,
                                           const std::map<std::string, std::filesystem::path>& checkpoints,
                                           const std::vector<std::size_t>& which) {
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
  std::map<std::string, RecipeEvidence> loaded;
  std::vector<std::pair<const Recipe*, RecipeEvidence*>> to_load;
  for (const auto& e : reg.recipes)
    if (e.recipe) to_load.emplace_back(&*e.recipe, &loaded[e.id]);
  tbb::parallel_for(std::size_t{0}, to_load.size(),
                    [&](std::size_t i) { *to_load[i].second = load_evidence(*to_load[i].first); });
  const auto pair_reference = choose_pair_references(reg, by_id);
  const Context c{reg, by_id, loaded, counts, pair_reference};
  // One run published twice (SPEC §5): two recipes whose step logs or separate arms record the very same steps; git,
  // when the registry is in one, tells which was committed first.
  std::map<std::string, std::vector<RunHolder>> runs;
  for (const auto& e : reg.recipes) {
    if (!e.recipe) continue;
    const auto& ev = loaded.at(e.id);
    if (!ev.log_fingerprint.empty()) runs[ev.log_fingerprint].push_back({e.id, e.recipe->log.path, "step log"});
    if (!ev.arm_fingerprint.empty())
      runs[ev.arm_fingerprint].push_back({e.id, e.recipe->convergence_arm->path, "convergence arm"});
  }
  std::erase_if(runs, [](const auto& g) {
    return std::all_of(g.second.begin(), g.second.end(),
                       [&](const RunHolder& h) { return h.recipe == g.second[0].recipe; });
  });
  const auto duplicates =
      runs.empty()
          ? std::map<std::string, std::string>()
          : duplicate_run_reasons(
                runs, is_git_registry(reg.root) ? std::optional<std::filesystem::path>(reg.root) : std::nullopt);
  std::vector<RecipeResult> results(which.size());
  tbb::parallel_for(std::size_t{0}, which.size(), [&](std::size_t i) {
    const RecipeEntry& e = reg.recipes[which[i]];
    RecipeResult& out = results[i];
    out.id = e.id;
    out.entry = &e;
    if (!e.recipe) {
      add_reason(out, Stage::recipe, "recipe.load", e.load_error, e.load_fix);
      return;
    }
    const Recipe& r = *e.recipe;
    const RecipeEvidence& ev = loaded.at(e.id);
    out.coverage.log = ev.log ? r.log.format : "";
    out.coverage.arguments = ev.args.has_value();
    out.coverage.launch = ev.launch.has_value();
    check_known_names(reg, r, out);
    measure_run(r, ev, out);                       // SPEC §2
    price_run(c, r, out);                          // SPEC §3
    check_scheduler_times(r, ev, out);             // SPEC §2 "GPU-hours"
    check_arm_is_the_measured_run(c, r, ev, out);  // SPEC §4.3
    check_layout_stack_device(c, r, ev, out);      // SPEC §5, §6
    check_model_shape(c, r, ev, out);              // SPEC §3, §5
    check_command(c, r, ev, out);                  // SPEC §5, §6
    check_evidence_consistency(r, ev, out);
    if (auto d = duplicates.find(e.id); d != duplicates.end())
      add_reason(out, Stage::evidence, "evidence.duplicate", d->second,
                 "submit the evidence of the recipe's own run: one run is one recipe");
    const auto model = reg.models.find(r.model);
    const auto rows =
        check_rows(r, model == reg.models.end() ? nullptr : &model->second, reg.reference_rows, reg.protocol);
    out.rows_status = rows.status;  // SPEC §1, §5
    if (rows.problem) add_reason(out, Stage::rows, "rows.reference-build", *rows.problem, rows.fix.value_or(""));
    run_reference_checks(c, r, ev, out);  // SPEC §4 (registry/reference_checks.cpp)
    check_search(c, r, out);              // docs/tune.md "The winner"
    add_all(out, Stage::claims, "claims.checks",
            checks::check_claim_problems({r.claims.configuration, r.claims.convergence, r.claims.correlation,
                                          r.claims.final_loss_rel_diff, r.claims.pointwise_failures},
                                         out.configuration ? &*out.configuration : nullptr,
                                         out.convergence ? &*out.convergence : nullptr, out.is_reference),
            "record the verdicts the build computes (openrecipes submit writes them)");
    out.verified = out.reasons.empty();
  });
  // Reasons name files by their path in the registry ("recipes/<id>/recipe.yaml:10"), not by where this build found
  // the registry, so every output (text, JSON, the site) is the same bytes from any folder.
  std::string root = reg.root.lexically_normal().string();
  if (!root.empty() && root.back() != '/') root += '/';
  for (auto& res : results)
    for (auto& why : res.reasons)
      for (std::string* s : {&why.message, &why.fix})
        for (std::size_t at; root.size() > 1 && (at = s->find(root)) != std::string::npos;) s->erase(at, root.size());
  require_verified_references(results);  // SPEC §4, §5
  return results;
}

}  // namespace

std::vector<RecipeResult> evaluate_registry(const Registry& reg,
                                            const std::map<std::string, std::filesystem::path>& checkpoints) {
  std::vector<std::size_t> every(reg.recipes.size());
  std::iota(every.begin(), every.end(), std::size_t{0});
  return evaluate_recipes(reg, checkpoints, every);
}

RecipeResult evaluate_recipe(const Registry& reg, const std::string& id,
                             const std::map<std::string, std::filesystem::path>& checkpoints) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < reg.recipes.size(); ++i) index.emplace(reg.recipes[i].id, i);
  // The recipe and its reference chain, in that order (a cycle ends the walk: its reason is the recipe's own).
  std::vector<std::size_t> chain;
  std::set<std::size_t> seen;
  for (auto at = index.find(id); at != index.end() && seen.insert(at->second).second;) {
    chain.push_back(at->second);
    const auto& e = reg.recipes[at->second];
    at = e.recipe && e.recipe->reference ? index.find(*e.recipe->reference) : index.end();
  }
  if (chain.empty())
    throw InputError(reg.root.string(), "the registry holds no recipe " + id,
                     "name a recipe as <model>/<gpu>/<name> of the registry's recipes/ folder");
  return std::move(evaluate_recipes(reg, checkpoints, chain).front());
}

namespace {
// `v` as the recipe writes it: rounded by `format` ("{:.2f}"), read back.
double rounded(const char* format, double v) { return parse_double(fmt::format(fmt::runtime(format), v)).value_or(v); }
}  // namespace

Claims computed_claims(const RecipeResult& r) {
  Claims out{0, 0, 0, "ineligible", "fail", std::nullopt, std::nullopt, std::nullopt};
  if (r.throughput) {
    out.tokens_per_s_per_gpu = rounded("{:.2f}", r.throughput->tokens_per_s_per_gpu);
    out.cv = rounded("{:.5f}", r.throughput->cv);
  }
  if (r.gpu_hours) out.gpu_hours = rounded("{:.6g}", *r.gpu_hours);
  out.configuration = r.configuration && r.configuration->eligible ? "eligible" : "ineligible";
  out.convergence = r.is_reference ? "pass" : "fail";
  if (r.convergence) {
    const auto& c = *r.convergence;
    out.convergence = c.passed ? "pass" : "fail";
    if (std::isfinite(c.correlation)) out.correlation = rounded("{:.4f}", c.correlation);
    if (std::isfinite(c.final_loss_rel_diff)) out.final_loss_rel_diff = rounded("{:.3g}", c.final_loss_rel_diff);
    out.pointwise_failures = c.pointwise_failures;
  }
  return out;
}

}  // namespace openrecipes::registry
