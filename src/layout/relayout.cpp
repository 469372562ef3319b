// Relayout (SPEC §6): a layout moved to another GPU count or row length, its broken rules, the nearest GPU counts
// that fit, and the command with the framework's flags rewritten in place (the rest of its text kept byte for byte).
#include "layout/relayout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "layout/command.h"
#include "layout/model_rules.h"
#include "layout/planner.h"
#include "layout/setup_flags.h"

namespace openrecipes::layout {
namespace {

constexpr std::int64_t kMaxGpus = 1 << 20;  // search bound for the nearest counts

std::int64_t nodes_for(std::int64_t gpus, std::int64_t gpus_per_node) {
  return gpus <= gpus_per_node ? 1 : gpus / gpus_per_node;
}

void require_size(std::int64_t v, const char* what, std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
  if (v < 1) throw InputError(what, fmt::format("{} is not a size (at least 1)", v), "give a positive whole number");
  if (v > max)
    throw InputError(what, fmt::format("{} is over the largest size relayout considers ({})", v, max),
                     "give a size a cluster can have");
}

// A suggestion keeps the recipe's expert-tensor convention: ETP tied to TP, or the recipe's own ETP.
bool etp_convention_broken(const Layout& candidate, const Layout& from) {
  return from.etp == from.tp ? candidate.etp != candidate.tp : candidate.etp != from.etp;
}

}  // namespace

std::vector<Violation> relayout_violations(const Layout& l, std::int64_t gpus, std::int64_t gpus_per_node,
                                           std::int64_t global_batch, std::int64_t row_length, Launch launch) {
  std::vector<Violation> out;
  const std::int64_t replica = l.tp * l.pp * l.cp;
  if (gpus % replica != 0) {
    out.push_back({fmt::format("{} GPUs do not make whole replicas of TP {} x PP {} x CP {} = {} GPUs", gpus, l.tp,
                               l.pp, l.cp, replica),
                   fmt::format("use a multiple of {} GPUs", replica)});
    if ((gpus / l.pp) * l.pp == gpus && (gpus / l.pp) % (l.ep * l.etp) != 0)
      out.push_back({fmt::format("GPUs per pipeline stage ({} / PP {} = {}) is not a multiple of EP {} x ETP {}", gpus,
                                 l.pp, gpus / l.pp, l.ep, l.etp),
                     ""});
  } else {
    Layout with = l;
    with.dp = gpus / replica;
    for (auto& v : violations(with, gpus, global_batch)) out.push_back(std::move(v));
    if (launch == Launch::megatron && global_batch % with.dp == 0 && global_batch % (with.dp * l.micro_batch) != 0)
      out.push_back({fmt::format("the global batch of {} rows does not divide by DP {} x micro-batch {} (Megatron-LM "
                                 "requires it)",
                                 global_batch, with.dp, l.micro_batch),
                     ""});
  }
  if (auto v = node_violation(gpus, gpus_per_node)) out.push_back(std::move(*v));
  if (l.max_tokens_per_gpu && *l.max_tokens_per_gpu * l.cp < row_length)
    out.push_back({fmt::format("max_tokens_per_gpu {} x CP {} = {} tokens cannot hold a row of {}",
                               *l.max_tokens_per_gpu, l.cp, *l.max_tokens_per_gpu * l.cp, row_length),
                   fmt::format("raise --max-tokens-per-gpu to at least {}", (row_length + l.cp - 1) / l.cp)});
  return out;
}

namespace {

// The asked sizes checked and applied to the recipe's layout: r's layout, GPUs, nodes and row length.
RelayoutResult start_result(const RelayoutRequest& q) {
  require_size(q.gpus, "--gpus", kMaxGpus);
  require_size(q.gpus_per_node, "--gpus-per-node", kMaxGpus);
  require_size(q.global_batch, "global batch");
  require_size(q.row_length, "row length");
  RelayoutResult r;
  r.layout = q.layout;
  for (auto [v, field, name] : {std::tuple{q.tp, &Layout::tp, "--tp"}, std::tuple{q.pp, &Layout::pp, "--pp"},
                                std::tuple{q.cp, &Layout::cp, "--cp"}, std::tuple{q.ep, &Layout::ep, "--ep"},
                                std::tuple{q.etp, &Layout::etp, "--etp"}})
    if (v) {
      require_size(*v, name, kMaxGpus);
      r.layout.*field = *v;
    }
  if (q.new_row_length) require_size(*q.new_row_length, "--row-length");
  if (q.micro_batch && q.launch == Launch::slime)
    throw InputError("--micro-batch", "slime and miles set it themselves (rows are packed by --max-tokens-per-gpu)",
                     "relayout a slime recipe with --gpus, --tp, --pp, --cp, --ep, --etp, --recompute or --row-length");
  if (q.recompute && q.recompute->kind == Recompute::none && q.setup.recompute.kind != Recompute::none)
    throw InputError("--recompute", "none: relayout rewrites flags but does not remove them",
                     "remove the command's --recompute-* flags in a copy of the recipe, then relayout that");
  if (q.micro_batch) {
    require_size(*q.micro_batch, "--micro-batch", q.global_batch);
    r.layout.micro_batch = *q.micro_batch;
  }
  r.gpus = q.gpus;
  r.gpus_per_node = q.gpus_per_node;
  r.nodes = nodes_for(q.gpus, q.gpus_per_node);
  r.row_length = q.new_row_length.value_or(q.row_length);
  const std::int64_t replica = r.layout.tp * r.layout.pp * r.layout.cp;
  r.layout.dp = q.gpus % replica == 0 ? q.gpus / replica : 0;
  // A new row length: slime sizes its packing bins by max_tokens_per_gpu; one row must fit in a bin of CP GPUs.
  if (q.launch == Launch::slime && q.new_row_length && r.layout.max_tokens_per_gpu &&
      *r.layout.max_tokens_per_gpu * r.layout.cp < r.row_length)
    r.layout.max_tokens_per_gpu = (r.row_length + r.layout.cp - 1) / r.layout.cp;
  return r;
}

// The model's own rules and the predicted peak of the new layout (`setup`, its sequence parallelism decided), into
// r's violations, warnings and memory.
void check_model(const RelayoutRequest& q, TrainingSetup& setup, RelayoutResult& r) {
  const ModelShape& model = *q.model;
  if (r.layout.dp == 0) {  // no whole replica: the model's rules at DP 1 (the batch rules are relayout_violations')
    TrainingSetup t = setup;
    t.layout = r.layout;
    t.layout.dp = 1;
    t.global_batch = t.layout.micro_batch;
    for (auto& v : model_violations(model, t)) r.violations.push_back(std::move(v));
    return;
  }
  setup.layout = r.layout;
  setup.layout.max_tokens_per_gpu.reset();
  setup.global_batch = q.global_batch;
  const bool batch_rule = std::any_of(r.violations.begin(), r.violations.end(), [](const Violation& v) {
    return v.what.find("global batch") != std::string::npos;
  });
  for (auto& v : model_violations(model, setup))
    if (!(batch_rule && v.what.find("global batch") != std::string::npos)) r.violations.push_back(std::move(v));
  r.warnings = model_warnings(setup, q.gpus_per_node);
  if (r.violations.empty()) {
    r.memory = estimate_memory(model, setup);
    r.setup = setup;
    if (!fits_memory(r.memory->peak_mib, q.memory_mib))
      r.violations.push_back({fmt::format("the predicted peak of {:.0f} MiB a GPU is over the {:.0f} MiB usable "
                                          "(docs/memory-model.md)",
                                          r.memory->peak_mib, usable_memory_mib(q.memory_mib)),
                              ""});
  }
}

// Up to 3 structural changes that fit on these GPUs (RelayoutResult::suggestions), into r. `sequence_parallel`: the
// relayout's command runs with sequence parallelism at any TP > 1 (its own flag, or MoE's, which relayout adds), so
// each candidate is planned as its printed command runs it.
void suggest_changes(const RelayoutRequest& q, const TrainingSetup& setup, bool sequence_parallel, RelayoutResult& r) {
  PlanRequest p;
  p.gpus = q.gpus;
  p.gpus_per_node = q.gpus_per_node;
  p.row_length = setup.row_length;
  p.global_batch = q.global_batch;
  p.memory_mib = q.memory_mib;
  // The asked CP and EP where the model takes them, else the recipe's.
  p.cp = r.layout.cp > 1 && q.setup.impl == Impl::local ? q.layout.cp : r.layout.cp;
  p.ep = q.model->experts > 0 && q.model->experts % r.layout.ep == 0 ? r.layout.ep : q.layout.ep;
  if (r.layout.etp == r.layout.tp)
    p.etp.reset();
  else
    p.etp = r.layout.etp;
  p.vpp = r.layout.vpp;
  p.distributed_optimizer = q.setup.distributed_optimizer;
  p.impl = q.setup.impl;
  p.fused_cross_entropy = q.setup.fused_cross_entropy;
  p.grads_16bit = q.setup.grads_16bit;
  if (!sequence_parallel) p.sequence_parallel = false;  // else on at TP > 1 (the planner's default)
  // A suggestion changes knobs, not the command's pipeline split: an uneven split of the recipe's own is planned as
  // it stands at every PP (the rules drop the PPs it does not fit), an even one stays even.
  const bool uneven = uneven_split(setup);
  if (uneven)
    p.split = PlanRequest::Split{setup.first_stage_layers, setup.last_stage_layers, setup.embedding_in_split,
                                 setup.loss_in_split};
  // slime and miles pack rows themselves: a suggestion keeps the recipe's micro-batch (recompute is Megatron-LM's
  // flags in their command too, which relayout rewrites).
  if (q.launch == Launch::slime) p.micro_batch = r.layout.micro_batch;
  auto rank = [](Recompute k) { return k == Recompute::none ? 0 : k == Recompute::selective ? 1 : 2; };
  const Layout& from = r.layout;  // changes to the layout asked for
  // The knobs a candidate changes (bits: micro-batch, recompute, TP, PP) and their cost, least disruptive first.
  struct Scored {
    int changed, cost;
    PlannedLayout plan;
  };
  std::vector<Scored> scored;
  for (auto& c : plan_layouts(*q.model, p)) {
    const auto& l = c.setup.layout;
    if (!c.fits || rank(c.setup.recompute.kind) < rank(setup.recompute.kind)) continue;
    if (!uneven && uneven_split(c.setup)) continue;  // the recipe's split is even: so are the suggestions
    if (q.model->experts > 0 && etp_convention_broken(l, from)) continue;  // a dense model's ETP is 1 (no experts)
    const bool micro = l.micro_batch != from.micro_batch, rec = c.setup.recompute != setup.recompute;
    const bool tp = l.tp != from.tp, pp = l.pp != from.pp;
    scored.push_back({(micro ? 1 : 0) | (rec ? 2 : 0) | (tp ? 4 : 0) | (pp ? 8 : 0),
                      (micro ? 1 : 0) + (rec ? 2 : 0) + (tp ? 3 : 0) + (pp ? 4 : 0), std::move(c)});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.cost != b.cost) return a.cost < b.cost;
    return a.plan.relative_time < b.plan.relative_time;
  });
  std::vector<int> kinds_seen;  // one suggestion per set of changed knobs: the best of each
  for (auto& s : scored) {
    if (r.suggestions.size() == 3) break;
    if (std::find(kinds_seen.begin(), kinds_seen.end(), s.changed) != kinds_seen.end()) continue;
    kinds_seen.push_back(s.changed);
    const auto& l = s.plan.setup.layout;
    std::vector<std::string> what;
    if (l.micro_batch != from.micro_batch)
      what.push_back(fmt::format("micro-batch {} -> {}", from.micro_batch, l.micro_batch));
    if (s.plan.setup.recompute != setup.recompute)
      what.push_back(
          fmt::format("recompute {} -> {}", recompute_name(setup.recompute), recompute_name(s.plan.setup.recompute)));
    if (l.tp != from.tp) what.push_back(fmt::format("TP {} -> {}", from.tp, l.tp));
    if (l.pp != from.pp) what.push_back(fmt::format("PP {} -> {}", from.pp, l.pp));
    if (l.cp != r.layout.cp) what.push_back(fmt::format("CP {} -> {}", r.layout.cp, l.cp));
    if (l.ep != r.layout.ep) what.push_back(fmt::format("EP {} -> {}", r.layout.ep, l.ep));
    if (what.empty()) continue;
    std::string words;
    for (const auto& w : what) words += (words.empty() ? "" : ", ") + w;
    r.suggestions.push_back({s.plan.setup, s.plan.memory, words});
  }
}

