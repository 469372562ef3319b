// `openrecipes tune`: candidates from the planner, short measured trials through the run machinery, the winner's
// run of the recipe's own length, TUNE_DIR (run/tune.h).
#include "run/tune.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "checks/framework_options.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/megatron_memory.h"
#include "evidence/step_log.h"
#include "layout/command.h"
#include "layout/relayout.h"
#include "measure/window.h"
#include "registry/evaluate.h"
#include "registry/recipe_memory.h"
#include "registry/registry.h"
#include "registry/search_rules.h"
#include "run/node.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A trial is cut only when its interval's top lies this far below the best's bottom: one window's interval does not
// cover drift between runs (MLPerf states run-to-run variation as roughly ±2.5-5%), so a trial as fast as the best
// must never be cut for a slightly slower machine moment.
constexpr double kCutMargin = 0.05;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

const std::vector<std::string> kRecomputeFlags = {"--recompute-granularity", "--recompute-method",
                                                  "--recompute-num-layers"};
const std::vector<std::string> kVpp = {"--num-virtual-stages-per-pipeline-rank"};
const std::vector<std::string> kVppLayers = {"--num-layers-per-virtual-pipeline-stage"};
const std::vector<std::string> kFirstStage = {"--decoder-first-pipeline-num-layers"};
const std::vector<std::string> kLastStage = {"--decoder-last-pipeline-num-layers"};
const std::vector<std::string> kDistOpt = {"--use-distributed-optimizer"};
const std::vector<std::string> kOverlap = {"--overlap-grad-reduce", "--overlap-param-gather"};
const std::vector<std::string> kSeqPar = {"--sequence-parallel"};

// The knobs `t` changes from `s`: short (for a folder name) and in words.
std::pair<std::string, std::string> knob_names(const layout::TrainingSetup& t, const layout::TrainingSetup& s) {
  std::string tag, words;
  auto add = [&](const std::string& short_name, const std::string& what) {
    tag += "-" + short_name;
    words += (words.empty() ? "" : ", ") + what;
  };
  const auto& a = t.layout;
  const auto& b = s.layout;
  if (a.tp != b.tp) add(fmt::format("tp{}", a.tp), fmt::format("TP {} -> {}", b.tp, a.tp));
  if (a.pp != b.pp) add(fmt::format("pp{}", a.pp), fmt::format("PP {} -> {}", b.pp, a.pp));
  if (a.vpp != b.vpp)
    add(fmt::format("vpp{}", a.vpp.value_or(1)), fmt::format("VPP {} -> {}", b.vpp.value_or(1), a.vpp.value_or(1)));
  if (t.first_stage_layers != s.first_stage_layers || t.last_stage_layers != s.last_stage_layers)
    add("split", fmt::format("first/last stage layers {}/{}", t.first_stage_layers.value_or(0),
                             t.last_stage_layers.value_or(0)));
  if (a.cp != b.cp) add(fmt::format("cp{}", a.cp), fmt::format("CP {} -> {}", b.cp, a.cp));
  if (a.ep != b.ep) add(fmt::format("ep{}", a.ep), fmt::format("EP {} -> {}", b.ep, a.ep));
  if (a.etp != b.etp && (a.ep > 1 || b.ep > 1))
    add(fmt::format("etp{}", a.etp), fmt::format("ETP {} -> {}", b.etp, a.etp));
  if (a.micro_batch != b.micro_batch)
    add(fmt::format("mbs{}", a.micro_batch), fmt::format("micro-batch {} -> {}", b.micro_batch, a.micro_batch));
  if (t.recompute != s.recompute) {
    std::string n = layout::recompute_name(t.recompute);
    n.erase(std::remove(n.begin(), n.end(), ':'), n.end());
    add("rc-" + n,
        fmt::format("recompute {} -> {}", layout::recompute_name(s.recompute), layout::recompute_name(t.recompute)));
  }
  if (t.distributed_optimizer != s.distributed_optimizer)
    add(t.distributed_optimizer ? "distopt" : "no-distopt",
        t.distributed_optimizer ? "distributed optimizer (with overlapped grad reduce and param gather)"
                                : "no distributed optimizer");
  if (t.sequence_parallel != s.sequence_parallel)
    add(t.sequence_parallel ? "sp" : "no-sp", t.sequence_parallel ? "sequence parallel" : "no sequence parallel");
  return {tag, words.empty() ? "the start" : words};
}

