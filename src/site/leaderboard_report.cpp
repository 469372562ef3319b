// Leaderboard as text and JSON (SPEC §5).
#include "site/leaderboard_report.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "checks/check_json.h"
#include "core/error.h"
#include "core/text.h"
#include "evidence/step_log.h"
#include "evidence/tune_search.h"
#include "layout/layout_json.h"
#include "measure/throughput.h"
#include "registry/reproduce.h"
#include "site/format.h"

namespace openrecipes::site {

namespace {

// Visible form of untrusted text for a terminal: every C0 control byte (newline and tab included), DEL, every
// C1 control (U+0080..U+009F) and every byte that is not part of valid UTF-8 become "\xNN" (C1 as "\u00NN").
std::string visible(std::string_view s) { return terminal_safe(s, true); }

// `j` with every string and key made terminal-safe in place (C1 controls and invalid UTF-8 escaped as text;
// nlohmann escapes C0 itself), so that dumping never throws on a stranger's bytes and never emits a raw control.
// In place: a 10,000-recipe board is too large to copy for this.
void make_json_safe(nlohmann::json& j) {
  if (j.is_string()) {
    auto& s = j.get_ref<std::string&>();
    s = terminal_safe(s, false);
  } else if (j.is_array()) {
    for (auto& x : j) make_json_safe(x);
  } else if (j.is_object()) {
    bool keys_safe = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      keys_safe &= terminal_safe(it.key(), false) == it.key();
      make_json_safe(it.value());
    }
    if (!keys_safe) {
      nlohmann::json out = nlohmann::json::object();
      for (auto it = j.begin(); it != j.end(); ++it) out[terminal_safe(it.key(), false)] = std::move(it.value());
      j = std::move(out);
    }
  }
}

// A number as JSON, infinity as the string "inf" (JSON has no infinity; the raw output writes it so too).
nlohmann::json finite_or_inf(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("inf"); }

// The width of build's text output: every line within it (README; a word longer than a line stays whole).
constexpr std::size_t kTextWidth = 120;

// `text` wrapped at spaces into kTextWidth: the first line after `first`, the rest after `rest`.
void wrapped(std::string& out, const std::string& first, const std::string& rest, const std::string& text) {
  const auto lines = wrap_words(text, kTextWidth - std::max(first.size(), rest.size()));
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? rest : first) + lines[i] + "\n";
}

std::string checks_summary(const registry::RecipeResult& r) {
  if (r.is_reference) return "reference";
  std::string c = r.configuration ? (r.configuration->eligible ? "config eligible" : "config ineligible") : "config -";
  // The same-math swaps it makes, each counted only with a component test its raw output backs.
  std::size_t swaps = 0, tested = 0;
  if (r.configuration)
    for (const auto& ch : r.configuration->changes)
      if (ch.classification.cls == checks::ArgClass::same_math_swap) ++swaps, tested += ch.accepted ? 1 : 0;
  if (swaps) c += fmt::format(" ({}/{} swap{} tested)", tested, swaps, swaps == 1 ? "" : "s");
  std::string v = r.convergence ? fmt::format("convergence {} (r {:.4f})", r.convergence->passed ? "pass" : "fail",
                                              r.convergence->correlation)
                                : "convergence -";
  return c + ", " + v;
}

nlohmann::json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json arm_json(const std::optional<registry::ArmCurve>& a) {
  if (!a) return nullptr;
  nlohmann::json steps = nlohmann::json::array(), loss = nlohmann::json::array();
  for (const auto& [s, l] : a->loss) {
    steps.push_back(s);
    loss.push_back(optional_number(l));
  }
  return {{"file", a->file}, {"steps", steps}, {"loss", loss}};
}

// The per-record series the recipe page charts: 0-based first step, steps averaged, step time (s), tokens per
// step and loss of each record of the measured run in file order; the window; both arms' losses.
nlohmann::json series_json(const registry::RecipeResult& r) {
  nlohmann::json steps = nlohmann::json::array(), k = nlohmann::json::array(), times = nlohmann::json::array(),
                 tokens = nlohmann::json::array(), loss = nlohmann::json::array();
  for (const auto& p : r.run_series) {
    steps.push_back(p.step);
    k.push_back(p.steps);
    times.push_back(optional_number(p.step_time_s));
    tokens.push_back(p.tokens);
    loss.push_back(optional_number(p.loss));
  }
  nlohmann::json window = nullptr;
  if (r.window) window = {{"first", r.window->first}, {"last", r.window->last}};
  return {{"run", {{"step", steps}, {"steps", k}, {"step_time_s", times}, {"tokens", tokens}, {"loss", loss}}},
          {"window", window},
          {"arm", arm_json(r.arm)},
          {"reference_arm", arm_json(r.reference_arm)}};
}

