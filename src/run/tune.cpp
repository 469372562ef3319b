// `openrecipes tune`: the search loop over the candidates' trials, the winner's run of the recipe's own length, and
// TUNE_DIR (run/tune.h).
#include "run/tune.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <set>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/step_log.h"
#include "layout/planner.h"
#include "measure/window.h"
#include "registry/folder_writer.h"
#include "registry/recipe.h"
#include "run/node.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string fmt_mib(const std::optional<double>& v) { return v ? mib_text(*v) : std::string("-"); }
std::string fmt_seconds(const std::optional<double>& v) { return v ? fmt::format("{:.3g}", *v) : std::string("-"); }

// A predicted step time as the search records it: to the 0.1 ms.
std::optional<double> rounded_step(const std::optional<double>& s) {
  if (!s) return std::nullopt;
  return layout::round_step_time(*s);
}

// A score with its interval's relative half-width, the board's ±95% (h / mean step time).
std::string score_text(const measure::ScoreInterval& i, double score) {
  return i.bounded() ? fmt::format("{} ±{:.1f}%", with_thousands(score, 1), i.relative_half_width() * 100)
                     : fmt::format("{} (unbounded)", with_thousands(score, 1));
}

// Trial `i` is measured and its interval overlaps the best's (it does not replace the best).
bool within_noise_of_best(const TuneResult& r, std::size_t i) {
  const auto& t = r.trials[i];
  return r.best && *r.best != i && t.outcome == TrialOutcome::measured && t.interval &&
         measure::intervals_overlap(*t.interval, *r.trials[*r.best].interval);
}

void write_outputs(const registry::Recipe& start, const TuneRequest& q, const TuneResult& r) {
  write_file_atomic(q.tune_dir / "tune.json", evidence::tune_search_json(search_record(start, q, r)));
  write_file_atomic(q.tune_dir / "tune.txt", tune_table(start, q, r));
}

}  // namespace

void check_tune_request(const TuneRequest& q) {
  if (!std::isfinite(q.budget_minutes) || q.budget_minutes <= 0 || q.budget_minutes > kMaxBudgetMinutes)
    throw InputError(fmt::format("--budget {}", format_double(q.budget_minutes)),
                     fmt::format("the budget is wall-clock minutes, above 0 and at most {} (a week)",
                                 format_double(kMaxBudgetMinutes)),
                     "give the minutes the whole search may take, e.g. --budget 60");
  auto at_least = [](const char* option, std::int64_t value, std::int64_t min) {
    if (value < min)
      throw InputError(fmt::format("{} {}", option, value), fmt::format("{} is at least {}", option, min),
                       fmt::format("give {} {} or more", option, min));
  };
  at_least("--gpus", q.gpus, 1);
  at_least("--nodes", q.nodes, 1);
  at_least("--trial-steps", q.trial_steps, 2);
  at_least("--warmup-steps", q.warmup_steps, 0);
  for (const auto& [option, value] :
       {std::pair{"--trial-steps", q.trial_steps}, std::pair{"--warmup-steps", q.warmup_steps}})
    if (value > kMaxTrialSteps)
      throw InputError(fmt::format("{} {}", option, value), fmt::format("{} is at most {}", option, kMaxTrialSteps),
                       "give the steps of the recipe's own run or fewer");
  at_least("--max-trials", q.max_trials, 0);
}