// The nearest GPU counts below and above q.gpus where the new layout fits: SPEC §6's arithmetic and, with the model
// known, its own rules and memory.
void find_nearest_counts(const RelayoutRequest& q, const TrainingSetup& setup, RelayoutResult& r) {
  const std::int64_t replica = r.layout.tp * r.layout.pp * r.layout.cp;
  auto fits = [&](std::int64_t g) {
    if (!relayout_violations(r.layout, g, q.gpus_per_node, q.global_batch, r.row_length, q.launch).empty())
      return false;
    if (!q.model) return true;
    TrainingSetup t = setup;
    t.layout = r.layout;
    t.layout.dp = g / replica;
    t.global_batch = q.global_batch;
    if (q.launch == Launch::slime) t.global_batch = t.layout.dp * t.layout.micro_batch;  // slime packs its own
    if (!model_violations(*q.model, t).empty()) return false;
    return fits_memory(estimate_memory(*q.model, t).peak_mib, q.memory_mib);
  };
  // Beyond replica × global batch no DP divides the batch (the product is bounded first: sizes reach 2^20 each).
  const std::int64_t top =
      replica > kMaxGpus / q.global_batch ? kMaxGpus : std::min(kMaxGpus, replica * q.global_batch);
  // Only whole replicas can fit (relayout_violations' first rule): the search steps by the replica.
  for (std::int64_t g = (q.gpus - 1) / replica * replica; g >= replica; g -= replica)
    if (fits(g)) {
      r.nearest_below = g;
      break;
    }
  for (std::int64_t g = (q.gpus / replica + 1) * replica; g <= top; g += replica)
    if (fits(g)) {
      r.nearest_above = g;
      break;
    }
}

