// Per-recipe evaluation: measurement, cost, MFU, stack, layout, both checks and status (SPEC §2–§6).
#include "registry/evaluate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/error.h"
#include "core/files.h"
#include "core/sha256.h"
#include "core/text.h"
#include "checks/lr_schedule.h"
#include "checks/run_length.h"
#include "evidence/megatron_args.h"
#include "evidence/scheduler_times.h"
#include "evidence/step_log.h"
#include "evidence/versions.h"
#include "measure/cost.h"
#include "registry/model_params.h"

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
  std::string arm_sha256;   ///< sha256 of the arm's file bytes (empty when it could not be read)
  std::string arm_file;     ///< the arm's path as the recipe writes it
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
    } else if (r.steps_per_run == 20) {
      out.arm_file = r.log.relative;
      if (out.log) out.arm_sha256 = sha256_hex(read_file(r.log.path));
      if (out.log) out.arm = checks::loss_curve_from_log(*out.log);
      else out.arm_error = out.log_error;
    } else {
      out.arm_error = fmt::format("the measured run ran {} steps, so it is not a convergence arm (only a run of "
                                  "exactly 20 steps is), and the recipe gives no separate 20-step arm "
                                  "(evidence.convergence_arm)",
                                  r.steps_per_run);
    }
  } catch (const InputError& e) {
    out.arm_error = e.what();
  }
  return out;
}

bool close_rel(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::fabs(b); }

std::string pct(double x) { return fmt::format("{:.2f}%", 100 * x); }

// Which version names in a versions dump stand for a stack component.
std::vector<std::string> evidence_names(const std::string& component) {
  if (component == "pytorch") return {"torch", "pytorch"};
  if (component == "nccl") return {"nccl", "nvidia_nccl_cu12", "nvidia_nccl_cu13"};
  if (component == "megatron_lm") return {"megatron_lm_commit", "megatron_lm", "megatron_core_commit"};
  if (component == "megatron-lm_commit") return {"megatron_lm_commit", "megatron_lm"};
  if (component == "transformer_engine") return {"transformer_engine", "transformer_engine_torch"};
  return {component};
}

void check_stack(const Recipe& r, const Loaded& ev, RecipeResult& out) {
  std::optional<evidence::VersionDump> dump;
  if (r.versions) {
    try {
      dump = evidence::parse_versions(read_file(r.versions->path), r.versions->relative);
    } catch (const InputError& e) {
      out.reasons.push_back(std::string("stack: ") + e.what());
    }
  }
  for (const auto& s : r.stack.versions) {
    StackStatus st{s.component, s.version, "not pinned"};
    if (s.component == "transformer_engine" && s.version == "none") {
      // Not used: the argument dump must show the local (non-TE) implementation.
      auto it = ev.args ? ev.args->values.find("transformer_impl") : decltype(ev.args->values.end()){};
      if (ev.args && it != ev.args->values.end() && it->second == "local") st.status = "pinned";
      else
        out.reasons.push_back("stack: transformer_engine is 'none' but the argument dump does not show "
                              "--transformer-impl local");
      out.stack.push_back(st);
      continue;
    }
    if (dump) {
      std::set<std::string> shown;
      for (const auto& name : evidence_names(s.component))
        for (const auto& v : dump->of(name)) shown.insert(v);
      if (shown.count(s.version)) st.status = "pinned";
      else if (!shown.empty()) {
        std::string list;
        for (const auto& v : shown) list += (list.empty() ? "" : ", ") + v;
        out.reasons.push_back(fmt::format("stack: the recipe says {} {}, but {} shows {}", s.component, s.version,
                                          r.versions->relative, list));
        st.status = "mismatch";
      }
    }
    out.stack.push_back(st);
  }
}