evidence::TuneSearch search_record(const registry::Recipe& start, const TuneRequest& q, const TuneResult& r) {
  auto relative = [&](const std::string& path) { return fs::path(path).lexically_relative(q.tune_dir).string(); };
  evidence::TuneSearch s;
  s.recipe = start.id;
  s.gpus = q.gpus, s.nodes = q.nodes, s.launcher = q.launcher;
  s.budget_minutes = q.budget_minutes;
  s.warmup_steps = q.warmup_steps, s.trial_steps = q.trial_steps;
  s.memory_mib = q.memory_mib;
  if (q.memory_mib > 0) s.usable_memory_mib = layout::usable_memory_mib(q.memory_mib);
  s.interval_method = measure::kIntervalMethod;
  for (const auto& c : r.candidates) {
    const auto& l = c.setup.layout;
    evidence::SearchCandidate x;
    x.name = c.name, x.start = c.start, x.knobs = c.knobs;
    x.layout = {l.tp, l.pp, l.cp, l.ep, l.etp, l.dp, l.vpp};
    x.micro_batch = l.micro_batch;
    x.recompute = layout::recompute_name(c.setup.recompute);
    x.distributed_optimizer = c.setup.distributed_optimizer, x.sequence_parallel = c.setup.sequence_parallel;
    x.predicted_peak_mib = std::round(c.memory.peak_mib), x.planner_fits = c.fits, x.relative_time = c.relative_time;
    x.predicted_step_time_s = rounded_step(c.predicted_step_s);
    x.changes = c.changes, x.swap = c.swap, x.command = c.command;
    s.candidates.push_back(std::move(x));
  }
  s.swaps.emplace();
  for (const auto& sw : r.swaps) {
    evidence::SearchSwap x{sw.test, {}, sw.tested_in};
    for (const auto& a : sw.arguments) x.arguments.push_back({a.argument, a.reference, a.recipe});
    s.swaps->push_back(std::move(x));
  }
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const auto& t = r.trials[i];
    const auto& c = r.candidates[t.candidate];
    evidence::SearchTrial x;
    x.trial = static_cast<std::int64_t>(i) + 1;
    x.candidate = c.name, x.knobs = c.knobs, x.outcome = t.outcome, x.reason = t.reason;
    x.predicted_peak_mib = std::round(c.memory.peak_mib), x.planner_fits = c.fits;
    x.measured_peak_mib = t.measured_peak_mib, x.planner = t.planner, x.steps_measured = t.steps_measured;
    x.tokens_per_s_per_gpu = t.tokens_per_s_per_gpu;
    if (t.interval) {
      x.score_low = t.interval->score_low;
      if (t.interval->bounded()) x.score_high = t.interval->score_high;
      x.mean_step_time_s = t.interval->mean_step_time_s;
    }
    x.predicted_step_time_s = rounded_step(c.predicted_step_s);
    x.wall_s = t.wall_s, x.startup_s = t.startup_s;
    x.best = r.best && *r.best == i;
    x.within_noise_of_best = within_noise_of_best(r, i);
    x.run_dir = relative(t.run_dir);
    s.trials.push_back(std::move(x));
  }
  s.stopped = r.stopped;
  s.elapsed_s = r.elapsed_s;
  if (r.best) {
    const auto& c = r.candidates[r.trials[*r.best].candidate];
    evidence::TuneSearch::Winner w;
    w.trial = static_cast<std::int64_t>(*r.best) + 1;
    w.candidate = c.name, w.start = c.start, w.knobs = c.knobs;
    w.recipe = (fs::path("recipes") / start.model / start.gpu / c.name).string();
    if (!r.winner_run_dir.empty()) w.run_dir = relative(r.winner_run_dir);
    w.status = r.winner_status;
    if (r.winner_score) {
      w.tokens_per_s_per_gpu = r.winner_score->tokens_per_s_per_gpu;
      w.score_low = r.winner_score->interval.score_low;
      if (r.winner_score->interval.bounded()) w.score_high = r.winner_score->interval.score_high;
    }
    s.winner = std::move(w);
  }
  return s;
}

