// Relayout (SPEC §6): a layout moved to another GPU count or row length, its broken rules, the nearest GPU counts
// that fit, and the command with the framework's flags rewritten in place (the rest of its text kept byte for byte).
#include "layout/relayout.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "layout/command.h"

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
  if (gpus > gpus_per_node && gpus % gpus_per_node != 0)
    out.push_back(
        {fmt::format("{} GPUs do not fill whole nodes of {} GPUs", gpus, gpus_per_node),
         fmt::format("use a multiple of {} GPUs, or give the node size with --gpus-per-node", gpus_per_node)});
  if (l.max_tokens_per_gpu && *l.max_tokens_per_gpu * l.cp < row_length)
    out.push_back({fmt::format("max_tokens_per_gpu {} x CP {} = {} tokens cannot hold a row of {}",
                               *l.max_tokens_per_gpu, l.cp, *l.max_tokens_per_gpu * l.cp, row_length),
                   fmt::format("raise --max-tokens-per-gpu to at least {}", (row_length + l.cp - 1) / l.cp)});
  return out;
}

RelayoutResult relayout(const RelayoutRequest& q, const std::string& command, const std::string& where) {
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
  r.gpus = q.gpus;
  r.gpus_per_node = q.gpus_per_node;
  r.nodes = nodes_for(q.gpus, q.gpus_per_node);
  r.row_length = q.new_row_length.value_or(q.row_length);
  const std::int64_t replica = r.layout.tp * r.layout.pp * r.layout.cp;
  r.layout.dp = q.gpus % replica == 0 ? q.gpus / replica : 0;

  CommandEditor cmd(command, where, &r.changes, &r.notes);
  // A new row length: slime sizes its packing bins by max_tokens_per_gpu; one row must fit in a bin of CP GPUs.
  if (q.launch == Launch::slime && q.new_row_length && r.layout.max_tokens_per_gpu &&
      *r.layout.max_tokens_per_gpu * r.layout.cp < r.row_length)
    r.layout.max_tokens_per_gpu = (r.row_length + r.layout.cp - 1) / r.layout.cp;

  r.violations = relayout_violations(r.layout, q.gpus, q.gpus_per_node, q.global_batch, r.row_length, q.launch);
  auto fits = [&](std::int64_t g) {
    return relayout_violations(r.layout, g, q.gpus_per_node, q.global_batch, r.row_length, q.launch).empty();
  };
  const std::int64_t top = std::min(kMaxGpus, replica * q.global_batch);
  for (std::int64_t g = q.gpus - 1; g >= 1; --g)
    if (fits(g)) {
      r.nearest_below = g;
      break;
    }
  for (std::int64_t g = q.gpus + 1; g <= top; ++g)
    if (fits(g)) {
      r.nearest_above = g;
      break;
    }

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
  cmd.set({"--tensor-model-parallel-size"}, s(r.layout.tp), r.layout.tp != 1);
  cmd.set({"--pipeline-model-parallel-size"}, s(r.layout.pp), r.layout.pp != 1);
  cmd.set({"--context-parallel-size"}, s(r.layout.cp), r.layout.cp != 1);
  cmd.set({"--expert-model-parallel-size"}, s(r.layout.ep), r.layout.ep != 1);
  // Megatron's ETP defaults to TP: write it out when the layout's differs and experts are in play.
  cmd.set({"--expert-tensor-parallel-size"}, s(r.layout.etp),
          r.layout.etp != r.layout.tp && (r.layout.ep > 1 || cmd.has({"--expert-model-parallel-size"})));
  if (new_rows) {
    cmd.set({"--seq-length"}, s(r.row_length), q.launch == Launch::megatron);
    if (q.launch == Launch::slime) {
      cmd.set_env("AUTOTUNE_SEQ_LEN", s(r.row_length));
      if (r.layout.max_tokens_per_gpu) cmd.set({"--max-tokens-per-gpu"}, s(*r.layout.max_tokens_per_gpu), true);
    }
  }
  r.command = cmd.result();
  return r;
}

}  // namespace openrecipes::layout