void check_layout(const Recipe& r, const Loaded& ev, RecipeResult& out) {
  if (!ev.args) return;
  const auto& a = ev.args->values;
  auto expect = [&](const char* arg, std::int64_t want, const char* what) {
    auto it = a.find(arg);
    if (it == a.end()) return;
    auto v = parse_int(it->second);
    if (!v) {
      if (it->second == "None" && std::string(arg) == "virtual_pipeline_model_parallel_size" && want == 0) return;
      out.reasons.push_back(fmt::format("layout: argument {} = {} is not a number", arg, it->second));
      return;
    }
    if (*v != want)
      out.reasons.push_back(fmt::format("layout: the recipe records {} = {}, but its argument dump has {} = {}", what,
                                        want, arg, *v));
  };
  expect("tensor_model_parallel_size", r.layout.tp, "TP");
  expect("pipeline_model_parallel_size", r.layout.pp, "PP");
  expect("context_parallel_size", r.layout.cp, "CP");
  expect("expert_model_parallel_size", r.layout.ep, "EP");
  expect("data_parallel_size", r.layout.dp, "DP");
  expect("world_size", r.gpus, "gpus");
  expect("global_batch_size", r.workload.global_batch, "the global batch");
  expect("seq_length", r.workload.row_length, "the row length");
  if (r.stack.framework == "megatron-lm") expect("micro_batch_size", r.layout.micro_batch, "the micro-batch size");
  if (a.count("expert_tensor_parallel_size") && a.at("expert_tensor_parallel_size") != "None")
    expect("expert_tensor_parallel_size", r.layout.etp, "ETP");
  if (r.layout.vpp) expect("virtual_pipeline_model_parallel_size", *r.layout.vpp, "VPP");
  else expect("virtual_pipeline_model_parallel_size", 0, "VPP (none)");
}

std::string pair_key(const Recipe& r) { return r.model + "\n" + r.gpu + "\n" + r.workload.key; }

// The one reference recipe of each pair (docs/recipe-format.md "Reference"): of the pair's recipes with
// `reference: null`, the one the most recipes are tuned from (following reference chains to their root), then
// the earliest date, then the smallest id. Keyed by pair_key.
std::map<std::string, std::string> choose_pair_references(const Registry& reg,
                                                          const std::map<std::string, const RecipeEntry*>& by_id) {
  std::map<std::string, std::int64_t> tuned_from;  // root id -> recipes whose chain ends there
  for (const auto& e : reg.recipes) {
    if (!e.recipe || !e.recipe->reference) continue;
    std::set<std::string> seen{e.id};
    const Recipe* cur = &*e.recipe;
    while (cur && cur->reference) {
      auto it = by_id.find(*cur->reference);
      if (it == by_id.end() || !it->second->recipe || !seen.insert(it->first).second) cur = nullptr;
      else cur = &*it->second->recipe;
    }
    if (cur) ++tuned_from[cur->id];
  }
  std::map<std::string, const Recipe*> best;
  for (const auto& e : reg.recipes) {
    if (!e.recipe || e.recipe->reference) continue;
    const Recipe* r = &*e.recipe;
    auto [it, fresh] = best.emplace(pair_key(*r), r);
    if (fresh) continue;
    const Recipe* b = it->second;
    auto rank = [&](const Recipe* x) { return std::make_tuple(-tuned_from[x->id], x->date, x->id); };
    if (rank(r) < rank(b)) it->second = r;
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, r] : best) out[k] = r->id;
  return out;
}

// Seconds of training the log itself reports for the whole run: each distinct record's step time times the
// steps it covers (a step logged twice counts once).
double logged_step_seconds(const StepLog& log) {
  std::map<std::int64_t, double> by_first;
  for (const auto& rec : log.records)
    if (rec.time_s && std::isfinite(*rec.time_s) && *rec.time_s > 0)
      by_first.emplace(rec.first_step, *rec.time_s * static_cast<double>(rec.steps));
  double sum = 0;
  for (const auto& [step, t] : by_first) sum += t;
  return sum;
}

// Numbers no real run can give: a non-finite score, cost or MFU, or an MFU above the GPU's dense BF16 peak.
void check_plausible(RecipeResult& out) {
  const double score = out.throughput->tokens_per_s_per_gpu;
  if (!std::isfinite(score) || score <= 0)
    out.reasons.push_back(fmt::format("measurement: the score {} tokens/s/GPU is not a finite positive number", score));
  if (out.dollars_per_million_tokens && !std::isfinite(*out.dollars_per_million_tokens))
    out.reasons.push_back(fmt::format("measurement: the cost {} $/1M tokens is not finite", *out.dollars_per_million_tokens));
  if (out.mfu && !std::isfinite(*out.mfu))
    out.reasons.push_back(fmt::format("measurement: the MFU {} is not finite", *out.mfu));
  else if (out.mfu && *out.mfu > 1)
    out.reasons.push_back(fmt::format("measurement: MFU {:.1f}% is above 100% of the GPU's dense BF16 peak: the step "
                                      "times cannot be right",
                                      100 * *out.mfu));
}