namespace {

// A candidate as a draft recipe in TUNE_DIR: what run plans and submit derives the command from.
void write_candidate_draft(const registry::Recipe& recipe, const TuneRequest& q, const TuneCandidate& c) {
  registry::Recipe d = recipe;
  d.name = c.name;
  d.command = c.command;
  d.layout = c.setup.layout;
  d.layout.max_tokens_per_gpu = recipe.layout.max_tokens_per_gpu;
  d.gpus = q.gpus;
  d.reference = recipe.id;
  registry::write_recipe_draft(d, tune_draft_dir(q.tune_dir, recipe.model, recipe.gpu, c.name),
                               fmt::format("A candidate of openrecipes tune from {} on {}: {}.\nIts trial is in "
                                           "trials/; see tune.json.",
                                           recipe.id, counted(q.gpus, "GPU"), c.knobs),
                               true);
}

// The winner re-run for the recipe's own length, as a run directory submit takes (TUNE_DIR/winner): its status and
// score into r.
void run_winner(const registry::Recipe& recipe, const TuneRequest& q, const RunRequest& probe,
                const measure::StepShape& shape, TuneResult& r) {
  const auto& c = r.candidates[r.trials[*r.best].candidate];
  std::cout << fmt::format("winner {} ({}): running it for the recipe's {} steps\n", c.name, c.knobs,
                           recipe.steps_per_run);
  std::cout.flush();
  RunRequest rq = probe;
  rq.recipe = tune_draft_dir(q.tune_dir, recipe.model, recipe.gpu, c.name);
  rq.trial_iters = 0;
  rq.run_dir = q.tune_dir / "winner";
  const RunPlan plan = make_plan(rq);
  ExecuteOptions eo = q.execute;
  eo.echo = false;
  eo.slurm.echo = false;
  const RunRecord rec = execute_run(plan, eo);
  r.winner_run_dir = plan.run_dir;
  r.winner_status = rec.status;
  if (rec.status == "completed") try {
      const auto log = evidence::read_step_log(fs::path(plan.run_dir) / rec.log.path, rec.log.format);
      r.winner_score = measure::measure_throughput(
          log, measure::window_for_run(plan.train_iters, recipe.window, recipe.file.string()), shape);
    } catch (const InputError&) {
    }
}

}  // namespace

void check_trial_length(const registry::Recipe& start, const TuneRequest& q) {
  const std::int64_t trial_iters = q.warmup_steps + q.trial_steps;
  if (trial_iters > start.steps_per_run)
    throw InputError(fmt::format("--trial-steps {}", q.trial_steps),
                     fmt::format("warm-up + trial steps ({}) exceed the recipe's run of {} steps (the replayed data "
                                 "and schedule are the recipe's)",
                                 trial_iters, start.steps_per_run),
                     "give fewer trial steps");
}

