// slime and miles recipes through the build (SPEC §4.1): a recipe tuned from a slime or miles reference by a packing
// change (--max-tokens-per-gpu), by `relayout` to another GPU count, or with wandb on is eligible and verifies; one
// that changes the loss (--loss-type) or the sampling (--n-samples-per-prompt) is ineligible as math, with the rule's
// why. Each run's log is in the framework's real line formats (testing/slime_runs.h: Megatron-LM's argument dump, `step
// N:` and `perf N:` lines), its dump what the framework's own parser (registry/rules/options/) gives for the recipe's
// command.
#include <gtest/gtest.h>

#include "layout/relayout.h"
#include "scratch_registry.h"
#include "testing/slime_runs.h"

namespace openrecipes::registry {
namespace {

// The protocol's SFT flags for slime (notes/slime.md §1.9) on Qwen3-0.6B, one node of 8 GPUs, packed by a token
// budget; data/'s plugin reads the rows.
const std::string kCommand =
    "python3 <slime entry module> --actor-num-nodes 1 --actor-num-gpus-per-node 8 \\\n"
    "  --hf-checkpoint $HF_CHECKPOINT --prompt-data $SFT_DATA \\\n"
    "  --rollout-function-path pretokenized_sft_rollout.generate_rollout --disable-rollout-global-dataset \\\n"
    "  --num-rollout 20 --rollout-batch-size 128 --global-batch-size 128 \\\n"
    "  --loss-type sft_loss --calculate-per-token-loss --disable-compute-advantages-and-returns --debug-train-only \\\n"
    "  --num-layers 28 --hidden-size 1024 --ffn-hidden-size 3072 --num-attention-heads 16 --group-query-attention \\\n"
    "  --num-query-groups 8 --kv-channels 128 --qk-layernorm --swiglu --normalization RMSNorm --norm-epsilon 1e-6 \\\n"
    "  --position-embedding-type rope --rotary-base 1000000 --disable-bias-linear --vocab-size 151936 \\\n"
    "  --tensor-model-parallel-size 1 --use-dynamic-batch-size --max-tokens-per-gpu 16384 \\\n"
    "  --lr 1e-5 --min-lr 1e-6 --lr-decay-style cosine --weight-decay 0.1 --bf16 \\\n"
    "  --attention-dropout 0 --hidden-dropout 0\n";

constexpr double kStepTime = 4.5;
constexpr int kSpanS = 120;

const std::vector<double> kLoss = {2.0,  1.9,  1.85,  1.8,  1.76,  1.72, 1.69, 1.66, 1.63, 1.61,
                                   1.59, 1.57, 1.555, 1.54, 1.525, 1.51, 1.5,  1.49, 1.48, 1.47};

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in the command");
  return s.replace(at, from.size(), to);
}

struct SlimeRegistry {
  scratch::Scratch s;
  std::string framework;
  int runs = 0;
  explicit SlimeRegistry(std::string fw) : framework(std::move(fw)) {}