// A recipe is verified only if its reference is, transitively to the pair's root (SPEC §4): a recipe whose
// reference is not verified gets a reason naming it and the first reason of the recipe where the chain breaks.
void require_verified_references(std::vector<RecipeResult>& results) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < results.size(); ++i) index[results[i].id] = i;
  // cause[i]: empty while unsettled; for a settled unverified recipe, (the recipe whose own reasons break the
  // chain, its first reason).
  std::vector<int> state(results.size(), 0);  // 0 unvisited, 1 on the current walk, 2 settled
  std::vector<std::pair<std::string, std::string>> cause(results.size());
  auto reference_of = [&](std::size_t i) -> std::optional<std::size_t> {
    const auto* e = results[i].entry;
    if (!e || !e->recipe || !e->recipe->reference) return std::nullopt;
    auto it = index.find(*e->recipe->reference);
    if (it == index.end() || !results[it->second].entry || !results[it->second].entry->recipe) return std::nullopt;
    return it->second;
  };
  for (std::size_t start = 0; start < results.size(); ++start) {
    std::vector<std::size_t> walk;
    std::optional<std::size_t> cur = start;
    while (cur && state[*cur] == 0) {
      state[*cur] = 1;
      walk.push_back(*cur);
      cur = reference_of(*cur);
    }
    // Settle from the far end of the walk back to `start` (a cycle's members already carry their reason).
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      RecipeResult& res = results[*it];
      const bool own = !res.reasons.empty();
      if (own) cause[*it] = {res.id, res.reasons.front()};
      auto ref = reference_of(*it);
      if (ref && state[*ref] == 2 && !results[*ref].reasons.empty()) {
        const RecipeResult& rr = results[*ref];
        const auto& [where, why] = cause[*ref];
        std::string detail = where == rr.id ? why : "it is tuned from '" + where + "', which is not verified: " + why;
        res.reasons.push_back("reference: '" + rr.id + "' is not verified (" + detail + ")");
        if (!own) cause[*it] = cause[*ref];
      }
      state[*it] = 2;
      res.verified = res.reasons.empty();
    }
  }
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
  o.run_length_why = "the recipe's convergence arm " + ev.arm_file +
                     " is a separate 20-step run whose arguments equal the reference's in every math argument";
  return o;
}

}  // namespace