TuneResult tune(const registry::Recipe& recipe, const TuneRequest& q) {
  const auto started = Clock::now();
  check_tune_request(q);
  if (recipe.stack.framework != "megatron-lm")
    throw InputError(recipe.file.string(), "tune runs Megatron-LM recipes (its trials cut --train-iters)",
                     "tune the recipe's Megatron-LM form");
  check_trial_length(recipe, q);
  const std::int64_t trial_iters = q.warmup_steps + q.trial_steps;
  std::error_code ec;
  if (fs::exists(q.tune_dir, ec) && !fs::is_empty(q.tune_dir, ec))
    throw InputError(q.tune_dir.string(), "TUNE_DIR exists and is not empty", "give a new folder with -o");

  TuneResult r;
  r.candidates = tune_candidates(recipe, q.gpus, q.nodes, q.memory_mib, q.speed);
  r.swaps = tune_swaps(recipe);
  std::optional<evidence::ArgumentDump> start_dump;  // the start's run: what each swap's prediction starts from
  if (recipe.arguments) try {
      start_dump = evidence::parse_megatron_args(read_file(recipe.arguments->path), recipe.arguments->relative);
    } catch (const InputError&) {
    }
  auto draft_dir = [&](const std::string& name) { return tune_draft_dir(q.tune_dir, recipe.model, recipe.gpu, name); };
  auto write_draft = [&](const TuneCandidate& c) { write_candidate_draft(recipe, q, c); };
  std::set<std::string> commands;
  for (const auto& c : r.candidates) {
    write_draft(c);
    commands.insert(c.command);
  }
  // A same-math swap tried on a new best: its command plus the swap, tried next (docs/tune.md "Same-math swaps").
  auto swap_candidates = [&](std::size_t base_index) {
    std::vector<TuneCandidate> made;
    for (const auto& s : r.swaps)
      if (auto c = swap_candidate(recipe, r.candidates[base_index], s, start_dump ? &*start_dump : nullptr, q.gpus,
                                  q.memory_mib, r.candidates.size() + made.size());
          c && commands.insert(c->command).second) {
        write_draft(*c);
        made.push_back(std::move(*c));
      }
    return made;
  };
  // The start is planned first: what run would refuse for it (variables, the checkout) stops the search at once.
  RunRequest probe;
  probe.recipe = draft_dir(r.candidates.front().name);
  probe.gpus = q.gpus, probe.nodes = q.nodes, probe.launcher = q.launcher, probe.vars = q.vars;
  probe.data_dir = q.data_dir;
  probe.trial_iters = trial_iters;
  probe.run_dir = "/nonexistent/openrecipes-tune";
  make_plan(probe);

  const measure::StepShape shape{q.gpus, recipe.workload.row_length, recipe.workload.global_batch};
  const double budget_s = q.budget_minutes * 60;
  std::optional<double> trial_estimate_s;  // the longest trial so far
  auto final_estimate_s = [&]() -> double {
    if (!r.best) return 0;
    const auto& b = r.trials[*r.best];
    return b.startup_s.value_or(0) + static_cast<double>(recipe.steps_per_run) * b.interval->mean_step_time_s * 1.2;
  };
  write_outputs(recipe, q, r);
  r.stopped = "every candidate tried";
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const auto& c = r.candidates[i];
    if (g_stop_requested) {
      r.stopped = "interrupted";
      break;
    }
    if (q.max_trials > 0 && static_cast<std::int64_t>(r.trials.size()) >= q.max_trials) {
      r.stopped = "--max-trials";
      break;
    }
    const double elapsed = seconds_since(started);
    if (elapsed + trial_estimate_s.value_or(0) + final_estimate_s() > budget_s) {
      r.stopped = "budget";
      break;
    }
    std::cout << fmt::format("trial {} of at most {}: {} ({}; predicted peak {} MiB)\n", r.trials.size() + 1,
                             r.candidates.size(), c.name, c.knobs, fmt_mib(c.memory.peak_mib));
    std::cout.flush();
    TrialSetup ts;
    ts.run = probe;
    ts.run.recipe = draft_dir(c.name);
    ts.run.run_dir = q.tune_dir / "trials" / fmt::format("{:02}-{}", r.trials.size() + 1, c.name);
    ts.warmup_steps = q.warmup_steps;
    ts.trial_steps = q.trial_steps;
    ts.shape = shape;
    if (r.best) ts.best = r.trials[*r.best].interval;
    ts.deadline = started + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(budget_s - final_estimate_s()));
    ts.execute = q.execute;
    TuneTrial t = run_trial(ts);
    t.candidate = i;
    t.planner = planner_verdict(t, c.memory.peak_mib, c.fits, q.memory_mib);
    trial_estimate_s = std::max(trial_estimate_s.value_or(0), t.wall_s);
    r.trials.push_back(t);
    const std::size_t k = r.trials.size() - 1;
    bool new_best = false;
    if (t.outcome == TrialOutcome::measured && t.interval &&
        (!r.best || measure::interval_clears(*t.interval, *r.trials[*r.best].interval))) {
      r.best = k;
      new_best = true;
    }
    std::cout << fmt::format(
        "  {}{}{}\n", evidence::outcome_name(t.outcome),
        t.tokens_per_s_per_gpu ? ", " + score_text(*t.interval, *t.tokens_per_s_per_gpu) + " tokens/s/GPU" : "",
        t.reason.empty() ? "" : " (" + t.reason + ")");
    std::cout.flush();
    if (new_best && !r.candidates[i].start && r.candidates[i].swap.empty()) {
      auto made = swap_candidates(i);
      r.candidates.insert(r.candidates.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                          std::make_move_iterator(made.begin()), std::make_move_iterator(made.end()));
    }
    write_outputs(recipe, q, r);
    if (t.outcome == TrialOutcome::interrupted) {
      r.stopped = "interrupted";
      break;
    }
  }
  if (r.best && !r.candidates[r.trials[*r.best].candidate].start && !g_stop_requested)
    run_winner(recipe, q, probe, shape, r);
  r.elapsed_s = seconds_since(started);
  write_outputs(recipe, q, r);
  return r;
}