  // A recipe folder qwen3-0.6b/H200/<name> whose run is `command` on `gpus` GPUs (DP = gpus), tuned from `reference`.
  void add(const std::string& name, const std::string& command, std::int64_t gpus, const std::string& reference,
           const std::string& configuration = "eligible") {
    const auto dir = s.recipe(name);
    std::filesystem::create_directories(dir / "evidence");
    const auto dump = testing::slime_dump_values(command, framework);
    // Each recipe its own run: the same losses and step times, another gradient norm (one run is one recipe).
    s.write(dir / "evidence/train.log",
            testing::slime_run_log(dump, framework, 20, kLoss, kStepTime, 1.5 + 0.001 * static_cast<double>(runs++)));
    // What `run` records beside the log: the stack and the GPUs (nvidia-smi's query), and the launcher's clock.
    const std::string commit =
        framework == "slime" ? "624b824a898ab0ec1fcb4d373004c7f3852bf515" : "31f1ca961a94cb860cec3b2dea34ec332bfa8f76";
    std::string versions = fmt::format(
        "torch 2.11.0+cu130\ncuda 13.0\nnccl 2.28.9\ntransformer_engine 2.8.0\n{}_commit: {}\n"
        "megatron_lm_commit: d98e8a64ddf34856e74b24714e3bedb2f5a39553\n"
        "--- nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader\n",
        framework, commit);
    for (std::int64_t g = 0; g < gpus; ++g) versions += fmt::format("{}, NVIDIA H200, 580.159.04\n", g);
    s.write(dir / "evidence/versions.txt", versions);
    s.write(dir / "evidence/times.txt", fmt::format("run rc=0 start=1796288000 end={}\n", 1796288000 + kSpanS));
    std::string cmd;
    for (std::size_t at = 0, nl; at < command.size(); at = nl + 1) {
      nl = command.find('\n', at);
      cmd += "  " + command.substr(at, nl - at) + "\n";
    }
    // The claims, by hand: 128 rows x 8,192 tokens per 4.5 s step over `gpus` GPUs; constant steps (CV 0); the
    // launcher's 120 s on `gpus` GPUs.
    const double tokens = 128.0 * 8192 / kStepTime / static_cast<double>(gpus);
    const double gpu_hours = static_cast<double>(gpus) * kSpanS / 3600.0;
    s.write(dir / "recipe.yaml",
            fmt::format(R"(id: {name}
model: qwen3-0.6b
gpu: H200
gpus: {gpus}
author:
  github: openrecipes
date: 2026-12-03
reference: {reference}
workload:
  kind: non-standard
  key: {framework}-sft-test
  description: "test rows for a {framework} pair"
  row_length: 8192
  global_batch: 128
steps_per_run: 20
evidence:
  log: {{path: evidence/train.log, format: {framework}}}
  arguments: {{path: evidence/train.log, format: megatron-args}}
  versions: {{path: evidence/versions.txt, format: versions}}
  times: {{path: evidence/times.txt, format: launcher, run: run}}
command: |
{cmd}layout: {{tp: 1, pp: 1, cp: 1, ep: 1, etp: 1, dp: {gpus}, micro_batch: 1, max_tokens_per_gpu: {budget}}}
stack:
  framework: {{name: {framework}, commit: {commit}}}
  megatron_lm: d98e8a64ddf34856e74b24714e3bedb2f5a39553
  transformer_engine: 2.8.0
  pytorch: 2.11.0+cu130
  cuda: "13.0"
  nccl: 2.28.9
  gpus_per_node: 8
  network: none (one node)
claims:
  tokens_per_s_per_gpu: {tokens:.2f}
  cv: 0
  gpu_hours: {gpu_hours:.6f}
  configuration: {configuration}
  convergence: {{verdict: pass}}
)",
                        fmt::arg("name", name), fmt::arg("gpus", gpus),
                        fmt::arg("reference", reference.empty() ? "null" : "qwen3-0.6b/H200/" + reference),
                        fmt::arg("framework", framework), fmt::arg("cmd", cmd), fmt::arg("commit", commit),
                        fmt::arg("budget", dump.at("max_tokens_per_gpu")), fmt::arg("tokens", tokens),
                        fmt::arg("gpu_hours", gpu_hours), fmt::arg("configuration", configuration)));
  }
};

std::string problems_of(const RecipeResult& r) {
  std::string out;
  if (r.configuration)
    for (const auto& p : r.configuration->problems) out += p + "\n";
  return out + scratch::reasons_of(r);
}

class SlimeRecipes : public ::testing::TestWithParam<std::string> {};

