// Relayout (SPEC §6): a layout moved to another GPU count or row length, its broken rules, the nearest GPU counts
// that fit, and the command with the framework's flags rewritten in place (the rest of its text kept byte for byte).
#include "layout/relayout.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "layout/command.h"

namespace openrecipes::layout {
namespace {

constexpr std::int64_t kMaxGpus = 1 << 20;  // search bound for the nearest counts

// An edit of the command text: replace [begin, end) by text.
struct Edit {
  std::size_t begin, end;
  std::string text;
};

class CommandEditor {
 public:
  CommandEditor(const std::string& command, const std::string& where)
      : text_(command), words_(split_command(command, where)) {}

  // Sets `flag` (any of its spellings) to `value`. Absent: inserted after `anchor`'s value when given (a flag of the
  // same program), else appended, unless `insert_if_absent` is false. Records the change.
  void set(const std::vector<std::string>& spellings, const std::string& value, bool insert_if_absent,
           RelayoutResult& r, const std::vector<std::string>& anchor = {}) {
    for (std::size_t i = 0; i < words_.size(); ++i) {
      auto lit = words_[i].literal();
      if (!lit) continue;
      for (const auto& flag : spellings) {
        if (*lit == flag) {
          if (i + 1 >= words_.size()) return;
          const CommandWord& v = words_[i + 1];
          auto old = v.literal();
          if (!old) {
            r.notes.push_back(
                fmt::format("{} is given as {}: set it to {}", flag, text_.substr(v.begin, v.end - v.begin), value));
            return;
          }
          if (*old != value) {
            edits_.push_back({v.begin, v.end, value});
            r.changes.push_back({flag, *old, value});
          }
          return;
        }
        if (lit->starts_with(flag + "=")) {
          std::string old = lit->substr(flag.size() + 1);
          if (old != value) {
            edits_.push_back({words_[i].begin, words_[i].end, flag + "=" + value});
            r.changes.push_back({flag, old, value});
          }
          return;
        }
      }
    }
    if (!insert_if_absent) return;
    std::size_t at = text_.find_last_not_of(" \t\n") + 1;
    if (!anchor.empty())
      for (std::size_t i = 0; i + 1 < words_.size(); ++i)
        if (auto lit = words_[i].literal(); lit && std::find(anchor.begin(), anchor.end(), *lit) != anchor.end())
          at = words_[i + 1].end;
    edits_.push_back({at, at, " " + spellings.front() + " " + value});
    r.changes.push_back({spellings.front(), "", value});
  }

  // Sets the leading environment assignment NAME=value (inserted before the program when absent).
  void set_env(const std::string& name, const std::string& value, RelayoutResult& r) {
    for (const auto& w : words_) {
      auto lit = w.literal();
      if (!lit || lit->find('=') == std::string::npos) break;  // past the assignments
      if (lit->starts_with(name + "=")) {
        std::string old = lit->substr(name.size() + 1);
        if (old != value) {
          edits_.push_back({w.begin, w.end, name + "=" + value});
          r.changes.push_back({name, old, value});
        }
        return;
      }
    }
    const std::size_t at = words_.empty() ? 0 : words_.front().begin;
    edits_.push_back({at, at, name + "=" + value + " "});
    r.changes.push_back({name, "", value});
  }

  bool has(const std::vector<std::string>& spellings) const {
    for (const auto& w : words_)
      if (auto lit = w.literal())
        for (const auto& f : spellings)
          if (*lit == f || lit->starts_with(f + "=")) return true;
    return false;
  }

  std::string result() const {
    // From the back, so earlier spans stay valid; insertions at one place applied last-first keep their order.
    std::vector<Edit> e(edits_.rbegin(), edits_.rend());
    std::stable_sort(e.begin(), e.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
    std::string out = text_;
    for (const auto& x : e) out.replace(x.begin, x.end - x.begin, x.text);
    return out;
  }

 private:
  std::string text_;
  std::vector<CommandWord> words_;
  std::vector<Edit> edits_;
};

std::int64_t nodes_for(std::int64_t gpus, std::int64_t gpus_per_node) {
  return gpus <= gpus_per_node ? 1 : gpus / gpus_per_node;
}

void require_size(std::int64_t v, const char* what) {
  if (v < 1) throw InputError(what, fmt::format("{} is not a size (at least 1)", v), "give a positive whole number");
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
  require_size(q.gpus, "--gpus");
  require_size(q.gpus_per_node, "--gpus-per-node");
  require_size(q.global_batch, "global batch");
  require_size(q.row_length, "row length");
  RelayoutResult r;
  r.layout = q.layout;
  for (auto [v, field, name] : {std::tuple{q.tp, &Layout::tp, "--tp"}, std::tuple{q.pp, &Layout::pp, "--pp"},
                                std::tuple{q.cp, &Layout::cp, "--cp"}, std::tuple{q.ep, &Layout::ep, "--ep"},
                                std::tuple{q.etp, &Layout::etp, "--etp"}})
    if (v) {
      require_size(*v, name);
      r.layout.*field = *v;
    }
  if (q.new_row_length) require_size(*q.new_row_length, "--row-length");
  r.gpus = q.gpus;
  r.gpus_per_node = q.gpus_per_node;
  r.nodes = nodes_for(q.gpus, q.gpus_per_node);
  r.row_length = q.new_row_length.value_or(q.row_length);
  const std::int64_t replica = r.layout.tp * r.layout.pp * r.layout.cp;
  r.layout.dp = q.gpus % replica == 0 ? q.gpus / replica : 0;

  CommandEditor cmd(command, where);
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
    cmd.set(nproc, s(per_node), false, r);
    cmd.set({"--nnodes"}, s(r.nodes), r.nodes > 1 && cmd.has(nproc), r, nproc);
  } else {
    cmd.set({"--actor-num-nodes"}, s(r.nodes), true, r);
    cmd.set({"--actor-num-gpus-per-node"}, s(per_node), true, r);
  }
  cmd.set({"--tensor-model-parallel-size"}, s(r.layout.tp), r.layout.tp != 1, r);
  cmd.set({"--pipeline-model-parallel-size"}, s(r.layout.pp), r.layout.pp != 1, r);
  cmd.set({"--context-parallel-size"}, s(r.layout.cp), r.layout.cp != 1, r);
  cmd.set({"--expert-model-parallel-size"}, s(r.layout.ep), r.layout.ep != 1, r);
  // Megatron's ETP defaults to TP: write it out when the layout's differs and experts are in play.
  cmd.set({"--expert-tensor-parallel-size"}, s(r.layout.etp),
          r.layout.etp != r.layout.tp && (r.layout.ep > 1 || cmd.has({"--expert-model-parallel-size"})), r);
  if (new_rows) {
    cmd.set({"--seq-length"}, s(r.row_length), q.launch == Launch::megatron, r);
    if (q.launch == Launch::slime) {
      cmd.set_env("AUTOTUNE_SEQ_LEN", s(r.row_length), r);
      if (r.layout.max_tokens_per_gpu) cmd.set({"--max-tokens-per-gpu"}, s(*r.layout.max_tokens_per_gpu), true, r);
    }
  }
  r.command = cmd.result();
  return r;
}

}  // namespace openrecipes::layout
