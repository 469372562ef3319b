// The layout rules of SPEC §6 and the comparison of a recipe's layout with its run's argument dump.
#include "layout/layout.h"

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes::layout {

std::optional<Violation> node_violation(std::int64_t gpus, std::int64_t gpus_per_node) {
  if (gpus <= gpus_per_node || gpus_per_node < 1 || gpus % gpus_per_node == 0) return std::nullopt;
  return Violation{fmt::format("{} GPUs do not fill whole nodes of {} GPUs", gpus, gpus_per_node),
                   fmt::format("use a multiple of {} GPUs, or give the node size with --gpus-per-node", gpus_per_node)};
}

std::vector<Violation> violations(const Layout& l, std::int64_t gpus, std::int64_t global_batch) {
  std::vector<Violation> out;
  const std::int64_t replica = l.tp * l.pp * l.cp;
  if (replica * l.dp != gpus)
    out.push_back({fmt::format("TP {} x PP {} x CP {} x DP {} = {} GPUs, but the recipe ran on {}", l.tp, l.pp, l.cp,
                               l.dp, replica * l.dp, gpus),
                   "a replica takes TP x PP x CP GPUs and DP replicas make the GPU count"});
  if ((gpus / l.pp) % (l.ep * l.etp) != 0)
    out.push_back({fmt::format("GPUs per pipeline stage ({} / PP {} = {}) is not a multiple of EP {} x ETP {}", gpus,
                               l.pp, gpus / l.pp, l.ep, l.etp),
                   fmt::format("use an EP x ETP that divides {} (ETP is TP unless --expert-tensor-parallel-size "
                               "gives it)",
                               gpus / l.pp)});
  if (global_batch % l.dp != 0)
    out.push_back({fmt::format("the global batch of {} rows does not divide by DP {}", global_batch, l.dp),
                   "use a DP (the GPUs over TP x PP x CP) that divides the global batch"});
  return out;
}

std::vector<std::string> argument_dump_mismatches(const Placement& p, const std::map<std::string, std::string>& args) {
  std::vector<std::string> out;
  auto expect = [&](const std::string& arg, std::int64_t want, const char* what) {
    auto it = args.find(arg);
    if (it == args.end()) return;
    auto v = parse_int(it->second);
    if (!v) {
      if (it->second == "None" && arg == "virtual_pipeline_model_parallel_size" && want == 0) return;
      out.push_back(fmt::format("argument {} = {} is not a number", arg, it->second));
      return;
    }
    if (*v != want)
      out.push_back(fmt::format("the recipe records {} = {}, but its argument dump has {} = {}", what, want, arg, *v));
  };
  const Layout& l = p.layout;
  expect("tensor_model_parallel_size", l.tp, "TP");
  expect("pipeline_model_parallel_size", l.pp, "PP");
  expect("context_parallel_size", l.cp, "CP");
  expect("expert_model_parallel_size", l.ep, "EP");
  expect("data_parallel_size", l.dp, "DP");
  expect("global_batch_size", p.global_batch, "the global batch");
  if (p.megatron_feeds_rows) {
    expect("seq_length", p.row_length, "the row length");
    expect("micro_batch_size", l.micro_batch, "the micro-batch size");
  }
  if (l.max_tokens_per_gpu) expect("max_tokens_per_gpu", *l.max_tokens_per_gpu, "max_tokens_per_gpu");
  if (auto it = args.find("expert_tensor_parallel_size"); it != args.end() && it->second != "None")
    expect("expert_tensor_parallel_size", l.etp, "ETP");
  if (l.vpp)
    expect("virtual_pipeline_model_parallel_size", *l.vpp, "VPP");
  else
    expect("virtual_pipeline_model_parallel_size", 0, "VPP (none)");
  return out;
}

}  // namespace openrecipes::layout