std::vector<RecipeResult> evaluate_registry(const Registry& reg,
                                            const std::map<std::string, std::filesystem::path>& checkpoints) {
  std::map<std::string, ModelCount> counts;  // N per model, recounted once
  for (const auto& [id, m] : reg.models) {
    auto ck = checkpoints.find(id);
    counts.emplace(id, recount_active_params(m, ck == checkpoints.end() ? std::nullopt
                                                                         : std::optional<std::filesystem::path>(ck->second)));
  }
  std::map<std::string, const RecipeEntry*> by_id;
  for (const auto& e : reg.recipes) by_id[e.id] = &e;
  std::map<std::string, Loaded> loaded;
  for (const auto& e : reg.recipes)
    if (e.recipe) loaded.emplace(e.id, load_evidence(*e.recipe));
  const auto pair_reference = choose_pair_references(reg, by_id);

  std::vector<RecipeResult> results;
  for (const auto& e : reg.recipes) {
    RecipeResult out;
    out.id = e.id;
    out.entry = &e;
    if (!e.recipe) {
      out.reasons.push_back("recipe: " + e.load_error);
      results.push_back(std::move(out));
      continue;
    }
    const Recipe& r = *e.recipe;
    const Loaded& ev = loaded.at(e.id);
    auto gpu = reg.gpus.find(r.gpu);
    auto model = reg.models.find(r.model);
    if (gpu == reg.gpus.end()) {
      std::string list;
      for (const auto& [k, v] : reg.gpus) list += (list.empty() ? "" : ", ") + k;
      out.reasons.push_back(fmt::format("recipe: unknown GPU type '{}' (registry/gpus.yaml has {})", r.gpu, list));
    }
    if (model == reg.models.end())
      out.reasons.push_back(fmt::format("recipe: unknown model '{}' (no registry/models/{}.yaml)", r.model, r.model));

    // Measurement (SPEC §2) and what it prices (SPEC §3).
    if (ev.log) {
      out.step_time_field = ev.log->time_field;
      if (ev.log->train_iters && *ev.log->train_iters != r.steps_per_run)
        out.reasons.push_back(fmt::format("measurement: the recipe records steps_per_run {}, but {} shows a {}-step run",
                                          r.steps_per_run, ev.log->file, *ev.log->train_iters));
      try {
        auto window = measure::window_for_run(r.steps_per_run, r.window, r.file.string() + ": window");
        out.throughput = measure::measure_throughput(*ev.log, window, {r.gpus, r.workload.row_length, r.workload.global_batch});
      } catch (const InputError& err) {
        out.reasons.push_back(std::string("measurement: ") + err.what());
      }
    } else {
      out.reasons.push_back("measurement: " + ev.log_error);
    }
    if (out.throughput) {
      double score = out.throughput->tokens_per_s_per_gpu;
      if (!close_rel(r.claims.tokens_per_s_per_gpu, score, 0.005))
        out.reasons.push_back(fmt::format("measurement: the recipe claims {:.1f} tokens/s/GPU, but its log gives {:.1f} "
                                          "({:+.2f}%; the protocol allows 0.5%)",
                                          r.claims.tokens_per_s_per_gpu, score,
                                          100 * (r.claims.tokens_per_s_per_gpu / score - 1)));
      if (std::fabs(r.claims.cv - out.throughput->cv) > std::max(0.0005, 0.005 * out.throughput->cv))
        out.reasons.push_back(fmt::format("measurement: the recipe claims a step-time CV of {}, but its log gives {}",
                                          pct(r.claims.cv), pct(out.throughput->cv)));
      if (gpu != reg.gpus.end()) {
        out.dollars_per_million_tokens = measure::dollars_per_million_tokens(gpu->second.dollars_per_gpu_hour, score);
        if (model != reg.models.end()) {
          const ModelCount& n = counts.at(r.model);
          out.active_params = n.n;
          out.active_params_from = n.counted_from;
          out.mfu = 6.0 * static_cast<double>(n.n) * score / (gpu->second.dense_bf16_tflops * 1e12);
          for (const auto& p : n.problems) out.reasons.push_back(p);
        }
      }
      check_plausible(out);
    }
    if (r.times) {
      try {
        auto text = read_file(r.times->path);
        auto t = r.times->format == "launcher" ? evidence::parse_launcher_times(text, r.times->relative, r.times->run)
                                               : evidence::parse_sacct_times(text, r.times->relative, r.times->run);
        if (t.exit_code != 0)
          out.reasons.push_back(fmt::format("measurement: the run exited with code {} ({}:{})", t.exit_code,
                                            r.times->relative, t.line));
        out.gpu_hours = measure::gpu_hours(r.gpus, t.admitted_s, t.finished_s);
        if (ev.log) {
          const double logged = logged_step_seconds(*ev.log);
          const double span = t.finished_s - t.admitted_s;
          if (span < logged * (1 - 1e-3))
            out.reasons.push_back(fmt::format("measurement: the scheduler times span {:.2f} s, less than the {:.2f} s "
                                              "the log's own step times add up to",
                                              span, logged));
        }
        if (!close_rel(r.claims.gpu_hours, *out.gpu_hours, 0.005))
          out.reasons.push_back(fmt::format("measurement: the recipe claims {:.4f} GPU-hours, but its scheduler times give {:.4f}",
                                            r.claims.gpu_hours, *out.gpu_hours));
      } catch (const InputError& err) {
        out.reasons.push_back(std::string("measurement: ") + err.what());
      }
    } else {
      out.reasons.push_back("measurement: no scheduler times (evidence.times), so GPU-hours cannot be computed");
    }

    // A separate convergence arm must be the measured recipe's own configuration, only shorter (SPEC §4.3).
    if (r.convergence_arm && r.convergence_arm->path != r.log.path) {
      if (!ev.arm_args) {
        out.reasons.push_back("convergence: the arm's arguments cannot be compared with the measured run's: " +
                              ev.arm_args_error);
      } else if (ev.args) {
        auto diff = checks::check_configuration(ev.arm_args->values, ev.args->values, reg.rules, {}, {});
        std::string why;
        for (const auto& c : diff.changes) {
          // The arm is the recipe's own run, only shorter: it differs from the measured run in run length and
          // bookkeeping only. A structural difference would let another layout's run (the reference's own log, say)
          // stand as the recipe's arm.
          if (c.classification.cls == checks::ArgClass::bookkeeping ||
              checks::is_run_length_change(c.name, ev.arm_args->values, ev.args->values))
            continue;
          why += fmt::format("{}{} is {} in the arm but {} in the measured run", why.empty() ? "" : "; ", c.name,
                             c.recipe_value.value_or("(absent)"), c.reference_value.value_or("(absent)"));
        }
        if (!why.empty()) out.reasons.push_back("convergence: the arm's arguments differ from the measured run's: " + why);
      }
    }

    check_layout(r, ev, out);
    check_stack(r, ev, out);
    if (ev.args && ev.log)
      for (const auto& p : checks::check_logged_learning_rates(ev.args->values, *ev.log))
        out.reasons.push_back("evidence: " + p);
    for (const auto& p : r.patches) {
      try {
        if (sha256_hex(read_file(p.path)) != p.sha256)
          out.reasons.push_back("patches: " + p.relative + " does not have the sha256 the recipe records");
      } catch (const InputError& err) {
        out.reasons.push_back(std::string("patches: ") + err.what());
      }
    }

    // Rows (SPEC §1, §5).
    if (r.workload.standard) {
      out.rows_status = "not verified: the registry records no rows build to check rows_sha256 against";
      out.reasons.push_back("rows: " + out.rows_status);
    } else {
      out.rows_status = "not applicable (non-standard workload)";
    }

    // Both checks against the reference recipe (SPEC §4).
    checks::ModelFacts facts;
    if (model != reg.models.end()) facts = {model->second.family, model->second.layer_shape};
    const Recipe* ref = nullptr;
    if (r.reference) {
      // Follow the chain to detect a cycle.
      std::vector<std::string> chain{r.id};
      std::string cur = *r.reference;
      bool cycle = false;
      while (true) {
        if (std::find(chain.begin(), chain.end(), cur) != chain.end()) {
          chain.push_back(cur);
          cycle = true;
          break;
        }
        chain.push_back(cur);
        auto it = by_id.find(cur);
        if (it == by_id.end() || !it->second->recipe || !it->second->recipe->reference) break;
        cur = *it->second->recipe->reference;
      }
      auto it = by_id.find(*r.reference);
      if (cycle) {
        std::string path;
        for (const auto& c : chain) path += (path.empty() ? "" : " → ") + c;
        out.reasons.push_back("reference: the references form a cycle: " + path);
      } else if (it == by_id.end()) {
        out.reasons.push_back("reference: '" + *r.reference + "' does not exist in the registry");
      } else if (!it->second->recipe) {
        out.reasons.push_back("reference: '" + *r.reference + "' cannot be read: " + it->second->load_error);
      } else {
        ref = &*it->second->recipe;
      }
    } else {
      const std::string& chosen = pair_reference.at(pair_key(r));
      if (chosen == r.id) {
        out.is_reference = true;
      } else {
        out.reasons.push_back(fmt::format("reference: the pair already has the reference recipe '{}'; a second "
                                          "reference would rank without any check (set `reference: {}` and pass "
                                          "both checks against it)",
                                          chosen, chosen));
      }
    }
    if (r.reference && ref) {
      const Loaded& rev = loaded.at(ref->id);
      if (!ev.arm_sha256.empty() && ev.arm_sha256 == rev.arm_sha256)
        out.reasons.push_back(fmt::format("convergence: the recipe's arm is byte-identical to the reference's arm '{}/{}'",
                                          ref->id, rev.arm_file));
      if (ref->model != r.model) out.reasons.push_back("reference: '" + ref->id + "' is a recipe of another model");
      if (ref->workload.key != r.workload.key || ref->workload.row_length != r.workload.row_length ||
          ref->workload.global_batch != r.workload.global_batch ||
          (r.workload.standard && ref->workload.rows_sha256 != r.workload.rows_sha256))
        out.reasons.push_back("reference: '" + ref->id + "' ran on another workload or other rows");
      if (!ev.args || !rev.args) {
        out.reasons.push_back("configuration check: cannot run: " + (ev.args ? "the reference: " + rev.args_error : ev.args_error));
      } else {
        out.configuration = checks::check_configuration(ev.args->values, rev.args->values, reg.rules, r.component_tests,
                                                        facts, run_length_options(r, ev, rev, reg.rules, facts));
      }
      if (!ev.arm || !rev.arm) {
        out.reasons.push_back("convergence check: cannot run: " +
                              (ev.arm ? "the reference arm: " + rev.arm_error : "the recipe's arm: " + ev.arm_error));
      } else {
        out.convergence = checks::check_convergence(*ev.arm, *rev.arm);
      }
    } else if (!r.reference) {
      // A reference recipe passes both checks trivially; the objective conventions still apply to it.
      std::map<std::string, std::string> none;
      out.configuration = checks::check_configuration(ev.args ? ev.args->values : none, std::nullopt, reg.rules,
                                                      r.component_tests, facts);
      if (!ev.args && model != reg.models.end()) {
        bool bound = false;
        for (const auto& c : reg.rules.objective_conventions())
          bound |= std::find(c.families.begin(), c.families.end(), facts.family) != c.families.end();
        if (bound) out.reasons.push_back("configuration check: " + ev.args_error);
      }
    }
    if (out.configuration && !out.configuration->eligible) {
      std::string why;
      for (const auto& p : out.configuration->problems) why += (why.empty() ? "" : "; ") + p;
      out.reasons.push_back("configuration check: ineligible: " + why);
    }
    if (out.convergence && !out.convergence->passed) {
      const auto& c = *out.convergence;
      std::string why;
      for (const auto& t : c.failed_tests) {
        if (t == "missing_steps" || t == "non_finite_loss") continue;  // the problems below name the steps
        std::string d;
        if (t == "correlation") d = fmt::format("correlation r = {:.4f} < 0.95", c.correlation);
        else if (t == "point_wise_tolerance") d = fmt::format("{} of {} points ({:.1f}%, more than the 10% allowed) differ from the reference loss by more than the pointwise tolerance (10%, 5% or 2% by loss level)", c.pointwise_failures, c.points, 100.0 * static_cast<double>(c.pointwise_failures) / static_cast<double>(c.points));
        else if (t == "final_loss") d = fmt::format("final loss differs by {} relative to the reference (> 5%)", pct(c.final_loss_rel_diff));
        else if (t == "outliers") d = fmt::format("{} of {} residuals ({:.1f}%, more than the 10% allowed) are 3-sigma outliers", c.outliers, c.points, 100.0 * static_cast<double>(c.outliers) / static_cast<double>(c.points));
        else d = t;
        why += (why.empty() ? "" : "; ") + d;
      }
      for (const auto& p : c.problems) why += (why.empty() ? "" : "; ") + p;
      out.reasons.push_back("convergence check: failed: " + why);
    }
    // What the recipe says its checks concluded must be what they conclude.
    if (out.configuration) {
      std::string got = out.configuration->eligible ? "eligible" : "ineligible";
      if (got != r.claims.configuration)
        out.reasons.push_back("claims: the recipe records the configuration check as " + r.claims.configuration +
                              ", but it is " + got);
    }
    std::string conv = out.is_reference ? "pass" : out.convergence ? (out.convergence->passed ? "pass" : "fail") : "";
    if (!conv.empty() && conv != r.claims.convergence)
      out.reasons.push_back("claims: the recipe records the convergence check as " + r.claims.convergence + ", but it is " + conv);
    if (out.convergence && r.claims.pointwise_failures && *r.claims.pointwise_failures != out.convergence->pointwise_failures)
      out.reasons.push_back(fmt::format("claims: the recipe records {} pointwise failures, the check finds {}",
                                        *r.claims.pointwise_failures, out.convergence->pointwise_failures));
    if (out.convergence && r.claims.correlation && std::isfinite(out.convergence->correlation) &&
        std::fabs(*r.claims.correlation - out.convergence->correlation) > 5e-4)
      out.reasons.push_back(fmt::format("claims: the recipe records correlation {:.4f}, the check finds {:.4f}",
                                        *r.claims.correlation, out.convergence->correlation));
    if (out.convergence && r.claims.final_loss_rel_diff && std::isfinite(out.convergence->final_loss_rel_diff) &&
        std::fabs(*r.claims.final_loss_rel_diff - out.convergence->final_loss_rel_diff) > 5e-5)
      out.reasons.push_back(fmt::format("claims: the recipe records a final loss difference of {}, the check finds {}",
                                        pct(*r.claims.final_loss_rel_diff), pct(out.convergence->final_loss_rel_diff)));
    out.verified = out.reasons.empty();
    results.push_back(std::move(out));
  }
  require_verified_references(results);
  return results;
}

}  // namespace openrecipes::registry
