// A training setup as Megatron-LM flags (layout/setup_flags.h).
#include "layout/setup_flags.h"

#include <string>
#include <vector>

namespace openrecipes::layout {
namespace {

using Flags = std::vector<std::string>;
const Flags kTp = {"--tensor-model-parallel-size"};
const Flags kPp = {"--pipeline-model-parallel-size"};
const Flags kCp = {"--context-parallel-size"};
const Flags kEp = {"--expert-model-parallel-size"};
const Flags kEtp = {"--expert-tensor-parallel-size"};
const Flags kMicroBatch = {"--micro-batch-size"};
const Flags kGranularity = {"--recompute-granularity"};
const Flags kMethod = {"--recompute-method"};
const Flags kRecomputeLayers = {"--recompute-num-layers"};
const Flags kVpp = {"--num-virtual-stages-per-pipeline-rank"};
const Flags kVppLayers = {"--num-layers-per-virtual-pipeline-stage"};
const Flags kFirstStage = {"--decoder-first-pipeline-num-layers"};
const Flags kLastStage = {"--decoder-last-pipeline-num-layers"};
const Flags kEmbeddingInSplit = {"--account-for-embedding-in-pipeline-split"};
const Flags kLossInSplit = {"--account-for-loss-in-pipeline-split"};
const Flags kSequenceParallel = {"--sequence-parallel"};
const Flags kDistributedOptimizer = {"--use-distributed-optimizer"};
const Flags kOverlap = {"--overlap-grad-reduce", "--overlap-param-gather"};

void write_recompute(CommandEditor& ed, const Recomputation& r) {
  if (r.kind == Recompute::none) {
    for (const auto* f : {&kGranularity, &kMethod, &kRecomputeLayers}) ed.remove(*f);
    return;
  }
  ed.set(kGranularity, r.kind == Recompute::selective ? "selective" : "full", true);
  if (r.kind == Recompute::selective) {
    ed.remove(kMethod);
    ed.remove(kRecomputeLayers);
    return;
  }
  ed.set(kMethod, r.kind == Recompute::full_block ? "block" : "uniform", true);
  ed.set(kRecomputeLayers, std::to_string(r.layers), true);
}

void write_optional(CommandEditor& ed, const Flags& flag, const std::optional<std::int64_t>& v) {
  if (v)
    ed.set(flag, std::to_string(*v), true);
  else
    ed.remove(flag);
}

}  // namespace

void write_counted_split(CommandEditor& ed, const TrainingSetup& t) {
  ed.set_switch(kEmbeddingInSplit, t.embedding_in_split);
  ed.set_switch(kLossInSplit, t.loss_in_split);
}

std::vector<std::string> uneven_split_flag_list(const TrainingSetup& t) {
  std::vector<std::string> out;
  if (t.first_stage_layers) out.push_back(kFirstStage.front() + " " + std::to_string(*t.first_stage_layers));
  if (t.last_stage_layers) out.push_back(kLastStage.front() + " " + std::to_string(*t.last_stage_layers));
  if (t.embedding_in_split) out.push_back(kEmbeddingInSplit.front());
  if (t.loss_in_split) out.push_back(kLossInSplit.front());
  return out;
}

std::string uneven_split_flags(const TrainingSetup& t) {
  std::string out;
  for (const auto& flag : uneven_split_flag_list(t)) out += (out.empty() ? "" : " ") + flag;
  return out;
}

void write_setup_flags(CommandEditor& ed, const TrainingSetup& t, const SetupFlagParts& parts) {
  const Layout& l = t.layout;
  const auto s = [](std::int64_t v) { return std::to_string(v); };
  ed.set(kTp, s(l.tp), l.tp != 1);
  if (parts.sequence_parallel) ed.set_switch(kSequenceParallel, t.sequence_parallel, kTp);
  if (parts.micro_batch) ed.set(kMicroBatch, s(l.micro_batch), true);
  if (parts.recompute) write_recompute(ed, t.recompute);
  ed.set(kPp, s(l.pp), l.pp != 1);
  ed.set(kCp, s(l.cp), l.cp != 1);
  ed.set(kEp, s(l.ep), l.ep != 1);
  ed.set(kEtp, s(l.etp), l.etp != l.tp && (l.ep > 1 || ed.has(kEp)));
  if (parts.pipeline_split) {
    ed.remove(kVppLayers);
    if (l.vpp && *l.vpp > 1)
      ed.set(kVpp, s(*l.vpp), true, kPp);
    else
      ed.remove(kVpp);
    write_optional(ed, kFirstStage, t.first_stage_layers);
    write_optional(ed, kLastStage, t.last_stage_layers);
    write_counted_split(ed, t);
  }
  if (parts.distributed_optimizer) {
    ed.set_switch(kDistributedOptimizer, t.distributed_optimizer);
    for (const auto& f : kOverlap) ed.set_switch({f}, t.distributed_optimizer && l.dp > 1);
  }
}

}  // namespace openrecipes::layout
