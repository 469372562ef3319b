// The planner against Megatron-LM's own CI runs (issue 41): every GPT and MoE run of tests/data/megatron_ci/cases.jsonl
// read as `plan --command` reads it (checks::read_command_run, the run's own GPU count) and its last pipeline stage's
// predicted peak (the rank Megatron's tensorboard writer reports) held to the measured `mem-max-allocated-bytes`.
// tools/plan_megatron_ci.py prints the same numbers through the binary for the README.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checks/megatron_arguments.h"
#include "checks/megatron_ci_cases.h"
#include "core/error.h"
#include "layout/memory.h"

namespace openrecipes::checks {
namespace {

constexpr double kMiB = 1048576.0;
constexpr std::int64_t kGpt2Vocab = 50257;  // the runs that read GPT-2's BPE files (--vocab-file, no --vocab-size)

// Runs outside max(10%, 512 MiB), each with what the model does not see. The test fails when one of them comes within
// (drop it here) or another falls outside.
// The LTS container on A100 peaks at its unfused-attention sibling's 2,966-3,007 MiB (the dev containers ran these at
// 2,035-2,403): its TE finds no flash or fused backend for --attention-backend auto, which the model reads as fused
// (docs/memory-model.md, "The container").
const std::set<std::string> kOutside = {
    "moe/gpt3_mcore_te_tp2_pp1_resume_torch_dist_te_8experts2parallel_dist_optimizer lts_dgx_a100",
    "moe/gpt3_mcore_te_tp2_pp1_resume_torch_dist_te_8experts2parallel_multi_dist_optimizer_instances lts_dgx_a100",
};

struct Tally {
  int runs = 0, accepted = 0, within = 0;
};

TEST(MegatronCiPlan, every_accepted_run_is_within_max_10_percent_or_512_mib_of_its_measured_last_rank_peak) {
  std::map<std::string, Tally> by_gpu;  // "H100", "A100" (dev and lts containers)
  int large = 0, large_within = 0;
  std::set<std::string> outside;
  for (const auto& r : cases()) {
    const std::string name = r.at("case"), env = r.at("environment"), platform = r.at("platform");
    const std::string key = fmt::format("{} {}_{}", name, env, platform);
    SCOPED_TRACE(key);
    Tally& tally = by_gpu[platform == "dgx_h100" ? "H100" : "A100"];
    ++tally.runs;
    const auto& args = r.at("arguments");
    const bool bpe = std::find(args.begin(), args.end(), "--vocab-file") != args.end() &&
                     std::find(args.begin(), args.end(), "--vocab-size") == args.end();
    std::optional<CommandRun> run;
    try {
      run = read_command_run(command_of(args), name, r.at("gpus").get<std::int64_t>(),
                             bpe ? std::optional<std::int64_t>(kGpt2Vocab) : std::nullopt);
    } catch (const InputError& e) {  // refused, naming what: an argument the model does not cover, or a broken rule
      EXPECT_THAT(e.what(), ::testing::AnyOf(::testing::HasSubstr(" is not modelled: "),
                                             ::testing::HasSubstr("its layout breaks a rule: ")));
      continue;
    }
    ++tally.accepted;
    const double predicted = layout::estimate_memory(run->shape, run->setup, run->setup.layout.pp - 1).peak_mib;
    const double measured = double(r.at("peak_bytes").get<std::int64_t>()) / kMiB;
    const bool within = std::abs(predicted - measured) <= std::max(0.10 * measured, 512.0);
    tally.within += within;
    if (!within) outside.insert(key);
    EXPECT_EQ(within, !kOutside.count(key)) << "predicted " << predicted << " MiB, measured " << measured << " MiB";
    if (measured >= 8 * 1024) {
      ++large;
      large_within += std::abs(predicted - measured) <= 0.10 * measured;
    }
  }
  // Issue 41's bars: 75% accepted; of those, 90% within on H100 and on A100 each; every run of 8 GiB or more within
  // 10%.
  const int runs = by_gpu["H100"].runs + by_gpu["A100"].runs;
  const int accepted = by_gpu["H100"].accepted + by_gpu["A100"].accepted;
  EXPECT_EQ(runs, 209);
  EXPECT_EQ(accepted, 193);  // the 16 refused: FSDP 6, FP8 3, --recompute-modules 3, Muon 2, MTP 1, a global batch
                             // of 2 rows on DP 8 (its run skips what it cannot fill)
  EXPECT_GE(accepted, 0.75 * runs);
  for (const auto& [gpu, t] : by_gpu) EXPECT_GE(t.within, 0.90 * t.accepted) << gpu;
  EXPECT_EQ(by_gpu["H100"].within, 69);
  EXPECT_EQ(by_gpu["A100"].within, 122);
  EXPECT_EQ(large, 4);
  EXPECT_EQ(large_within, large);
  EXPECT_EQ(outside.size(), kOutside.size());
}

}  // namespace
}  // namespace openrecipes::checks