// The command with the launcher's GPU counts, the new layout (layout/setup_flags.h) and a new row length written.
void rewrite_command(const RelayoutRequest& q, bool add_sequence_parallel, const TrainingSetup* recounted,
                     CommandEditor& cmd, RelayoutResult& r) {
  const std::int64_t per_node = q.gpus <= q.gpus_per_node ? q.gpus : q.gpus_per_node;
  const auto s = [](std::int64_t v) { return std::to_string(v); };
  if (q.launch == Launch::megatron) {
    const std::vector<std::string> nproc = {"--nproc-per-node", "--nproc_per_node"};
    if (!cmd.has(nproc))
      r.notes.push_back("the command has no torchrun --nproc-per-node: launch it on " + s(per_node) +
                        " GPUs per node yourself");
    cmd.set(nproc, s(per_node), false);
    cmd.set({"--nnodes"}, s(r.nodes), r.nodes > 1 && cmd.has(nproc), nproc);
  } else {
    cmd.set({"--actor-num-nodes"}, s(r.nodes), true);
    cmd.set({"--actor-num-gpus-per-node"}, s(per_node), true);
  }
  TrainingSetup written;
  written.layout = r.layout;
  written.sequence_parallel = add_sequence_parallel;
  if (q.recompute) written.recompute = *q.recompute;
  SetupFlagParts parts;
  parts.sequence_parallel = add_sequence_parallel;  // relayout only adds it
  parts.micro_batch = q.micro_batch.has_value();
  parts.recompute = q.recompute && q.recompute->kind != Recompute::none;
  write_setup_flags(cmd, written, parts);
  if (recounted) {  // the new PP's counted split (relayout: recount)
    write_counted_split(cmd, *recounted);
    if (!recounted->embedding_in_split && !recounted->loss_in_split)
      r.notes.push_back(fmt::format("{} no longer counted in the pipeline split: PP {} divides the {} layers evenly",
                                    counted_in_split(q.setup), r.layout.pp, q.model->layers));
    else
      r.notes.push_back(fmt::format("{} counted in the pipeline split, not {}: PP {} divides the {} layers + {}",
                                    counted_in_split(*recounted), counted_in_split(q.setup), r.layout.pp,
                                    q.model->layers, split_layers(*q.model, *recounted) - q.model->layers));
  }
  if (add_sequence_parallel)
    r.notes.push_back(
        fmt::format("--sequence-parallel added: MoE training at TP {} needs it (Megatron-LM's "
                    "moe_layer.py refuses TP > 1 without it)",
                    r.layout.tp));
  if (q.new_row_length && *q.new_row_length != q.row_length) {
    cmd.set({"--seq-length"}, s(r.row_length), q.launch == Launch::megatron);
    if (q.launch == Launch::slime) {
      cmd.set_env("AUTOTUNE_SEQ_LEN", s(r.row_length));
      if (r.layout.max_tokens_per_gpu) cmd.set({"--max-tokens-per-gpu"}, s(*r.layout.max_tokens_per_gpu), true);
    }
  }
}

}  // namespace