std::string tune_table(const registry::Recipe& start, const TuneRequest& q, const TuneResult& r) {
  std::string out = fmt::format(
      "tune {} on {}, {} launcher: {}, {} ({} warm-up + {} measured "
      "steps each), budget {} min\n",
      terminal_safe(start.id, false), counted(q.gpus, "GPU"), q.launcher,
      counted(std::int64_t(r.candidates.size()), "candidate"), counted(std::int64_t(r.trials.size()), "trial"),
      q.warmup_steps, q.trial_steps, format_double(q.budget_minutes));
  // The change from the start last, whole: it is what tells two candidates apart.
  out +=
      fmt::format("  {:>2}  {:>10} {:>10}  {:>9} {:>9}  {:<24} {:>6}  {:<28} {}\n", "#", "pred. peak", "meas. peak",
                  "pred. s", "meas. s", "tokens/s/GPU ±95%", "wall s", "outcome", "candidate (change from the start)");
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const auto& t = r.trials[i];
    const auto& c = r.candidates[t.candidate];
    std::string outcome = evidence::outcome_name(t.outcome);
    if (r.best && *r.best == i)
      outcome += " · best";
    else if (within_noise_of_best(r, i))
      outcome += " · within noise";
    out += fmt::format("  {:>2}  {:>10} {:>10}  {:>9} {:>9}  {:<24} {:>6.0f}  {:<28} {}\n", i + 1,
                       fmt_mib(c.memory.peak_mib) + (c.fits ? "" : "!"), fmt_mib(t.measured_peak_mib),
                       fmt_seconds(c.predicted_step_s),
                       fmt_seconds(t.interval ? std::optional<double>(t.interval->mean_step_time_s) : std::nullopt),
                       t.tokens_per_s_per_gpu ? score_text(*t.interval, *t.tokens_per_s_per_gpu) : "-", t.wall_s,
                       outcome, terminal_safe(c.knobs, false));
    if (!t.reason.empty()) out += "        " + terminal_safe(t.reason, false) + "\n";
    if (t.planner.starts_with("wrong")) out += "        planner " + t.planner + "\n";
  }
  out += fmt::format(
      "  (peaks in MiB per GPU: the planner's prediction, ! where it predicted no fit, and Megatron's max "
      "allocated;\n   step times in s: the step-time model's prediction (docs/step-time-model.md) and the measured "
      "mean;\n   ±95%: the interval's half-width relative to the mean step time; {})\n",
      measure::kIntervalMethod);
  out += fmt::format("  stopped: {} after {:.0f} s\n", r.stopped, r.elapsed_s);
  if (!r.best) {
    out += "  no trial was measured: nothing to hand back\n";
  } else {
    const auto& b = r.trials[*r.best];
    const auto& c = r.candidates[b.candidate];
    if (c.start) {
      out += "  the start is the fastest configuration measured: no variant cleared its interval\n";
    } else {
      out += fmt::format("  winner: {} ({})\n", c.name, c.knobs);
      if (r.winner_score)
        out +=
            fmt::format("  its {}-step run: {} tokens/s/GPU over the protocol's window, in {}\n", start.steps_per_run,
                        score_text(r.winner_score->interval, r.winner_score->tokens_per_s_per_gpu), r.winner_run_dir);
      else if (!r.winner_run_dir.empty())
        out += fmt::format("  its {}-step run {}: {}\n", start.steps_per_run, r.winner_status, r.winner_run_dir);
      if (r.winner_status == "completed" && c.swap.empty()) {
        out += fmt::format("  next: openrecipes submit {} --reference {} --search {} --author <handle>\n",
                           r.winner_run_dir, start.dir.string(), q.tune_dir.string());
      } else if (r.winner_status == "completed") {
        // SPEC §4.2: the swap needs a passed component test at the recipe's own shape, which the one that allowed the
        // trial (another recipe's micro-batch and row length) is not.
        std::string vars;
        for (const auto& v : q.vars) vars += " --var " + terminal_safe(v, false);
        const fs::path ct = q.tune_dir / "component-tests";
        out += fmt::format(
            "  its same-math swap ({}) needs a component test at its own shape before it can be verified:\n"
            "  next: openrecipes component-test {} --reference {}{} -o {}\n"
            "  then: openrecipes submit {} --reference {} --search {} --component-tests {} --author <handle>\n",
            c.swap, tune_draft_dir(q.tune_dir, start.model, start.gpu, c.name).string(), start.dir.string(), vars,
            ct.string(), r.winner_run_dir, start.dir.string(), q.tune_dir.string(), ct.string());
      }
    }
  }
  return out;
}

}  // namespace openrecipes::run
