// tune's candidates (docs/tune.md "Candidates", "Same-math swaps"): the start, then the planner's layouts that fit,
// each as a draft recipe's command, and a same-math swap of a candidate whose component test passed in the registry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/component_check.h"
#include "evidence/megatron_args.h"
#include "layout/memory.h"
#include "layout/step_time.h"
#include "registry/recipe.h"

namespace openrecipes::run {

/// One configuration to try: a layout the planner says fits, as a draft recipe's command.
struct TuneCandidate {
  std::string name;   ///< the draft's folder name, "<start>-<changed knobs>" ("tulu3-ref-mbs16")
  std::string knobs;  ///< what changed from the start, in words ("micro-batch 4 -> 16"; "the start")
  layout::TrainingSetup setup;
  layout::MemoryEstimate memory;  ///< the planner's peak per GPU
  bool fits = true;               ///< the planner's verdict against the GPU's usable memory
  double relative_time = 1;       ///< the planner's speed heuristic (lower is faster)
  std::optional<double>
      predicted_step_s;  ///< the step-time model's prediction (layout/step_time.h), with rates; none for a swap
  bool start = false;    ///< the starting recipe's own configuration
  std::string command;   ///< the draft recipe's command (the recipe's own length)
  std::vector<std::string> changes;  ///< the command's flag changes, "--micro-batch-size 4 -> 16"
  std::string swap;                  ///< the same-math swap it adds to the candidate it was made from ("" : none)
};

/// The candidates for `recipe` on `gpus` GPUs over `nodes` nodes, in the order they are tried: the start first (the
/// baseline every speed-up is stated against), then every layout plan_layouts finds that fits one GPU's `memory_mib`
/// (0: no fit verdict), in its order (by predicted step time with `speed`, the GPU type's rates), each once (layouts
/// whose commands come out equal are one candidate). Needs a Megatron-LM recipe whose shape and setup are known
/// (registry/recipe_memory.h); slime and miles recipes keep their micro-batch and recompute (their commands do not set
/// Megatron's). When no other layout fits, the start is the only candidate. Throws InputError naming the recipe for a
/// shape that cannot be read, for a start whose own layout does not fit these GPUs (run::plan_command's refusal, with
/// the nearest counts that fit), and when the model has no valid layout on them at all.
std::vector<TuneCandidate> tune_candidates(const registry::Recipe& recipe, std::int64_t gpus, std::int64_t nodes,
                                           double memory_mib, const std::optional<layout::GpuSpeed>& speed);

/// The GPUs a node holds in a tune of `gpus` GPUs over `nodes` nodes, as the planner sees them: G / N, and at least 8
/// on one node (a node of 8 GPUs lends a tune some of them).
std::int64_t tune_gpus_per_node(std::int64_t gpus, std::int64_t nodes);

/// A same-math swap tune may try (SPEC §4.2): one whose component test passed, at the model's layer shape, in a
/// recipe of the start's registry, and which the start does not make yet.
struct TuneSwap {
  std::string test;                                ///< the component test's id ("cross_entropy_loss_fusion")
  std::vector<checks::SwappedArgument> arguments;  ///< each argument with its two values, as the dump prints them
  std::string tested_in;                           ///< the recipe whose passed test allows it
};

/// The swaps tune may try from `start`: every same-math swap whose component test counts in a recipe of the same model
/// in the start's registry (registry::passed_component_tests: its raw output backs it, it passed, at the model's layer
/// shape), whose every argument the start's argument dump sets to the test's reference value and the Megatron-LM
/// argument table can write as a flag. Empty when the start is in no registry or has no argument dump.
std::vector<TuneSwap> tune_swaps(const registry::Recipe& start);

/// `base` with `swap` added: its command with the swap's arguments set to their recipe values, its knobs and name
/// saying so, and the planner's prediction for that command (registry::predicted_memory from `start_dump`, the one
/// the build recomputes; the base's when the start has no dump). nullopt when an argument cannot be written as a flag.
/// `index` numbers a name too long to keep.
std::optional<TuneCandidate> swap_candidate(const registry::Recipe& start, const TuneCandidate& base,
                                            const TuneSwap& swap, const evidence::ArgumentDump* start_dump,
                                            std::int64_t gpus, double memory_mib, std::size_t index);

/// The knobs of a training setup `t` that differ from `s` (TP, PP, VPP, the stage split, CP, EP, ETP, the micro-batch,
/// recompute, the distributed optimizer, sequence parallelism): {a folder-name tag, "-tp2-mbs4" (empty when none),
/// the changes in words, "TP 1 -> 2, micro-batch 16 -> 4" ("the start" when none)}. Names tune's candidates and
/// relayout's drafts.
std::pair<std::string, std::string> setup_changes(const layout::TrainingSetup& t, const layout::TrainingSetup& s);

/// TUNE_DIR/recipes/<model>/<gpu>/<name>: where tune writes candidate `name`'s draft recipe (the recipe its trials and
/// the winner's run ran, which submit checks the run against).
std::filesystem::path tune_draft_dir(const std::filesystem::path& tune_dir, const std::string& model,
                                     const std::string& gpu, const std::string& name);

}  // namespace openrecipes::run