RelayoutResult relayout(const RelayoutRequest& q, const std::string& command, const std::string& where) {
  RelayoutResult r = start_result(q);
  CommandEditor cmd(command, where, &r.changes, &r.notes);
  r.violations = relayout_violations(r.layout, q.gpus, q.gpus_per_node, q.global_batch, r.row_length, q.launch);
  TrainingSetup setup = q.setup;
  if (q.recompute) setup.recompute = *q.recompute;
  if (q.launch == Launch::megatron)
    setup.row_length = r.row_length;
  else if (r.layout.max_tokens_per_gpu)
    setup.row_length = *r.layout.max_tokens_per_gpu * r.layout.cp;
  // Sequence parallelism at the new TP: Megatron-LM records it off at TP 1 whatever the command says (validate_args
  // turns it off), so the command's own --sequence-parallel decides; MoE training at TP > 1 needs it (Megatron-LM's
  // moe_layer.py raises without it), so relayout turns it on. Decided once: the checks at G and at every nearest
  // count use it.
  const bool asked_sp = r.layout.tp > 1 && (q.setup.sequence_parallel || cmd.has({"--sequence-parallel"}));
  const bool add_sequence_parallel = q.model && q.model->experts > 0 && r.layout.tp > 1 && !asked_sp;
  // The embedding or the loss counted in the split (Megatron-Bridge's large recipes) at a new PP: the recipe's own
  // where the new PP (and its VPP) takes it (at PP 1 none: one stage has nothing to split), else the first that it
  // takes of the even split (the flags dropped), both counted, the loss, the embedding (the planner's splits:
  // model_violations judges, VPP included).
  bool recount = false;
  if (q.model && (setup.embedding_in_split || setup.loss_in_split) && r.layout.pp != q.setup.layout.pp) {
    TrainingSetup at = setup;
    at.layout = r.layout;
    at.layout.dp = std::max<std::int64_t>(1, r.layout.dp);
    at.layout.max_tokens_per_gpu.reset();
    at.global_batch = at.layout.dp * at.layout.micro_batch;  // the batch rules are relayout_violations'
    const std::pair<bool, bool> own{setup.embedding_in_split, setup.loss_in_split};
    std::vector<std::pair<bool, bool>> splits{own, {false, false}, {true, true}};
    if (r.layout.pp == 1) std::swap(splits[0], splits[1]);  // one stage: nothing to split, the flags dropped
    splits.insert(splits.end(), {{false, true}, {true, false}});
    std::size_t fewest = std::numeric_limits<std::size_t>::max();
    std::pair<bool, bool> chosen = own;
    for (const auto& [embedding, loss] : splits) {
      at.embedding_in_split = embedding, at.loss_in_split = loss;
      if (const std::size_t n = model_violations(*q.model, at).size(); n < fewest)
        fewest = n, chosen = {embedding, loss};
    }
    if (chosen != own) {
      setup.embedding_in_split = chosen.first, setup.loss_in_split = chosen.second;
      recount = true;
    }
  }
  if (q.model) {
    setup.sequence_parallel = asked_sp || add_sequence_parallel;
    check_model(q, setup, r);
    if (!r.violations.empty())
      suggest_changes(q, setup, q.setup.sequence_parallel || cmd.has({"--sequence-parallel"}) || q.model->experts > 0,
                      r);
  }
  find_nearest_counts(q, setup, r);

  const bool new_rows = q.new_row_length && *q.new_row_length != q.row_length;
  r.convergence_rerun = new_rows;
  r.why = new_rows ? fmt::format(
                         "re-measure, and re-run the convergence check: rows of {} tokens are other data "
                         "(rebuild them with openrecipes rows build --row-length {}, and the reference arm "
                         "must run on the same rows)",
                         r.row_length, r.row_length)
                   : "re-measure (a relayout is a new run); the convergence check need not be re-run, since only the "
                     "parallel layout and packing change";
  if (!r.violations.empty()) return r;
  rewrite_command(q, add_sequence_parallel, recount ? &setup : nullptr, cmd, r);
  r.command = cmd.result();
  return r;
}

}  // namespace openrecipes::layout