nlohmann::json reasons_json(const Reasons& reasons) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : reasons)
    out.push_back({{"stage", stage_name(r.stage)}, {"rule", r.rule}, {"message", r.message}, {"fix", r.fix}});
  return out;
}

nlohmann::json coverage_json(const registry::EvidenceCoverage& c) {
  auto text_or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"code", c.code()},       {"log", text_or_null(c.log)},       {"arguments", c.arguments},
          {"versions", c.versions}, {"device", text_or_null(c.device)}, {"times", text_or_null(c.times)},
          {"launch", c.launch}};
}

// How to reproduce the recipe (registry/reproduce.h): the variables with what each must point at, the data-prep
// commands, the run line.
nlohmann::json reproduce_json(const registry::Recipe& rec, const std::map<std::string, registry::ModelInfo>& models) {
  const auto m = models.find(rec.model);
  const registry::Reproduction rep = registry::reproduction(rec, m == models.end() ? nullptr : &m->second);
  nlohmann::json vars = nlohmann::json::array();
  for (const auto& v : rep.variables)
    vars.push_back({{"name", v.shown},
                    {"points_at", v.points_at},
                    {"example", v.example},
                    {"needs_value", v.needs_value},
                    {"launcher_only", v.launcher_only}});
  nlohmann::json placeholders = nlohmann::json::array();
  for (const auto& p : rep.placeholders) placeholders.push_back({{"name", p.name}, {"points_at", p.points_at}});
  return {{"recipe_folder", rep.recipe_folder},
          {"variables", vars},
          {"prepare", rep.prepare},
          {"placeholders", placeholders},
          {"run", rep.run_line},
          {"rows_sha256", rep.rows_sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(rep.rows_sha256)},
          {"rows_count", rep.rows_count},
          {"standard_workload", rep.standard_workload}};
}

// The planner's predicted peak memory per GPU beside the one the evidence measured (docs/memory-model.md; evaluate
// computes both); null when the recipe's run gives no shape to predict from.
nlohmann::json memory_json(const registry::RecipeResult& r) {
  if (!r.memory) return nullptr;
  nlohmann::json j{{"predicted_peak_mib", std::round(r.memory->predicted.peak_mib)},
                   {"peak_moment", std::string(r.memory->predicted.moment)}};
  j["measured_peak_mib"] = r.memory->measured_peak_mib ? nlohmann::json(*r.memory->measured_peak_mib) : nullptr;
  return j;
}

// The search that found the recipe (evidence.search, as the build checked it): every trial of `openrecipes tune`, in
// the order run; null when the recipe has none (or it did not check out: the reasons say why).
nlohmann::json search_json(const registry::RecipeResult& r) {
  if (!r.search || !r.entry || !r.entry->recipe || !r.entry->recipe->search) return nullptr;
  const auto& s = *r.search;
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : s.trials)
    trials.push_back(
        {{"trial", t.trial},
         {"candidate", t.candidate},
         {"knobs", t.knobs},
         {"outcome", evidence::outcome_name(t.outcome)},
         {"reason", t.reason},
         {"planner", t.planner},
         {"predicted_peak_mib", t.predicted_peak_mib},
         {"planner_fits", t.planner_fits},
         {"measured_peak_mib", opt(t.measured_peak_mib)},
         {"steps_measured", t.steps_measured},
         {"tokens_per_s_per_gpu", opt(t.tokens_per_s_per_gpu)},
         {"tokens_per_s_per_gpu_interval",
          t.score_low ? nlohmann::json::array({*t.score_low, opt(t.score_high)}) : nlohmann::json(nullptr)},
         {"predicted_step_time_s", opt(t.predicted_step_time_s)},
         {"mean_step_time_s", opt(t.mean_step_time_s)},
         {"wall_s", t.wall_s},
         {"best", t.best},
         {"within_noise_of_best", t.within_noise_of_best},
         // The step log the build recomputed its numbers from (evidence/search-trials/NN.log).
         {"log", t.recomputed() ? nlohmann::json(evidence::trial_log_path(r.entry->recipe->search->relative, t.trial))
                                : nlohmann::json(nullptr)}});
  return {{"file", r.entry->recipe->search->relative},
          {"started_from", s.recipe},
          {"gpus", s.gpus},
          {"nodes", s.nodes},
          {"launcher", s.launcher},
          {"budget_minutes", s.budget_minutes},
          {"warmup_steps", s.warmup_steps},
          {"trial_steps", s.trial_steps},
          {"interval_method", s.interval_method},
          {"candidates", s.candidates.size()},
          {"trials", trials},
          {"stopped", s.stopped},
          {"elapsed_s", s.elapsed_s},
          {"winner", s.winner ? nlohmann::json{{"trial", s.winner->trial}, {"candidate", s.winner->candidate}}
                              : nlohmann::json(nullptr)}};
}