TEST_P(SlimeRecipes, structural_and_bookkeeping_changes_verify_and_loss_or_sampling_changes_are_math) {
  SlimeRegistry reg(GetParam());
  std::string command = kCommand;
  reg.add("sref", command, 8, "");
  reg.add("packing", replaced(command, "--max-tokens-per-gpu 16384", "--max-tokens-per-gpu 24576"), 8, "sref");
  reg.add("wandb", replaced(command, "--bf16", "--bf16 --use-wandb --wandb-project sft --wandb-group qwen3"), 8,
          "sref");
  // relayout moves the reference to 4 GPUs: it rewrites --actor-num-gpus-per-node (slime places by Ray).
  layout::RelayoutRequest q;
  q.layout.dp = 8, q.layout.max_tokens_per_gpu = 16384;
  q.global_batch = 128, q.row_length = 8192, q.launch = layout::Launch::slime, q.gpus = 4;
  const auto moved = layout::relayout(q, command, "recipe.yaml: command");
  ASSERT_TRUE(moved.violations.empty());
  ASSERT_NE(moved.command.find("--actor-num-gpus-per-node 4"), std::string::npos) << moved.command;
  reg.add("relaid", moved.command, 4, "sref");
  reg.add("loss", replaced(command, "--loss-type sft_loss", "--loss-type policy_loss"), 8, "sref", "ineligible");
  reg.add("samples", replaced(command, "--rollout-batch-size 128", "--rollout-batch-size 128 --n-samples-per-prompt 2"),
          8, "sref", "ineligible");

  auto built = scratch::build(reg.s.root);
  EXPECT_TRUE(built.get("sref").verified) << scratch::reasons_of(built.get("sref"));
  for (const char* name : {"packing", "wandb", "relaid"}) {
    const auto& r = built.get(name);
    EXPECT_TRUE(r.verified) << name << "\n" << problems_of(r);
    ASSERT_TRUE(r.configuration) << name << "\n" << problems_of(r);
    EXPECT_TRUE(r.configuration->eligible) << name << "\n" << problems_of(r);
    EXPECT_FALSE(r.configuration->changes.empty()) << name;  // something did change
    for (const auto& ch : r.configuration->changes)
      EXPECT_NE(ch.classification.cls, checks::ArgClass::unclassified) << name << ": " << ch.name;
  }
  // What each eligible change was classed as, and why.
  auto change = [&](const char* recipe, const char* arg) -> const checks::ArgumentChange& {
    for (const auto& ch : built.get(recipe).configuration->changes)
      if (ch.name == arg) return ch;
    throw std::runtime_error(std::string(recipe) + " does not change " + arg);
  };
  EXPECT_EQ(change("packing", "max_tokens_per_gpu").classification.cls, checks::ArgClass::structural);
  EXPECT_EQ(change("relaid", "actor_num_gpus_per_node").classification.cls, checks::ArgClass::structural);
  EXPECT_EQ(change("relaid", "world_size").classification.cls, checks::ArgClass::bookkeeping);
  EXPECT_EQ(change("wandb", "use_wandb").classification.cls, checks::ArgClass::bookkeeping);
  EXPECT_NE(change("wandb", "use_wandb").note.find("experiment tracking"), std::string::npos);

  // Each ineligible recipe, with the change that makes it so.
  for (const auto& [recipe, problem] :
       {std::pair{"loss", "loss_type changed from sft_loss to policy_loss — math: loss, advantage, KL"},
        std::pair{"samples", "n_samples_per_prompt changed from 1 to 2 — math: data, batch and sampling"}}) {
    SCOPED_TRACE(recipe);
    const auto& r = built.get(recipe);
    ASSERT_TRUE(r.configuration);
    EXPECT_FALSE(r.configuration->eligible);
    EXPECT_NE(problems_of(r).find(problem), std::string::npos) << problems_of(r);
  }
  EXPECT_EQ(problems_of(built.get("samples")).find("unclassified"), std::string::npos)
      << problems_of(built.get("samples"));
}

INSTANTIATE_TEST_SUITE_P(Frameworks, SlimeRecipes, ::testing::Values("slime", "miles"));

}  // namespace
}  // namespace openrecipes::registry