// The recipe's command with `t`'s knobs: relayout's rewrite (TP, PP, CP, EP, ETP, micro-batch, recompute), then
// what relayout leaves alone (recompute off, VPP, an uneven split, SP, the distributed optimizer and its overlap).
std::string candidate_command(const registry::Recipe& recipe, const layout::TrainingSetup& t,
                              const layout::TrainingSetup& start, std::int64_t gpus, std::int64_t nodes,
                              std::vector<std::string>& changes) {
  const std::string where = recipe.file.string() + ": command";
  const bool megatron = recipe.stack.framework == "megatron-lm";
  layout::RelayoutRequest rq = relayout_request(recipe, gpus, nodes);
  rq.tp = t.layout.tp, rq.pp = t.layout.pp, rq.cp = t.layout.cp, rq.ep = t.layout.ep, rq.etp = t.layout.etp;
  if (megatron) {
    rq.micro_batch = t.layout.micro_batch;
    if (t.recompute.kind != layout::Recompute::none && t.recompute != start.recompute) rq.recompute = t.recompute;
  }
  const auto r = layout::relayout(rq, recipe.command, where);
  if (!r.violations.empty()) {
    std::string list;
    for (const auto& v : r.violations) list += (list.empty() ? "" : "; ") + v.what;
    throw InputError(where, "a planned layout does not relayout: " + list,
                     "report this (the planner and relayout disagree)");
  }
  std::vector<layout::FlagChange> edits = r.changes;
  layout::CommandEditor ed(r.command, where, &edits);
  if (megatron) {
    if (t.recompute.kind == layout::Recompute::none && start.recompute.kind != layout::Recompute::none)
      ed.remove(kRecomputeFlags);
    ed.remove(kVppLayers);
    if (t.layout.vpp && *t.layout.vpp > 1)
      ed.set(kVpp, std::to_string(*t.layout.vpp), true, {"--pipeline-model-parallel-size"});
    else
      ed.remove(kVpp);
    if (t.first_stage_layers)
      ed.set(kFirstStage, std::to_string(*t.first_stage_layers), true);
    else
      ed.remove(kFirstStage);
    if (t.last_stage_layers)
      ed.set(kLastStage, std::to_string(*t.last_stage_layers), true);
    else
      ed.remove(kLastStage);
    ed.set_switch(kSeqPar, t.sequence_parallel);
    ed.set_switch(kDistOpt, t.distributed_optimizer);
    for (const auto& f : kOverlap) ed.set_switch({f}, t.distributed_optimizer && t.layout.dp > 1);
  }
  for (const auto& c : edits) changes.push_back(c.str());
  return ed.result();
}

// The option of `table` that sets `dest` (the first listed), or nullptr.
const checks::OptionSpec* option_of(const checks::OptionTable& table, const std::string& dest) {
  for (const auto& o : table.options())
    if (o.dest == dest && !o.flags.empty()) return &o;
  return nullptr;
}

// `command` with `swap`'s arguments set to their recipe values (each written as its flag: a switch on or off, or a
// flag and its value), the changes appended to `changes`; nullopt when an argument cannot be written so.
std::optional<std::string> swap_command(const std::string& command, const TuneSwap& swap, const std::string& framework,
                                        const std::string& where, std::vector<std::string>& changes) {
  const auto* table = checks::OptionTable::bundled_or_megatron(framework);
  if (!table) return std::nullopt;
  std::vector<layout::FlagChange> edits;
  layout::CommandEditor ed(command, where, &edits);
  using Action = checks::OptionSpec::Action;
  for (const auto& a : swap.arguments) {
    const auto* o = option_of(*table, a.argument);
    if (!o) return std::nullopt;
    const bool boolean = a.recipe == "True" || a.recipe == "False";
    if (o->action == Action::store_true && boolean) {
      ed.set_switch(o->flags, a.recipe == "True");
    } else if (o->action == Action::store_false && boolean) {
      ed.set_switch(o->flags, a.recipe == "False");
    } else if (o->action == Action::store && o->nargs.empty()) {
      std::string word = a.recipe;
      if (o->type == "enum") {  // the dump prints the enum's member: the command gives the word that maps to it
        const auto it = std::find_if(o->enum_values.begin(), o->enum_values.end(),
                                     [&](const auto& kv) { return kv.second == a.recipe; });
        if (it == o->enum_values.end()) return std::nullopt;
        word = it->first;
      }
      ed.set(o->flags, word, true);
    } else {
      return std::nullopt;
    }
  }
  for (const auto& c : edits) changes.push_back(c.str());
  return ed.result();
}

// The step records a trial's log text holds so far (its text up to the last full line); none while it does not parse.
std::vector<StepRecord> records_in(std::string_view text, const fs::path& log) {
  const auto end = text.rfind('\n');
  try {
    return evidence::parse_step_log(text.substr(0, end == std::string_view::npos ? 0 : end + 1), "megatron",
                                    std::nullopt, log.string())
        .records;
  } catch (const InputError&) {
    return {};
  }
}