nlohmann::json result_json(const registry::RecipeResult& r, const std::map<std::string, registry::ModelInfo>& models) {
  nlohmann::json j;
  j["id"] = r.id;
  j["verified"] = r.verified;
  j["reasons"] = reasons_json(r.reasons);
  j["evidence_coverage"] = coverage_json(r.coverage);
  if (!r.entry || !r.entry->recipe) return j;
  const auto& rec = *r.entry->recipe;
  j["name"] = rec.name;
  j["gpus"] = rec.gpus;
  j["author"] = {{"name", rec.author}, {"link", rec.author_link}};
  j["date"] = rec.date;
  j["reference"] = rec.reference ? nlohmann::json(*rec.reference) : nlohmann::json(nullptr);
  j["framework"] = rec.stack.framework;
  j["steps_per_run"] = rec.steps_per_run;
  j["command"] = rec.command;
  j["reproduce"] = reproduce_json(rec, models);
  j["memory"] = memory_json(r);
  j["search"] = search_json(r);
  j["layout"] = layout::layout_to_json(rec.layout);
  nlohmann::json stack = nlohmann::json::array();
  for (const auto& s : r.stack)
    stack.push_back({{"component", s.component}, {"version", s.version}, {"status", s.status}});
  j["stack"] = {{"versions", stack}, {"gpus_per_node", rec.stack.gpus_per_node}, {"network", rec.stack.network}};
  if (r.throughput) {
    j["tokens_per_s_per_gpu"] = r.throughput->tokens_per_s_per_gpu;
    j["cv"] = r.throughput->cv;
    j["mean_step_time_s"] = r.throughput->mean_step_time_s;
    const auto& in = r.throughput->interval;
    j["tokens_per_s_per_gpu_interval"] = {in.score_low, optional_number(in.score_high)};  // null: unbounded
    j["mean_step_time_half_width_s"] = optional_number(in.half_width_s);
    j["interval_steps"] = in.n;
  }
  if (r.gpu_hours) j["gpu_hours"] = *r.gpu_hours;
  if (r.dollars_per_million_tokens) j["dollars_per_million_tokens"] = *r.dollars_per_million_tokens;
  if (r.mfu) j["mfu"] = *r.mfu;
  if (r.active_params) j["active_params"] = {{"n", r.active_params}, {"counted_from", r.active_params_from}};
  j["notes"] = r.notes;
  const auto& w = rec.workload;
  j["workload"] = {{"key", w.key},
                   {"standard", w.standard},
                   {"description", w.description},
                   {"row_length", w.row_length},
                   {"global_batch", w.global_batch}};
  if (w.standard)
    j["workload"]["rows"] = {{"dataset", w.dataset},     {"revision", w.revision},
                             {"tokenizer", w.tokenizer}, {"tokenizer_revision", w.tokenizer_revision},
                             {"seed", w.seed},           {"rows", w.rows_count},
                             {"sha256", w.rows_sha256}};
  else if (!w.rows_sha256.empty())  // a non-standard workload that records its rows
    j["workload"]["rows"] = {{"rows", w.rows_count}, {"sha256", w.rows_sha256}};
  nlohmann::json evidence = nlohmann::json::array();
  auto add_evidence = [&](const char* role, const std::optional<registry::EvidenceFile>& f) {
    if (f) evidence.push_back({{"role", role}, {"file", f->relative}, {"format", f->format}});
  };
  add_evidence("log", std::optional<registry::EvidenceFile>(rec.log));
  add_evidence("arguments", rec.arguments);
  add_evidence("versions", rec.versions);
  add_evidence("times", rec.times);
  add_evidence("convergence_arm", rec.convergence_arm);
  add_evidence("launch", rec.launch);
  add_evidence("search", rec.search);
  j["evidence"] = evidence;
  nlohmann::json patches = nlohmann::json::array();
  for (const auto& p : rec.patches) patches.push_back({{"file", p.relative}, {"sha256", p.sha256}});
  j["patches"] = patches;
  // Component tests as the configuration check judged them (their raw outputs read), else as the recipe records them.
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& t : r.component_tests.empty() ? rec.component_tests : r.component_tests) {
    nlohmann::json x = {{"swap", t.swap},     {"compares", t.compares},
                        {"bound", t.bound},   {"worst_error", t.worst_error},
                        {"passed", t.passed}, {"shape", t.shape}};
    if (!t.output.empty()) x["output"] = t.output;
    if (!t.evidence_problem.empty()) x["problem"] = t.evidence_problem;
    if (t.rule_bound) x["rule_bound"] = *t.rule_bound;
    if (t.raw) {
      const auto& o = *t.raw;
      const double bound = t.rule_bound.value_or(t.bound);  // the rule's, as the build holds the test to it
      const auto v = checks::recompute_verdict(o, bound);
      nlohmann::json swapped = nlohmann::json::array();
      for (const auto& s : o.swap)
        swapped.push_back({{"argument", s.argument}, {"reference", s.reference}, {"recipe", s.recipe}});
      nlohmann::json tensors = nlohmann::json::array();
      for (const auto& ts : o.tensors)
        tensors.push_back({{"name", ts.name},
                           {"kind", ts.kind},
                           {"shape", ts.shape},
                           {"dtype", ts.dtype},
                           {"max_abs_error", finite_or_inf(ts.max_abs_error)},
                           {"reference_max_abs", finite_or_inf(ts.reference_max_abs)},
                           {"error", finite_or_inf(checks::tensor_error(ts))},
                           {"over", checks::tensor_error(ts) > bound}});
      x["raw"] = {{"verdict", v.verdict},
                  {"worst_error", std::isfinite(v.worst_error) ? nlohmann::json(v.worst_error) : nlohmann::json("inf")},
                  {"worst_tensor", v.worst_tensor},
                  {"swapped", swapped},
                  {"run_shape", o.shape},
                  {"precision", o.precision},
                  {"seed", o.seed},
                  {"versions", o.versions},
                  {"gpu", o.gpu},
                  {"runner_sha256", o.runner_sha256},
                  {"repeat_max_abs_diff", o.repeat_max_abs_diff},
                  {"effect",
                   {{"changed", o.changed},
                    {"modules_differ", o.modules_differ},
                    {"code_differ", o.code_differ},
                    {"code_reference_only", o.code_reference_only},
                    {"code_recipe_only", o.code_recipe_only}}},
                  {"tensors", tensors}};
    }
    tests.push_back(std::move(x));
  }
  j["component_tests"] = tests;
  j["series"] = series_json(r);
  nlohmann::json records;
  if (r.is_reference) records["reference"] = true;
  if (r.configuration) records["configuration"] = checks::to_json(*r.configuration);
  if (r.convergence) records["convergence"] = checks::to_json(*r.convergence);
  records["rows"] = r.rows_status;
  j["checks"] = records;
  return j;
}

}  // namespace

