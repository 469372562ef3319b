// Model-aware layout rules (docs/memory-model.md "The rules"): each mirrors a start-up check of Megatron-LM d98e8a64
// (megatron/training/arguments.py validate_args, megatron/core/transformer/transformer_config.py __post_init__).
#include "layout/model_rules.h"

#include <fmt/format.h>

#include "core/error.h"

namespace openrecipes::layout {

std::vector<Violation> model_violations(const ModelShape& m, const TrainingSetup& t) {
  std::vector<Violation> out;
  const Layout& l = t.layout;
  for (auto [v, name] : {std::pair{l.tp, "TP"}, std::pair{l.pp, "PP"}, std::pair{l.cp, "CP"}, std::pair{l.ep, "EP"},
                         std::pair{l.etp, "ETP"}, std::pair{l.dp, "DP"}, std::pair{l.micro_batch, "micro-batch"}})
    if (v < 1) throw InputError(name, fmt::format("{} is not a size (at least 1)", v), "give a positive whole number");
  if (!m.mla && (m.query_groups < 1 || m.heads % m.query_groups != 0))
    out.push_back({fmt::format("the {} attention heads do not split into {} query groups", m.heads, m.query_groups),
                   "give the model's own num_query_groups"});
  if (m.heads % l.tp != 0)
    out.push_back({fmt::format("TP {} does not divide the {} attention heads", l.tp, m.heads),
                   "use a TP that divides the heads"});
  // transformer_config.py: the query groups must be a multiple or a divisor of TP (a TP above the groups replicates
  // the key/value heads).
  if (!m.mla && m.query_groups > 0 && m.query_groups % l.tp != 0 && l.tp % m.query_groups != 0)
    out.push_back({fmt::format("TP {} is neither a divisor nor a multiple of the {} query groups (key/value heads)",
                               l.tp, m.query_groups),
                   "use a TP that divides the query groups, or a multiple of them"});
  if (m.ffn_hidden > 0 && m.dense_layers() > 0 && m.ffn_hidden % l.tp != 0)
    out.push_back({fmt::format("TP {} does not divide the FFN width {}", l.tp, m.ffn_hidden), ""});
  const std::int64_t counted = split_layers(m, t);
  const bool counted_split = t.embedding_in_split || t.loss_in_split;
  if (counted_split && (t.first_stage_layers || t.last_stage_layers)) {
    // transformer_config.py raises on both.
    out.push_back(
        {"the embedding or loss counted in the pipeline split and first/last-stage layer counts are both "
         "given",
         "give one of them"});
  } else if (counted_split) {
    if (counted % l.pp != 0)
      out.push_back({fmt::format("PP {} does not divide the {} layers with {} counted ({})", l.pp, m.layers,
                                 counted_in_split(t), counted),
                     m.layers % l.pp == 0 ? fmt::format("PP {} divides the {} layers themselves: drop "
                                                        "--account-for-embedding/loss-in-pipeline-split",
                                                        l.pp, m.layers)
                                          : fmt::format("use a PP that divides {}", counted)});
  } else if (t.first_stage_layers || t.last_stage_layers) {
    std::int64_t rest = m.layers, stages = l.pp;
    if (t.first_stage_layers) rest -= *t.first_stage_layers, --stages;
    if (t.last_stage_layers && l.pp > 1) rest -= *t.last_stage_layers, --stages;
    // transformer_config.py: middle stages need layers ("Mismatch: 0 middle layers remaining but N middle PP stages").
    if (rest < 0 || (stages == 0 && rest != 0) || (stages > 0 && (rest == 0 || rest % stages != 0)))
      out.push_back(
          {fmt::format("the first/last-stage layer counts leave {} layers for the {} other stages", rest, stages),
           "make the other stages' layers a whole number each"});
  } else if (m.layers % l.pp != 0) {
    out.push_back({fmt::format("PP {} does not divide the {} layers", l.pp, m.layers),
                   "use a PP that divides the layers, or set --decoder-first-pipeline-num-layers and "
                   "--decoder-last-pipeline-num-layers"});
  }
  if (l.vpp) {
    const std::int64_t micro_batches = t.global_batch / std::max<std::int64_t>(1, l.dp * l.micro_batch);
    if (*l.vpp < 2)
      out.push_back(
          {fmt::format("VPP {} is not an interleaved schedule (it needs 2 or more)", *l.vpp), "leave VPP unset"});
    else if (l.pp == 1)
      out.push_back({"virtual pipeline stages need PP > 1", "drop --num-layers-per-virtual-pipeline-stage"});
    else if (t.first_stage_layers || t.last_stage_layers || counted % l.pp != 0 || (counted / l.pp) % *l.vpp != 0)
      out.push_back({fmt::format("VPP {} does not divide every stage's layers evenly", *l.vpp),
                     "use a VPP that divides a stage's layers (the embedding and loss counted where they are)"});
    // schedules.py (forward_backward_pipelining_with_interleaving): groups of N contiguous micro-batches, N from PP
    // (the default) to the step's M, the last group whole or at least PP.
    const std::int64_t group = t.microbatch_group.value_or(l.pp);
    if (l.pp > 1 && group == l.pp && micro_batches % l.pp != 0)
      out.push_back({fmt::format("the interleaved schedule needs the {} micro-batches of a step to be a multiple of "
                                 "PP {}",
                                 micro_batches, l.pp),
                     "change the micro-batch or the global batch, or leave VPP unset"});
    else if (l.pp > 1 && (group < l.pp || group > micro_batches))
      out.push_back({fmt::format("the interleaved schedule's groups of {} micro-batches need PP {} to the step's {}",
                                 group, l.pp, micro_batches),
                     "set --microbatch-group-size-per-virtual-pipeline-stage from PP to the micro-batches of a step"});
    else if (l.pp > 1 && micro_batches % group != 0 && micro_batches % group < l.pp)
      out.push_back({fmt::format("the interleaved schedule's last group of {} micro-batches is fewer than PP {}",
                                 micro_batches % group, l.pp),
                     "make the micro-batches of a step a multiple of the group, or the remainder at least PP"});
  }
  if (l.cp > 1 && t.impl == Impl::local)
    out.push_back({"context parallelism needs Transformer Engine's attention; --transformer-impl local has none",
                   "use --transformer-impl transformer_engine, or CP 1"});
  if (l.cp > 1 && t.row_length % (2 * l.cp) != 0)
    out.push_back(
        {fmt::format("CP {} needs a row length divisible by 2 x CP = {} (it is {})", l.cp, 2 * l.cp, t.row_length),
         ""});
  if (m.experts == 0) {
    if (l.ep > 1) out.push_back({fmt::format("EP {} on a model without experts", l.ep), "use EP 1"});
    if (l.etp > 1)  // a dense run's dump prints ETP = TP, read as 1 (setup_from_arguments)
      out.push_back({fmt::format("ETP {} on a model without experts", l.etp), "use ETP 1 (no experts to split)"});
  } else {
    if (m.experts % l.ep != 0)
      out.push_back({fmt::format("EP {} does not divide the {} experts", l.ep, m.experts), ""});
    if (m.expert_ffn_hidden % l.etp != 0)
      out.push_back({fmt::format("ETP {} does not divide the expert FFN width {}", l.etp, m.expert_ffn_hidden), ""});
  }
  // moe_layer.py: training MoE with TP > 1 without sequence parallelism raises.
  if (m.experts > 0 && l.tp > 1 && !t.sequence_parallel)
    out.push_back({fmt::format("MoE training with TP {} needs sequence parallelism", l.tp), "add --sequence-parallel"});
  if (t.sequence_parallel && l.tp == 1)
    out.push_back({"sequence parallelism needs TP > 1", "drop --sequence-parallel, or raise TP"});
  if (t.global_batch % (l.dp * l.micro_batch) != 0)
    out.push_back({fmt::format("the global batch of {} rows does not divide by DP {} x micro-batch {}", t.global_batch,
                               l.dp, l.micro_batch),
                   "use a micro-batch that divides the global batch / DP"});
  // parallel_state.py: the instances split DP x CP and the expert data-parallel ranks evenly.
  if (t.optimizer_instances > 1) {
    const std::int64_t expert_dp = l.tp * l.cp * l.dp / std::max<std::int64_t>(1, l.ep * l.etp);
    if ((l.dp * l.cp) % t.optimizer_instances != 0 || (m.experts > 0 && expert_dp % t.optimizer_instances != 0))
      out.push_back(
          {fmt::format("{} distributed-optimizer instances do not split DP x CP = {}{} evenly", t.optimizer_instances,
                       l.dp * l.cp, m.experts > 0 ? fmt::format(" and expert DP = {}", expert_dp) : ""),
           "give --num-distributed-optimizer-instances that divides them"});
  }
  if (t.recompute.kind == Recompute::full_block || t.recompute.kind == Recompute::full_uniform) {
    const std::int64_t per_stage = m.layers / l.pp / (l.vpp ? *l.vpp : 1);
    if (t.recompute.layers > std::max<std::int64_t>(per_stage, 1))
      out.push_back({fmt::format("recompute of {} layers, but a stage holds {}", t.recompute.layers, per_stage), ""});
  }
  return out;
}

std::vector<std::string> model_warnings(const TrainingSetup& t, std::int64_t gpus_per_node) {
  std::vector<std::string> out;
  if (t.layout.tp > gpus_per_node)
    out.push_back(fmt::format("TP {} spans {} nodes of {} GPUs: its all-reduces leave NVLink", t.layout.tp,
                              (t.layout.tp + gpus_per_node - 1) / gpus_per_node, gpus_per_node));
  if (t.layout.ep > 1 && t.layout.ep * t.layout.etp > gpus_per_node)
    out.push_back(
        fmt::format("EP x ETP = {} spans nodes: expert all-to-alls cross the network", t.layout.ep * t.layout.etp));
  return out;
}

}  // namespace openrecipes::layout
