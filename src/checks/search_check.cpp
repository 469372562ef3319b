// A tuned recipe's search held to the recipe (checks/search_check.h).
#include "checks/search_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/megatron_memory.h"
#include "evidence/step_log.h"
#include "layout/planner.h"
#include "measure/throughput.h"
#include "measure/window.h"

namespace openrecipes::checks {
namespace {

constexpr const char* kFix =
    "keep the tune.json of the search that found this run (openrecipes submit --search TUNE_DIR)";

measure::ScoreInterval interval_of(const evidence::SearchTrial& t) {
  measure::ScoreInterval i;
  i.score_low = t.score_low.value_or(0);
  i.score_high = t.score_high.value_or(std::numeric_limits<double>::infinity());
  return i;
}

// Where a setup is not what a candidate records of it: (the record's, the setup's), each in words ("micro-batch 32").
std::vector<std::pair<std::string, std::string>> knob_differences(const evidence::SearchCandidate& c,
                                                                  const layout::TrainingSetup& t) {
  std::vector<std::pair<std::string, std::string>> out;
  auto differ = [&](const char* knob, const std::string& recorded, const std::string& setup) {
    if (recorded != setup) out.emplace_back(fmt::format("{} {}", knob, recorded), fmt::format("{} {}", knob, setup));
  };
  const auto& l = t.layout;
  differ("TP", std::to_string(c.layout.tp), std::to_string(l.tp));
  differ("PP", std::to_string(c.layout.pp), std::to_string(l.pp));
  differ("CP", std::to_string(c.layout.cp), std::to_string(l.cp));
  differ("EP", std::to_string(c.layout.ep), std::to_string(l.ep));
  // ETP where experts are in play (Megatron's ETP defaults to TP, and tune names it only then).
  if (c.layout.ep > 1 || l.ep > 1) differ("ETP", std::to_string(c.layout.etp), std::to_string(l.etp));
  differ("DP", std::to_string(c.layout.dp), std::to_string(l.dp));
  differ("VPP", c.layout.vpp ? std::to_string(*c.layout.vpp) : "none", l.vpp ? std::to_string(*l.vpp) : "none");
  differ("micro-batch", std::to_string(c.micro_batch), std::to_string(l.micro_batch));
  differ("recompute", c.recompute, layout::recompute_name(t.recompute));
  differ("distributed optimizer", c.distributed_optimizer ? "on" : "off", t.distributed_optimizer ? "on" : "off");
  if (l.tp > 1) differ("sequence parallel", c.sequence_parallel ? "on" : "off", t.sequence_parallel ? "on" : "off");
  return out;
}

// A trial's outcome against its numbers and tune's rules: a measured trial ran every trial step; one cut as slower
// ran fewer, after a best, and its interval fell short of that best's. `best` is the best before it (best_trial's
// replay).
std::vector<std::string> outcome_problems(const evidence::TuneSearch& s, const evidence::SearchTrial& t,
                                          const evidence::SearchTrial* best) {
  std::vector<std::string> out;
  if (t.outcome == evidence::TrialOutcome::measured && t.steps_measured != s.trial_steps)
    out.push_back(fmt::format("trial {} is marked measured, and measured {} of its {} steps", t.trial, t.steps_measured,
                              s.trial_steps));
  if (t.outcome != evidence::TrialOutcome::cut_slower) return out;
  if (t.steps_measured >= s.trial_steps)
    out.push_back(
        fmt::format("trial {} is marked cut as slower, and measured all its {} steps", t.trial, s.trial_steps));
  else if (!best || !t.score_low)
    out.push_back(fmt::format("trial {} is marked cut as slower, with no best {} to be slower than", t.trial,
                              best ? "score of its own" : "before it"));
  else if (!measure::interval_falls_short(interval_of(t), interval_of(*best)))
    out.push_back(
        fmt::format("trial {} is marked cut as slower, and its interval does not fall more than {:g}% below "
                    "the best's (trial {}): tune would not have cut it",
                    t.trial, measure::kCutMargin * 100, best->trial));
  return out;
}

// A trial's numbers against its own log: tokens/s/GPU and its interval over the steps after warm-up, Megatron's max
// allocated.
std::vector<std::string> trial_problems(const evidence::TuneSearch& s, const evidence::SearchTrial& t,
                                        const SearchSubject& subject) {
  if (!t.recomputed()) return {};
  const std::string relative = evidence::trial_log_path(subject.search_relative, t.trial);
  std::string text;
  try {
    text = subject.read(relative);
  } catch (const InputError& e) {
    return {fmt::format("trial {}'s log {} does not read ({}): its numbers cannot be recomputed", t.trial, relative,
                        e.problem())};
  }
  std::vector<std::string> out;
  if (t.tokens_per_s_per_gpu) try {
      const auto log = evidence::parse_step_log(text, "megatron", std::nullopt, relative);
      const measure::Window window{s.warmup_steps, s.warmup_steps + t.steps_measured - 1};
      const auto m = measure::measure_throughput(log, window, {s.gpus, subject.row_length, subject.global_batch});
      auto off = [](double a, double b) { return std::abs(a - b) > 1e-6 * std::max(std::abs(a), std::abs(b)); };
      if (off(m.tokens_per_s_per_gpu, *t.tokens_per_s_per_gpu) || off(m.interval.score_low, *t.score_low) ||
          (m.interval.bounded() != t.score_high.has_value()) ||
          (t.score_high && off(m.interval.score_high, *t.score_high)))
        out.push_back(fmt::format("trial {} records {:.1f} tokens/s/GPU, and its log {} gives {:.1f} over steps {}",
                                  t.trial, *t.tokens_per_s_per_gpu, relative, m.tokens_per_s_per_gpu, window.str()));
    } catch (const InputError& e) {
      out.push_back(fmt::format("trial {}'s log {} does not measure: {}", t.trial, relative, e.problem()));
    }
  // The run in the log is its candidate's: the layout its argument dump shows (a log without a dump, another node's,
  // shows none).
  try {
    if (const auto dump = evidence::find_megatron_args(text, relative)) {
      const auto* c = s.find_candidate(t.candidate);
      if (c)
        for (auto& d : knob_differences(*c, layout::setup_from_arguments(dump->values, relative)))
          out.push_back(fmt::format("trial {}'s log {} ran {}, and its candidate {} records {}", t.trial, relative,
                                    d.second, c->name, d.first));
    }
  } catch (const InputError& e) {
    out.push_back(fmt::format("trial {}'s log {} does not show its layout: {}", t.trial, relative, e.problem()));
  }
  if (t.measured_peak_mib) {
    std::optional<double> peak;  // Megatron's max allocated, as the log prints it
    try {
      if (auto mem = evidence::parse_megatron_memory(text, relative)) peak = mem->max_allocated_mib;
    } catch (const InputError&) {
    }
    if (!peak || std::abs(*peak - *t.measured_peak_mib) > 0.01)
      out.push_back(fmt::format("trial {} records a measured peak of {:.0f} MiB, and its log {} shows {}", t.trial,
                                *t.measured_peak_mib, relative,
                                peak ? fmt::format("{:.0f} MiB", *peak) : std::string("none")));
  }
  return out;
}

// The record against the recipe: its start, its winner, its GPU count.
void check_record(const evidence::TuneSearch& s, const SearchSubject& subject, Reasons& out) {
  auto add = [&](const char* rule, std::string message, std::string fix = kFix) {
    out.push_back({Stage::search, rule, std::move(message), std::move(fix)});
  };
  const std::string& where = subject.where;
  if (!subject.reference || s.recipe != *subject.reference)
    add("search.start",
        fmt::format("{} is a search from {}, and the recipe's reference is {}", where, quote_for_message(s.recipe),
                    subject.reference ? *subject.reference : std::string("none")),
        "a tuned recipe's reference is the recipe its search started from (submit --reference)");
  const evidence::SearchCandidate* winner = s.winner ? s.find_candidate(s.winner->candidate) : nullptr;
  if (!winner || winner->start)
    add("search.winner", where + " hands back no variant of its start (no winner, or the start won)");
  else if (trim(winner->command) != trim(subject.command))
    add("search.command",
        fmt::format("the recipe's command is not that of the winner {} in {}", quote_for_message(winner->name), where));
  else if (subject.tokens_per_s_per_gpu &&
           (!s.winner->tokens_per_s_per_gpu ||
            std::abs(*s.winner->tokens_per_s_per_gpu / *subject.tokens_per_s_per_gpu - 1) > 1e-6))
    add("search.score",
        fmt::format("{} says its winner's run scored {}, and the recipe's evidence scores {:.1f} tokens/s/GPU", where,
                    s.winner->tokens_per_s_per_gpu ? fmt::format("{:.1f}", *s.winner->tokens_per_s_per_gpu)
                                                   : std::string("nothing"),
                    *subject.tokens_per_s_per_gpu),
        "submit the winner's own run with its search");
  if (s.gpus != subject.gpus)
    add("search.gpus",
        fmt::format("{} is a search on {}, and the recipe ran on {}", where, counted(s.gpus, "GPU"), subject.gpus));
  // The start is the reference's own configuration: on the reference's GPU count, its very command.
  if (subject.reference_command)
    for (const auto& c : s.candidates)
      if (c.start && trim(c.command) != trim(*subject.reference_command))
        add("search.start-command",
            fmt::format("the start of {} is not the command of the reference {}", where, *subject.reference));
}

}  // namespace

namespace {

// tune's rule: a measured trial with a score interval is the new best when there is none yet, or when its interval
// clears the best's.
bool replaces_best(const evidence::SearchTrial& t, const evidence::SearchTrial* best) {
  return t.outcome == evidence::TrialOutcome::measured && t.score_low &&
         (!best || measure::interval_clears(interval_of(t), interval_of(*best)));
}

}  // namespace

std::optional<std::int64_t> best_trial(const evidence::TuneSearch& s) {
  const evidence::SearchTrial* best = nullptr;
  for (const auto& t : s.trials)
    if (replaces_best(t, best)) best = &t;
  return best ? std::optional<std::int64_t>(best->trial) : std::nullopt;
}

Reasons check_search(const evidence::TuneSearch& s, const SearchSubject& subject) {
  Reasons out;
  check_record(s, subject, out);
  const evidence::SearchTrial* best_so_far = nullptr;  // tune's replay, trial by trial
  for (const auto& t : s.trials) {
    for (auto& p : trial_problems(s, t, subject)) out.push_back({Stage::search, "search.trial", std::move(p), kFix});
    for (auto& p : outcome_problems(s, t, best_so_far))
      out.push_back({Stage::search, "search.rules", std::move(p), kFix});
    if (replaces_best(t, best_so_far)) best_so_far = &t;
  }
  // The planner's verdicts: against the recipe's GPU type's memory, as tune asked it.
  if (subject.memory_mib && std::abs(s.memory_mib - *subject.memory_mib) > 0.5)
    out.push_back({Stage::search, "search.rules",
                   fmt::format("{} planned for {:.0f} MiB a GPU, and the recipe's GPU type has {:.0f} MiB",
                               subject.where, s.memory_mib, *subject.memory_mib),
                   kFix});
  const std::optional<double> usable =
      s.memory_mib > 0 ? std::optional<double>(layout::usable_memory_mib(s.memory_mib)) : std::nullopt;
  if (usable != s.usable_memory_mib &&
      !(usable && s.usable_memory_mib && std::abs(*usable - *s.usable_memory_mib) < 0.05))
    out.push_back({Stage::search, "search.rules",
                   fmt::format("{} records {} MiB usable of {:.0f} MiB, and the planner allows {}", subject.where,
                               s.usable_memory_mib ? fmt::format("{:.1f}", *s.usable_memory_mib) : "none", s.memory_mib,
                               usable ? fmt::format("{:.1f}", *usable) : "none"),
                   kFix});
  auto fits = [&](double peak) { return layout::fits_memory(peak, s.memory_mib); };
  std::map<std::string, std::optional<CandidatePrediction>> predictions;  // by candidate name, each computed once
  for (const auto& c : s.candidates) {
    if (c.planner_fits != fits(c.predicted_peak_mib))
      out.push_back({Stage::search, "search.rules",
                     fmt::format("candidate {} records that it {} the GPU, and its predicted peak of {:.0f} MiB {} "
                                 "the usable memory",
                                 c.name, c.planner_fits ? "fits" : "does not fit", c.predicted_peak_mib,
                                 fits(c.predicted_peak_mib) ? "is within" : "is over"),
                     kFix});
    if (!subject.predict) continue;
    const auto& p = predictions[c.name] = subject.predict(c.command);
    if (p)
      for (const auto& d : knob_differences(c, p->setup))
        out.push_back({Stage::search, "search.rules",
                       fmt::format("candidate {} records {}, and its command sets {}", c.name, d.first, d.second),
                       kFix});
  }
  for (const auto& t : s.trials)
    if (const auto* c = s.find_candidate(t.candidate);
        c && (t.planner_fits != c->planner_fits || std::abs(t.predicted_peak_mib - c->predicted_peak_mib) > 0.5))
      out.push_back({Stage::search, "search.rules",
                     fmt::format("trial {} records another prediction than its candidate {}", t.trial, c->name), kFix});
  // Its winner by tune's own rule, and every prediction recomputed from each candidate's command.
  const auto best = best_so_far ? std::optional<std::int64_t>(best_so_far->trial) : std::nullopt;  // best_trial's
  if (s.winner && best != s.winner->trial)
    out.push_back({Stage::search, "search.rules",
                   fmt::format("its winner is trial {}, and by tune's rule (a trial replaces the best only when its "
                               "whole 95% interval lies above the best's) the best of its measured trials is {}",
                               s.winner->trial, best ? "trial " + std::to_string(*best) : std::string("none")),
                   kFix});
  if (subject.predict)
    for (const auto& t : s.trials) {
      const auto at = predictions.find(t.candidate);
      if (at == predictions.end()) continue;  // a candidate the record does not list: check_record names it
      const std::optional<double> predicted = at->second ? at->second->peak_mib : std::nullopt;
      if (!predicted)
        out.push_back({Stage::search, "search.rules",
                       fmt::format("trial {}'s candidate command gives the planner no shape and setup", t.trial),
                       kFix});
      else if (std::abs(*predicted - t.predicted_peak_mib) > 0.5)
        out.push_back({Stage::search, "search.rules",
                       fmt::format("trial {} records a predicted peak of {:.0f} MiB, and the planner predicts {:.0f} "
                                   "MiB for its candidate's command",
                                   t.trial, t.predicted_peak_mib, *predicted),
                       kFix});
    }
  return out;
}

}  // namespace openrecipes::checks