std::string leaderboard_text(const registry::Registry& reg, const std::vector<registry::Pair>& pairs) {
  (void)reg;
  std::string out;
  bool any_pair = false;
  for (const auto& p : pairs) {
    if (p.unreadable) continue;
    any_pair = true;
    out += fmt::format("{} · {} · workload {}{}\n", visible(p.model_name), visible(p.gpu), visible(p.workload_key),
                       p.standard_workload ? "" : " [non-standard workload]");
    if (!p.workload_description.empty()) wrapped(out, "  ", "  ", visible(p.workload_description));
    if (!p.ranked.empty()) {
      // Every line within kTextWidth: the numbers on one line, who submitted it and its checks on the next.
      std::size_t w = 6;
      for (const auto* r : p.ranked) w = std::max(w, std::min<std::size_t>(32, visible(r->entry->recipe->name).size()));
      out += fmt::format("  {:>4}  {:<{}} {:>13} {:>6} {:>6} {:>5} {:>6} {:>12} {:>10}  {:<8} {:<10} {}\n", "rank",
                         "recipe", w, "tokens/s/GPU", "±95%", "CV", "GPUs", "MFU", "$/1M tokens", "GPU-h/run",
                         "evidence", "date", "framework");
      int verified_rank = 0;
      for (std::size_t i = 0; i < p.ranked.size(); ++i) {
        const auto* r = p.ranked[i];
        const auto& rec = *r->entry->recipe;
        const std::string rank =
            r->verified ? (p.within_noise_of_above[i] ? "≈" : "") + std::to_string(++verified_rank) : std::string("-");
        out += fmt::format("  {:>4}  {:<{}} {:>13} {:>6} {:>6} {:>5} {:>6} {:>12} {:>10}  {:<8} {:<10} {}\n", rank,
                           visible(rec.name), w, format_tokens_per_s(r->throughput->tokens_per_s_per_gpu),
                           format_plus_minus(r->throughput->interval.relative_half_width()),
                           format_percent(r->throughput->cv), rec.gpus, r->mfu ? format_percent(*r->mfu) : "-",
                           r->dollars_per_million_tokens ? format_dollars(*r->dollars_per_million_tokens) : "-",
                           r->gpu_hours ? format_gpu_hours(*r->gpu_hours) : "-", r->coverage.code(), visible(rec.date),
                           visible(rec.stack.framework));
        wrapped(out, "        ", "          ",
                (r->verified ? "" : "[UNVERIFIED] ") + std::string("by ") + visible(rec.author) + " · " +
                    checks_summary(*r));
      }
    }
    if (!p.ranked.empty()) {
      out +=
          "  (tokens/s/GPU over the measurement window; CV of step time; MFU = 6·N·tokens/s/GPU / dense BF16 peak;\n";
      wrapped(out, "   ", "     ",
              std::string("±95% = x: tokens/s/GPU's 95% interval is score/(1+x) to score/(1−x), unbounded above "
                          "when x ≥ 100%, as the mean step time's is mean·(1 ± x) (") +
                  measure::kIntervalMethod + ");");
      if (p.ranked.size() > 1)
        wrapped(out, "   ", "     ",
                "≈ before a rank: within noise of the recipe ranked directly above (their 95% intervals overlap); the "
                "order stays by the score;");
      out += "   $/1M tokens at the window's rate; GPU-h/run = GPUs × launch-to-exit time of the evidence run;\n";
      wrapped(out, "   ", "   ", std::string(registry::kEvidenceLegend) + ";");
      // What the step time t_i is for each log format (and the name its logs give it) among the ranked recipes.
      std::set<std::pair<std::string, std::string>> formats;
      for (const auto* r : p.ranked) formats.emplace(r->entry->recipe->log.format, r->step_time_field);
      std::size_t n = 0;
      for (const auto& [f, field] : formats)
        wrapped(out, "   ", "     ",
                fmt::format("step time of a {} log = {}{}", visible(f),
                            visible(evidence::step_time_definition(f, field)), ++n == formats.size() ? ")" : ";"));
    }
    if (!p.unranked.empty()) {
      out += "  not ranked:\n";
      for (const auto* r : p.unranked) {
        std::string name = r->entry && r->entry->recipe ? r->entry->recipe->name : r->id;
        out += fmt::format("    {}\n", visible(name));
        for (const auto& why : r->reasons) wrapped(out, "      - ", "        ", visible(why.text_with_fix()));
      }
    }
    out += "\n";
  }
  for (const auto& p : pairs) {
    if (!p.unreadable) continue;
    out += "recipes that could not be read:\n";
    for (const auto* r : p.unranked) {
      out += fmt::format("  {}\n", visible(r->id));
      for (const auto& why : r->reasons) wrapped(out, "    - ", "      ", visible(why.text_with_fix()));
    }
    out += "\n";
  }
  if (!any_pair && out.empty()) out += "no recipes in the registry\n";
  return out;
}