// The same, read from the log file (none while it is not there).
std::vector<StepRecord> records_so_far(const fs::path& log) {
  std::error_code ec;
  if (!fs::is_regular_file(log, ec)) return {};
  try {
    return records_in(read_file(log, std::size_t{64} << 20), log);
  } catch (const InputError&) {
    return {};
  }
}

// The score over steps [first, last] of `records`, when they are all there and measurable.
std::optional<measure::Throughput> score_of(const std::vector<StepRecord>& records, const std::string& file,
                                            std::int64_t first, std::int64_t last, const measure::StepShape& shape) {
  if (last < first + 1) return std::nullopt;
  StepLog log;
  log.file = file;
  log.format = "megatron";
  log.records = records;
  try {
    return measure::measure_throughput(log, {first, last}, shape);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::int64_t last_step_seen(const std::vector<StepRecord>& records) {
  std::int64_t last = -1;
  for (const auto& r : records) last = std::max(last, r.last_step());
  return last;
}

bool is_oom(const std::string& log) {
  // PyTorch's "CUDA out of memory" (torch.OutOfMemoryError), cuBLAS's failed workspace allocation.
  static const std::vector<std::string> marks = {"out of memory", "OutOfMemoryError", "CUBLAS_STATUS_ALLOC_FAILED"};
  return std::any_of(marks.begin(), marks.end(), [&](const auto& m) { return log.find(m) != std::string::npos; });
}

// The last line of a failed log that names an error, for the trial's reason.
std::string last_error_line(const std::string& log) {
  std::string found;
  for (auto line : lines_of(log))
    if (line.find("Error") != std::string_view::npos || line.find("error:") != std::string_view::npos)
      found = std::string(trim(line));
  if (found.size() > 200) found = found.substr(0, 200) + "...";
  return terminal_safe(found, false);
}

std::string fmt_mib(const std::optional<double>& v) {
  return v ? with_thousands(static_cast<std::int64_t>(std::llround(*v))) : std::string("-");
}

// A score with its interval's relative half-width, the board's ±95% (h / mean step time).
std::string score_text(const measure::ScoreInterval& i, double score) {
  return i.bounded() ? fmt::format("{} ±{:.1f}%", with_thousands(score, 1), i.relative_half_width() * 100)
                     : fmt::format("{} (unbounded)", with_thousands(score, 1));
}

// Trial `i` is measured and its interval overlaps the best's (it does not replace the best).
bool within_noise_of_best(const TuneResult& r, std::size_t i) {
  const auto& t = r.trials[i];
  return r.best && *r.best != i && t.outcome == "measured" && t.interval &&
         measure::intervals_overlap(*t.interval, *r.trials[*r.best].interval);
}

}  // namespace

fs::path tune_draft_dir(const fs::path& tune_dir, const std::string& model, const std::string& gpu,
                        const std::string& name) {
  return tune_dir / "recipes" / model / gpu / name;
}

std::vector<TuneSwap> tune_swaps(const registry::Recipe& start) {
  std::vector<TuneSwap> out;
  const auto root = registry::registry_root(start.dir);
  if (!root || !start.arguments) return out;
  std::optional<evidence::ArgumentDump> dump;
  try {
    dump = evidence::find_megatron_args(read_file(start.arguments->path), start.arguments->relative);
  } catch (const InputError&) {
    return out;
  }
  if (!dump) return out;
  const auto reg = registry::load_registry(*root);
  const auto model = reg.models.find(start.model);
  if (model == reg.models.end()) return out;
  std::set<std::string> seen;
  for (const auto& r : registry::evaluate_registry(reg)) {
    if (!r.entry || !r.entry->recipe || r.entry->recipe->model != start.model) continue;
    for (const auto& t : r.component_tests) {
      if (!t.raw || t.raw->swap.empty() || seen.count(t.swap) ||
          !checks::component_test_problem(t, model->second.layer_shape).empty())
        continue;
      TuneSwap swap{t.swap, t.raw->swap, r.id};
      bool from_start = true;
      for (const auto& a : swap.arguments) {
        const auto it = dump->values.find(a.argument);
        from_start = from_start && it != dump->values.end() && it->second == a.reference;
      }
      std::vector<std::string> ignored;
      if (!from_start || !swap_command(start.command, swap, start.stack.framework, "tune", ignored)) continue;
      seen.insert(t.swap);
      out.push_back(std::move(swap));
    }
  }
  return out;
}

std::vector<TuneCandidate> tune_candidates(const registry::Recipe& recipe, const TuneRequest& q) {
  const auto rm = registry::recipe_memory(recipe);
  const bool megatron = recipe.stack.framework == "megatron-lm";
  layout::PlanRequest pq;
  pq.gpus = q.gpus;
  pq.gpus_per_node = q.nodes == 1 ? std::max<std::int64_t>(q.gpus, 8) : q.gpus / q.nodes;
  pq.row_length = recipe.workload.row_length;
  pq.global_batch = recipe.workload.global_batch;
  pq.memory_mib = q.memory_mib;
  pq.impl = rm.setup.impl;
  pq.fused_cross_entropy = rm.setup.fused_cross_entropy;
  if (!megatron) {  // slime and miles: the micro-batch and recompute are not Megatron flags of the command
    pq.micro_batch = rm.setup.layout.micro_batch;
    pq.recompute = rm.setup.recompute;
  }
  const auto planned = layout::plan_layouts(rm.shape, pq);

  layout::TrainingSetup start = rm.setup;
  start.layout.dp = q.gpus / std::max<std::int64_t>(1, start.layout.tp * start.layout.pp * start.layout.cp);
  std::vector<TuneCandidate> out;
  std::set<std::string> commands;
  auto add = [&](const layout::TrainingSetup& t, const layout::MemoryEstimate& m, bool fits, double rel,
                 bool is_start) {
    TuneCandidate c;
    c.setup = t;
    c.memory = m;
    c.fits = fits;
    c.relative_time = rel;
    c.start = is_start;
    c.command = candidate_command(recipe, t, start, q.gpus, q.nodes, c.changes);
    if (!commands.insert(c.command).second) return;
    auto [tag, words] = knob_names(t, start);
    c.knobs = is_start ? "the start" : words;
    c.name = recipe.name + (is_start ? "-start" : tag);
    if (c.name.size() > 80) c.name = fmt::format("{}-c{}", recipe.name.substr(0, 70), out.size());
    out.push_back(std::move(c));
  };
  // The start: its own configuration on G GPUs, as the planner sees it.
  {
    const auto it = std::find_if(planned.begin(), planned.end(), [&](const layout::PlannedLayout& p) {
      return p.setup.layout.tp == start.layout.tp && p.setup.layout.pp == start.layout.pp &&
             p.setup.layout.cp == start.layout.cp && p.setup.layout.ep == start.layout.ep &&
             p.setup.layout.vpp == start.layout.vpp && p.setup.layout.micro_batch == start.layout.micro_batch &&
             p.setup.recompute == start.recompute && p.setup.distributed_optimizer == start.distributed_optimizer;
    });
    if (it != planned.end()) {
      layout::TrainingSetup t = it->setup;
      t.sequence_parallel = start.sequence_parallel;
      t.layout.etp = start.layout.etp;
      add(t, it->memory, it->fits, it->relative_time, true);
    } else {
      const auto m = layout::estimate_memory(rm.shape, start);
      add(start, m, q.memory_mib <= 0 || m.peak_mib <= layout::usable_memory_mib(q.memory_mib),
          layout::relative_time(rm.shape, start, pq.gpus_per_node), true);
    }
  }
  for (const auto& p : planned)
    if (p.fits) add(p.setup, p.memory, p.fits, p.relative_time, false);
  if (out.size() < 2 && planned.empty())
    throw InputError(recipe.id, fmt::format("no layout of {} is valid on {} GPUs", recipe.model, q.gpus),
                     "tune on another GPU count (openrecipes plan lists the layouts)");
  return out;
}

namespace {

// Watches a running trial's log: cuts it when its interval falls below the best's, or at the budget's deadline.
class TrialWatch {
 public:
  TrialWatch(fs::path log, std::int64_t warmup, std::int64_t last_step, measure::StepShape shape,
             std::optional<measure::ScoreInterval> best, Clock::time_point deadline)
      : log_(std::move(log)),
        warmup_(warmup),
        last_(last_step),
        shape_(shape),
        best_(best),
        deadline_(deadline),
        thread_([this] { loop(); }) {}
  ~TrialWatch() {
    done_ = true;
    thread_.join();
  }
  TrialWatch(const TrialWatch&) = delete;
  TrialWatch& operator=(const TrialWatch&) = delete;
  volatile std::sig_atomic_t stop = 0;
  std::string cut_outcome() {
    std::lock_guard<std::mutex> g(m_);
    return outcome_;
  }
  std::string cut_reason() {
    std::lock_guard<std::mutex> g(m_);
    return reason_;
  }
  std::optional<double> first_step_s() {
    std::lock_guard<std::mutex> g(m_);
    return first_step_s_;
  }

 private:
  void cut(const std::string& outcome, const std::string& reason) {
    std::lock_guard<std::mutex> g(m_);
    if (!outcome_.empty()) return;
    outcome_ = outcome;
    reason_ = reason;
    stop = 1;
  }
  void loop() {
    const auto started = Clock::now();
    while (!done_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      if (g_stop_requested) {
        cut("interrupted", "stopped by a signal");
        continue;
      }
      if (Clock::now() > deadline_) cut("cut: budget", "the budget ran out during the trial");
      const auto records = records_so_far(log_);
      const std::int64_t seen = std::min(last_step_seen(records), last_);
      if (seen >= 0) {
        std::lock_guard<std::mutex> g(m_);
        if (!first_step_s_) first_step_s_ = seconds_since(started);
      }
      if (!best_ || seen - warmup_ + 1 < 3 || seen >= last_) continue;
      if (auto s = score_of(records, log_.string(), warmup_, seen, shape_);
          s && s->interval.bounded() && s->interval.score_high < best_->score_low * (1 - kCutMargin))
        cut("cut: slower",
            fmt::format(
                "after {} measured steps its 95% interval ends at {} tokens/s/GPU, more than 5% below the best's {}",
                seen - warmup_ + 1, with_thousands(s->interval.score_high, 1), with_thousands(best_->score_low, 1)));
    }
  }
  fs::path log_;
  std::int64_t warmup_, last_;
  measure::StepShape shape_;
  std::optional<measure::ScoreInterval> best_;
  Clock::time_point deadline_;
  std::mutex m_;
  std::string outcome_, reason_;
  std::optional<double> first_step_s_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

void write_outputs(const registry::Recipe& start, const TuneRequest& q, const TuneResult& r) {
  write_file_atomic(q.tune_dir / "tune.json", tune_json(start, q, r));
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
  at_least("--max-trials", q.max_trials, 0);
}

TuneResult tune(const registry::Recipe& recipe, const TuneRequest& q) {
  const auto started = Clock::now();
  check_tune_request(q);
  if (recipe.stack.framework != "megatron-lm")
    throw InputError(recipe.file.string(), "tune runs Megatron-LM recipes (its trials cut --train-iters)",
                     "tune the recipe's Megatron-LM form");
  const std::int64_t trial_iters = q.warmup_steps + q.trial_steps;
  if (trial_iters > recipe.steps_per_run)
    throw InputError(fmt::format("--trial-steps {}", q.trial_steps),
                     fmt::format("warm-up + trial steps ({}) exceed the recipe's run of {} steps (the replayed data "
                                 "and schedule are the recipe's)",
                                 trial_iters, recipe.steps_per_run),
                     "give fewer trial steps");
  std::error_code ec;
  if (fs::exists(q.tune_dir, ec) && !fs::is_empty(q.tune_dir, ec))
    throw InputError(q.tune_dir.string(), "TUNE_DIR exists and is not empty", "give a new folder with -o");

  TuneResult r;
  r.candidates = tune_candidates(recipe, q);
  r.swaps = tune_swaps(recipe);
  std::optional<evidence::ArgumentDump> start_dump;  // the start's run: what each swap's prediction starts from
  if (recipe.arguments) try {
      start_dump = evidence::parse_megatron_args(read_file(recipe.arguments->path), recipe.arguments->relative);
    } catch (const InputError&) {
    }
  // Each candidate as a draft recipe: what run plans and submit derives the command from.
  auto draft_dir = [&](const std::string& name) { return tune_draft_dir(q.tune_dir, recipe.model, recipe.gpu, name); };
  auto write_draft = [&](const TuneCandidate& c) {
    registry::Recipe d = recipe;
    d.name = c.name;
    d.command = c.command;
    d.layout = c.setup.layout;
    d.layout.max_tokens_per_gpu = recipe.layout.max_tokens_per_gpu;
    d.gpus = q.gpus;
    d.reference = recipe.id;
    const fs::path dir = draft_dir(c.name);
    fs::create_directories(dir);
    for (const auto& p : recipe.patches) {
      const fs::path dest = resolve_inside(dir, p.relative, "patches");
      fs::create_directories(dest.parent_path());
      fs::copy_file(p.path, dest, fs::copy_options::overwrite_existing);
    }
    write_file_atomic(dir / "recipe.yaml",
                      registry::recipe_draft_yaml(
                          d, fmt::format("A candidate of openrecipes tune from {} on {} GPU(s): {}.\nIts trial is in "
                                         "trials/; see tune.json.",
                                         recipe.id, q.gpus, c.knobs)));
  };
  std::set<std::string> commands;
  for (const auto& c : r.candidates) {
    write_draft(c);
    commands.insert(c.command);
  }
  // A same-math swap tried on a new best: its command plus the swap, tried next (docs/tune.md "Same-math swaps").
  auto swap_candidates = [&](std::size_t base_index) {
    std::vector<TuneCandidate> made;
    const TuneCandidate base = r.candidates[base_index];
    for (const auto& s : r.swaps) {
      TuneCandidate c = base;
      const auto cmd =
          swap_command(base.command, s, recipe.stack.framework, recipe.file.string() + ": command", c.changes);
      if (!cmd || !commands.insert(*cmd).second) continue;
      c.command = *cmd;
      c.swap = s.test;
      // The planner's prediction for the swap's own command (the swap may change the memory: the fused
      // cross-entropy does), as the build recomputes it (registry/search_rules.h).
      if (start_dump)
        if (auto m = registry::predicted_memory(recipe, *start_dump, c.command, q.gpus)) {
          c.memory = *m;
          c.fits = q.memory_mib <= 0 || m->peak_mib <= layout::usable_memory_mib(q.memory_mib);
        }
      std::string words;
      for (const auto& a : s.arguments)
        words += fmt::format("{}{} {} -> {}", words.empty() ? "" : ", ", a.argument, a.reference, a.recipe);
      c.knobs = fmt::format("{}, same-math swap {} (component test passed in {})", base.knobs, words, s.tested_in);
      std::string tag = s.test;
      std::replace(tag.begin(), tag.end(), '_', '-');
      c.name = base.name + "-" + tag;
      if (c.name.size() > 80)
        c.name = fmt::format("{}-c{}", recipe.name.substr(0, 60), r.candidates.size() + made.size());
      write_draft(c);
      made.push_back(std::move(c));
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
    TuneTrial t;
    t.candidate = i;
    t.run_dir = (q.tune_dir / "trials" / fmt::format("{:02}-{}", r.trials.size() + 1, c.name)).string();
    std::cout << fmt::format("trial {} of at most {}: {} ({}; predicted peak {} MiB)\n", r.trials.size() + 1,
                             r.candidates.size(), c.name, c.knobs, fmt_mib(c.memory.peak_mib));
    std::cout.flush();
    RunRequest rq = probe;
    rq.recipe = draft_dir(c.name);
    rq.run_dir = t.run_dir;
    const auto trial_start = Clock::now();
    try {
      const RunPlan plan = make_plan(rq);
      const fs::path log = fs::path(plan.run_dir) / step_log_file(plan.mode, plan.nodes);
      const auto deadline = started + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(budget_s - final_estimate_s()));
      std::optional<measure::ScoreInterval> best;
      if (r.best) best = r.trials[*r.best].interval;
      RunRecord rec;
      std::string cut_outcome, cut_reason;
      {
        TrialWatch watch(log, q.warmup_steps, trial_iters - 1, shape, best, deadline);
        ExecuteOptions eo = q.execute;
        eo.echo = false;
        eo.slurm.echo = false;
        eo.stop = &watch.stop;
        eo.stopped_by = "openrecipes tune";
        rec = execute_run(plan, eo);
        cut_outcome = watch.cut_outcome();
        cut_reason = watch.cut_reason();
        t.startup_s = watch.first_step_s();
      }
      t.wall_s = seconds_since(trial_start);
      const std::string text = read_file(log, std::size_t{64} << 20);
      const auto records = records_in(text, log);
      const std::int64_t seen = std::min(last_step_seen(records), trial_iters - 1);
      if (auto s = score_of(records, log.string(), q.warmup_steps, seen, shape)) {
        t.steps_measured = seen - q.warmup_steps + 1;
        t.interval = s->interval;
        t.tokens_per_s_per_gpu = s->tokens_per_s_per_gpu;
      }
      try {
        if (auto m = evidence::parse_megatron_memory(text, log.string())) t.measured_peak_mib = m->max_allocated_mib;
      } catch (const InputError&) {
      }
      if (rec.status == "completed" && t.steps_measured == q.trial_steps) {
        t.outcome = "measured";
      } else if (!cut_outcome.empty()) {
        t.outcome = cut_outcome;
        t.reason = cut_reason;
      } else if (is_oom(text)) {
        t.outcome = "oom";
        t.reason = last_error_line(text);
      } else {
        t.outcome = "crashed";
        t.reason = rec.reason + (last_error_line(text).empty() ? "" : ": " + last_error_line(text));
      }
    } catch (const InputError& e) {
      t.outcome = "refused";
      t.reason = e.what();
      t.wall_s = seconds_since(trial_start);
    }
    // The planner against what happened.
    if (t.outcome == "oom")
      t.planner = c.fits ? fmt::format("wrong: it predicted {} MiB, within the usable {} MiB",
                                       fmt_mib(c.memory.peak_mib), fmt_mib(layout::usable_memory_mib(q.memory_mib)))
                         : "right: it predicted no fit";
    else if (t.measured_peak_mib)
      t.planner = fmt::format("{} fits; predicted {} MiB, measured {} MiB ({:+.1f}%)",
                              c.fits ? "right:" : "wrong: ran, yet", fmt_mib(c.memory.peak_mib),
                              fmt_mib(t.measured_peak_mib), (c.memory.peak_mib / *t.measured_peak_mib - 1) * 100);
    trial_estimate_s = std::max(trial_estimate_s.value_or(0), t.wall_s);
    r.trials.push_back(t);
    const std::size_t k = r.trials.size() - 1;
    bool new_best = false;
    if (t.outcome == "measured" && t.interval &&
        (!r.best || measure::interval_clears(*t.interval, *r.trials[*r.best].interval))) {
      r.best = k;
      new_best = true;
    }
    std::cout << fmt::format(
        "  {}{}{}\n", t.outcome,
        t.tokens_per_s_per_gpu ? ", " + score_text(*t.interval, *t.tokens_per_s_per_gpu) + " tokens/s/GPU" : "",
        t.reason.empty() ? "" : " (" + t.reason + ")");
    std::cout.flush();
    if (new_best && !r.candidates[i].start && r.candidates[i].swap.empty()) {
      auto made = swap_candidates(i);
      r.candidates.insert(r.candidates.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                          std::make_move_iterator(made.begin()), std::make_move_iterator(made.end()));
    }
    write_outputs(recipe, q, r);
    if (t.outcome == "interrupted") {
      r.stopped = "interrupted";
      break;
    }
  }
  // The winner: re-run for the recipe's own length, as a run directory submit takes.
  if (r.best && !r.candidates[r.trials[*r.best].candidate].start && !g_stop_requested) {
    const auto& c = r.candidates[r.trials[*r.best].candidate];
    std::cout << fmt::format("winner {} ({}): running it for the recipe's {} steps\n", c.name, c.knobs,
                             recipe.steps_per_run);
    std::cout.flush();
    RunRequest rq = probe;
    rq.recipe = draft_dir(c.name);
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
  r.elapsed_s = seconds_since(started);
  write_outputs(recipe, q, r);
  return r;
}

std::string tune_json(const registry::Recipe& start, const TuneRequest& q, const TuneResult& r) {
  using J = nlohmann::ordered_json;
  auto opt = [](const std::optional<double>& v) { return v ? J(*v) : J(nullptr); };
  auto interval = [](const std::optional<measure::ScoreInterval>& i) {
    if (!i) return J(nullptr);
    return J::array({i->score_low, i->bounded() ? J(i->score_high) : J(nullptr)});
  };
  J j;
  j["format"] = "openrecipes-tune";
  j["format_version"] = 1;
  j["recipe"] = start.id;
  j["gpus"] = q.gpus, j["nodes"] = q.nodes, j["launcher"] = q.launcher;
  j["budget_minutes"] = q.budget_minutes;
  j["warmup_steps"] = q.warmup_steps, j["trial_steps"] = q.trial_steps;
  j["memory_mib"] = q.memory_mib;
  j["usable_memory_mib"] = q.memory_mib > 0 ? J(layout::usable_memory_mib(q.memory_mib)) : J(nullptr);
  j["interval_method"] = measure::kIntervalMethod;
  auto cands = J::array();
  for (const auto& c : r.candidates) {
    const auto& l = c.setup.layout;
    cands.push_back({{"name", c.name},
                     {"start", c.start},
                     {"knobs", c.knobs},
                     {"layout",
                      {{"tp", l.tp},
                       {"pp", l.pp},
                       {"vpp", l.vpp ? J(*l.vpp) : J(nullptr)},
                       {"cp", l.cp},
                       {"ep", l.ep},
                       {"etp", l.etp},
                       {"dp", l.dp}}},
                     {"micro_batch", l.micro_batch},
                     {"recompute", layout::recompute_name(c.setup.recompute)},
                     {"distributed_optimizer", c.setup.distributed_optimizer},
                     {"sequence_parallel", c.setup.sequence_parallel},
                     {"predicted_peak_mib", std::round(c.memory.peak_mib)},
                     {"planner_fits", c.fits},
                     {"relative_time", c.relative_time},
                     {"changes", c.changes},
                     {"swap", c.swap},
                     {"command", c.command}});
  }
  j["candidates"] = std::move(cands);
  auto swaps = J::array();
  for (const auto& sw : r.swaps) {
    auto args = J::array();
    for (const auto& a : sw.arguments)
      args.push_back({{"argument", a.argument}, {"reference", a.reference}, {"recipe", a.recipe}});
    swaps.push_back({{"test", sw.test}, {"arguments", args}, {"tested_in", sw.tested_in}});
  }
  j["swaps"] = std::move(swaps);
  auto trials = J::array();
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const auto& t = r.trials[i];
    const auto& c = r.candidates[t.candidate];
    trials.push_back({{"trial", i + 1},
                      {"candidate", c.name},
                      {"knobs", c.knobs},
                      {"outcome", t.outcome},
                      {"reason", t.reason},
                      {"predicted_peak_mib", std::round(c.memory.peak_mib)},
                      {"planner_fits", c.fits},
                      {"measured_peak_mib", opt(t.measured_peak_mib)},
                      {"planner", t.planner},
                      {"steps_measured", t.steps_measured},
                      {"tokens_per_s_per_gpu", opt(t.tokens_per_s_per_gpu)},
                      {"tokens_per_s_per_gpu_interval", interval(t.interval)},
                      {"mean_step_time_s", t.interval ? J(t.interval->mean_step_time_s) : J(nullptr)},
                      {"wall_s", t.wall_s},
                      {"startup_s", opt(t.startup_s)},
                      {"best", r.best && *r.best == i},
                      {"within_noise_of_best", within_noise_of_best(r, i)},
                      {"run_dir", fs::path(t.run_dir).lexically_relative(q.tune_dir).string()}});
  }
  j["trials"] = std::move(trials);
  j["stopped"] = r.stopped;
  j["elapsed_s"] = r.elapsed_s;
  if (r.best) {
    const auto& b = r.trials[*r.best];
    const auto& c = r.candidates[b.candidate];
    J w{{"trial", *r.best + 1}, {"candidate", c.name}, {"start", c.start}, {"knobs", c.knobs}};
    w["recipe"] = (fs::path("recipes") / start.model / start.gpu / c.name).string();
    w["run_dir"] =
        r.winner_run_dir.empty() ? J(nullptr) : J(fs::path(r.winner_run_dir).lexically_relative(q.tune_dir).string());
    w["status"] = r.winner_status.empty() ? J(nullptr) : J(r.winner_status);
    w["tokens_per_s_per_gpu"] = r.winner_score ? J(r.winner_score->tokens_per_s_per_gpu) : J(nullptr);
    w["tokens_per_s_per_gpu_interval"] = r.winner_score ? interval(r.winner_score->interval) : J(nullptr);
    j["winner"] = std::move(w);
  } else {
    j["winner"] = nullptr;
  }
  return j.dump(2) + "\n";
}

std::string tune_table(const registry::Recipe& start, const TuneRequest& q, const TuneResult& r) {
  std::string out = fmt::format(
      "tune {} on {} GPU(s), {} launcher: {} candidates, {} trials ({} warm-up + {} measured "
      "steps each), budget {} min\n",
      terminal_safe(start.id, false), q.gpus, q.launcher, r.candidates.size(), r.trials.size(), q.warmup_steps,
      q.trial_steps, format_double(q.budget_minutes));
  // The change from the start last, whole: it is what tells two candidates apart.
  out += fmt::format("  {:>2}  {:>10} {:>10}  {:<24} {:>6}  {:<28} {}\n", "#", "pred. peak", "meas. peak",
                     "tokens/s/GPU ±95%", "wall s", "outcome", "candidate (change from the start)");
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const auto& t = r.trials[i];
    const auto& c = r.candidates[t.candidate];
    std::string outcome = t.outcome;
    if (r.best && *r.best == i)
      outcome += " · best";
    else if (within_noise_of_best(r, i))
      outcome += " · within noise";
    out += fmt::format("  {:>2}  {:>10} {:>10}  {:<24} {:>6.0f}  {:<28} {}\n", i + 1,
                       fmt_mib(c.memory.peak_mib) + (c.fits ? "" : "!"), fmt_mib(t.measured_peak_mib),
                       t.tokens_per_s_per_gpu ? score_text(*t.interval, *t.tokens_per_s_per_gpu) : "-", t.wall_s,
                       outcome, terminal_safe(c.knobs, false));
    if (!t.reason.empty()) out += "        " + terminal_safe(t.reason, false) + "\n";
    if (t.planner.starts_with("wrong")) out += "        planner " + t.planner + "\n";
  }
  out += fmt::format(
      "  (peaks in MiB per GPU: the planner's prediction, ! where it predicted no fit, and Megatron's max "
      "allocated;\n   ±95%: the interval's half-width relative to the mean step time; {})\n",
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
