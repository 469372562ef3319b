// tune's candidates and same-math swaps (run/tune_candidates.h).
#include "run/tune_candidates.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "checks/framework_options.h"
#include "core/error.h"
#include "core/files.h"
#include "layout/command.h"
#include "layout/planner.h"
#include "layout/relayout.h"
#include "layout/setup_flags.h"
#include "registry/component_tests.h"
#include "registry/predicted_memory.h"
#include "registry/recipe_memory.h"
#include "registry/registry.h"
#include "run/run_plan.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;

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
  if (megatron) {  // what relayout leaves alone (it only adds SP and never removes recompute)
    layout::SetupFlagParts parts;
    parts.recompute = t.recompute != start.recompute;
    parts.pipeline_split = parts.sequence_parallel = parts.distributed_optimizer = true;
    layout::write_setup_flags(ed, t, parts);
  }
  for (const auto& c : edits) changes.push_back(c.str());
  return ed.result();
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
    const auto* o = table->find_dest(a.argument);
    if (!o || o->flags.empty()) return std::nullopt;
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

}  // namespace

std::pair<std::string, std::string> setup_changes(const layout::TrainingSetup& t, const layout::TrainingSetup& s) {
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
  if (t.embedding_in_split != s.embedding_in_split || t.loss_in_split != s.loss_in_split)
    add(t.embedding_in_split || t.loss_in_split ? "counted" : "even",
        t.embedding_in_split || t.loss_in_split
            ? fmt::format("{} counted in the pipeline split", layout::counted_in_split(t))
            : fmt::format("{} no longer counted in the pipeline split", layout::counted_in_split(s)));
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
  std::set<std::string> seen;
  for (const auto& passed : registry::passed_component_tests(reg, start.model)) {
    const auto& t = passed.test;
    if (seen.count(t.swap)) continue;
    TuneSwap swap{t.swap, t.raw->swap, passed.recipe};
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
  return out;
}

std::int64_t tune_gpus_per_node(std::int64_t gpus, std::int64_t nodes) {
  return nodes == 1 ? std::max<std::int64_t>(gpus, 8) : gpus / std::max<std::int64_t>(1, nodes);
}

std::vector<TuneCandidate> tune_candidates(const registry::Recipe& recipe, std::int64_t gpus, std::int64_t nodes,
                                           double memory_mib, const std::optional<layout::GpuSpeed>& speed) {
  // The start is the recipe's own layout on G GPUs: where that breaks a rule there is nothing to tune from.
  try {
    (void)plan_command(recipe, gpus, nodes, false);
  } catch (const InputError& e) {
    throw InputError(e.where(), e.problem() + " (tune's start is the recipe's own layout on these GPUs)", e.fix());
  }
  const auto rm = registry::recipe_memory(recipe);
  const bool megatron = recipe.stack.framework == "megatron-lm";
  layout::PlanRequest pq;
  pq.gpus = gpus;
  pq.gpus_per_node = tune_gpus_per_node(gpus, nodes);
  pq.row_length = recipe.workload.row_length;
  pq.global_batch = recipe.workload.global_batch;
  pq.memory_mib = memory_mib;
  pq.speed = speed;
  pq.impl = rm.setup.impl;
  pq.fused_cross_entropy = rm.setup.fused_cross_entropy;
  pq.grads_16bit = rm.setup.grads_16bit;
  if (!megatron) {  // slime and miles: the micro-batch and recompute are not Megatron flags of the command
    pq.micro_batch = rm.setup.layout.micro_batch;
    pq.recompute = rm.setup.recompute;
  }
  const auto planned = layout::plan_layouts(rm.shape, pq);

  layout::TrainingSetup start = rm.setup;
  start.layout.dp = gpus / std::max<std::int64_t>(1, start.layout.tp * start.layout.pp * start.layout.cp);
  std::vector<TuneCandidate> out;
  std::set<std::string> commands;
  auto add = [&](const layout::TrainingSetup& t, const layout::MemoryEstimate& m, bool fits, double rel,
                 const std::optional<layout::StepTimePrediction>& step, bool is_start) {
    TuneCandidate c;
    c.setup = t;
    c.memory = m;
    c.fits = fits;
    c.relative_time = rel;
    if (step) c.predicted_step_s = step->step_time_s;
    c.start = is_start;
    c.command = candidate_command(recipe, t, start, gpus, nodes, c.changes);
    if (!commands.insert(c.command).second) return;
    auto [tag, words] = setup_changes(t, start);
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
             p.setup.recompute == start.recompute && p.setup.distributed_optimizer == start.distributed_optimizer &&
             p.setup.first_stage_layers == start.first_stage_layers &&
             p.setup.last_stage_layers == start.last_stage_layers &&
             p.setup.embedding_in_split == start.embedding_in_split && p.setup.loss_in_split == start.loss_in_split;
    });
    if (it != planned.end()) {
      layout::TrainingSetup t = it->setup;
      t.sequence_parallel = start.sequence_parallel;
      t.layout.etp = start.layout.etp;
      // The recipe's own sequence parallelism and ETP: its step predicted for them, not for the planned layout's.
      std::optional<layout::StepTimePrediction> step;
      if (speed) step = layout::predict_step_time(rm.shape, t, *speed, layout::Precision::bf16);
      add(t, it->memory, it->fits, it->relative_time, step, true);
    } else {
      const auto p = layout::plan_setup(rm.shape, start, memory_mib, pq.gpus_per_node, speed);
      add(start, p.memory, p.fits, p.relative_time, p.step_time, true);
    }
  }
  for (const auto& p : planned)
    if (p.fits) add(p.setup, p.memory, p.fits, p.relative_time, p.step_time, false);
  if (out.size() < 2 && planned.empty())
    throw InputError(recipe.id, fmt::format("no layout of {} is valid on {} GPUs", recipe.model, gpus),
                     "tune on another GPU count (openrecipes plan lists the layouts)");
  return out;
}

std::optional<TuneCandidate> swap_candidate(const registry::Recipe& start, const TuneCandidate& base,
                                            const TuneSwap& swap, const evidence::ArgumentDump* start_dump,
                                            std::int64_t gpus, double memory_mib, std::size_t index) {
  TuneCandidate c = base;
  const auto cmd =
      swap_command(base.command, swap, start.stack.framework, start.file.string() + ": command", c.changes);
  if (!cmd) return std::nullopt;
  c.command = *cmd;
  c.swap = swap.test;
  // What a swap changes (a fused kernel) is not a term of the step-time model: no prediction of its own.
  c.predicted_step_s.reset();
  // The planner's prediction for the swap's own command (the swap may change the memory: the fused cross-entropy
  // does), as the build recomputes it (registry/predicted_memory.h).
  if (start_dump)
    if (auto m = registry::predicted_memory(start, *start_dump, c.command, gpus)) {
      c.memory = *m;
      c.fits = layout::fits_memory(m->peak_mib, memory_mib);
    }
  std::string words;
  for (const auto& a : swap.arguments)
    words += fmt::format("{}{} {} -> {}", words.empty() ? "" : ", ", a.argument, a.reference, a.recipe);
  c.knobs = fmt::format("{}, same-math swap {} (component test passed in {})", base.knobs, words, swap.tested_in);
  std::string tag = swap.test;
  std::replace(tag.begin(), tag.end(), '_', '-');
  c.name = base.name + "-" + tag;
  if (c.name.size() > 80) c.name = fmt::format("{}-c{}", start.name.substr(0, 60), index);
  return c;
}

}  // namespace openrecipes::run