nlohmann::json leaderboard_json(const registry::Registry& reg, const std::vector<registry::Pair>& pairs) {
  nlohmann::json j;
  nlohmann::json gpus = nlohmann::json::object();
  for (const auto& [k, g] : reg.gpus)
    gpus[k] = {{"name", g.name},
               {"instance", g.instance},
               {"instance_dollars_per_hour", g.instance_dollars_per_hour},
               {"dollars_per_gpu_hour", g.dollars_per_gpu_hour},
               {"dense_bf16_tflops", g.dense_bf16_tflops},
               {"price_date", g.price_date},
               {"price_source", g.price_source},
               {"peak_source", g.peak_source}};
  j["gpus"] = std::move(gpus);
  nlohmann::json models = nlohmann::json::object();
  for (const auto& [k, m] : reg.models)
    models[k] = {{"name", m.name},
                 {"family", m.family},
                 {"checkpoint", m.checkpoint},
                 {"revision", m.revision ? nlohmann::json(*m.revision) : nlohmann::json(nullptr)},
                 {"active_params", m.active_params},
                 {"counted_from", m.counted_from},
                 {"counting", m.counting},
                 {"breakdown", m.breakdown},
                 {"tokenizer", m.tokenizer},
                 {"chat_template", m.chat_template},
                 {"model_args", m.model_args},
                 {"layer_shape", m.layer_shape},
                 {"notes", m.notes}};
  j["models"] = std::move(models);
  j["interval_method"] = measure::kIntervalMethod;
  j["schema"] = "openrecipes-leaderboard/2";
  make_json_safe(j);
  // Every recipe's entry, on every core (each reads its own result), made safe as it is made; then put in place by
  // move, in the pairs' order: at 10,000 recipes a copy of an entry list is hundreds of MiB.
  std::vector<const registry::RecipeResult*> results;
  for (const auto& p : pairs) {
    results.insert(results.end(), p.ranked.begin(), p.ranked.end());
    results.insert(results.end(), p.unranked.begin(), p.unranked.end());
  }
  std::vector<nlohmann::json> entries(results.size());
  tbb::parallel_for(std::size_t{0}, results.size(), [&](std::size_t i) {
    entries[i] = result_json(*results[i], reg.models);
    make_json_safe(entries[i]);
  });
  std::size_t next = 0;
  nlohmann::json ps = nlohmann::json::array();
  nlohmann::json unreadable = nlohmann::json::array();
  for (const auto& p : pairs) {
    if (p.unreadable) {
      next += p.ranked.size();
      for (std::size_t i = 0; i < p.unranked.size(); ++i) unreadable.push_back(std::move(entries[next++]));
      continue;
    }
    nlohmann::json pj;
    pj["model"] = p.model;
    pj["model_name"] = p.model_name;
    pj["gpu"] = p.gpu;
    pj["workload"] = {
        {"key", p.workload_key}, {"description", p.workload_description}, {"standard", p.standard_workload}};
    pj["non_standard_workload"] = !p.standard_workload;
    make_json_safe(pj);
    nlohmann::json ranked = nlohmann::json::array();
    int rank = 0;  // the verified recipes' ranks: a preview's unverified entry has none
    for (std::size_t i = 0; i < p.ranked.size(); ++i) {
      nlohmann::json& e = entries[next++];
      if (p.ranked[i]->verified) e["rank"] = ++rank;
      e["within_noise_of_above"] = static_cast<bool>(p.within_noise_of_above[i]);
      ranked.push_back(std::move(e));
    }
    nlohmann::json unranked = nlohmann::json::array();
    for (std::size_t i = 0; i < p.unranked.size(); ++i) unranked.push_back(std::move(entries[next++]));
    pj["ranked"] = std::move(ranked);
    pj["unranked"] = std::move(unranked);
    ps.push_back(std::move(pj));
  }
  j["pairs"] = std::move(ps);
  j["unreadable"] = std::move(unreadable);
  return j;
}

}  // namespace openrecipes::site
