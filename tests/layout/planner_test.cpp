// The model-aware rules, the planner's search and relayout's suggestions (SPEC §6, §7), on the Qwen3-0.6B shape (16
// heads, 8 query groups, 28 layers: Hugging Face's config.json fields, as registry/models/qwen3-0.6b.yaml holds them)
// and on DeepSeek-V3 from ../shared/fixtures/configs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "core/files.h"
#include "layout/memory.h"
#include "layout/model_rules.h"
#include "layout/planner.h"
#include "layout/relayout.h"
#include "testing/support.h"

namespace openrecipes::layout {
namespace {

ModelShape qwen3_06b() {
  const auto config = nlohmann::json::parse(R"({"model_type": "qwen3", "hidden_size": 1024,
    "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
    "head_dim": 128, "vocab_size": 151936, "tie_word_embeddings": true})");
  return shape_from_config(config, "qwen3-0.6b config");
}

TrainingSetup setup(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t mbs) {
  TrainingSetup t;
  t.layout = Layout{tp, pp, 1, 1, 1, dp, std::nullopt, mbs, std::nullopt};  // dense: ETP 1
  t.row_length = 512;
  t.global_batch = 32;
  t.impl = Impl::local;
  return t;
}

TEST(ModelRules, ShapeFromConfig) {
  const auto m = qwen3_06b();
  EXPECT_EQ(m.layers, 28);
  EXPECT_EQ(m.heads, 16);
  EXPECT_EQ(m.query_groups, 8);
  // N's classes (registry/models/qwen3-0.6b.yaml): attention 176,160,768, dense MLP 264,241,152, output 155,582,464.
  EXPECT_EQ(m.attention_params, 176160768);
  EXPECT_EQ(m.dense_mlp_params, 264241152);
  EXPECT_EQ(m.embedding_params, 155582464);
}

TEST(ModelRules, WhatMegatronRefusesAtStartUp) {
  const auto m = qwen3_06b();
  EXPECT_TRUE(model_violations(m, setup(1, 1, 8, 4)).empty());
  EXPECT_TRUE(model_violations(m, setup(8, 1, 1, 4)).empty());  // 16 heads, 8 groups: TP 8 divides both
  // TP 16: a multiple of the 8 groups, which Megatron allows (each rank keeps one key/value head).
  EXPECT_TRUE(model_violations(m, setup(16, 1, 1, 4)).empty());
  EXPECT_EQ(model_violations(m, setup(32, 1, 1, 4)).size(), 1u);  // 32 does not divide the 16 heads
  EXPECT_EQ(model_violations(m, setup(12, 1, 1, 4)).size(), 2u);  // nor 16 heads, nor 8 groups' multiple
  EXPECT_EQ(model_violations(m, setup(3, 1, 2, 4)).size(), 2u);   // neither
  EXPECT_EQ(model_violations(m, setup(1, 8, 1, 4)).size(), 1u);   // 28 layers over 8 stages
  auto etp = setup(2, 1, 4, 4);
  etp.layout.etp = 2;  // a dense model has no experts to split (a hostile review: --etp 8 was planned for Llama)
  EXPECT_EQ(model_violations(m, etp).size(), 1u);
  // The embedding and the loss counted as layers (transformer_config.py): 28 + 2 over PP 5 (6 a stage, VPP 2 or 3)
  // or PP 6 (5), not PP 4; with one counted, 29: no PP but 29.
  auto counted = setup(1, 5, 1, 4);
  counted.global_batch = 20;
  counted.embedding_in_split = counted.loss_in_split = true;
  EXPECT_TRUE(model_violations(m, counted).empty());
  counted.layout.vpp = 3;
  EXPECT_TRUE(model_violations(m, counted).empty());
  counted.layout.vpp = 4;  // 6 counted layers a stage do not split into 4 chunks
  EXPECT_EQ(model_violations(m, counted).size(), 1u);
  counted.layout.vpp.reset();
  counted.loss_in_split = false;
  EXPECT_EQ(model_violations(m, counted).size(), 1u);
  counted.loss_in_split = true;
  counted.last_stage_layers = 5;  // both ways of an uneven split at once
  EXPECT_EQ(model_violations(m, counted).size(), 1u);
  // Interleaving: whole rounds of PP micro-batches (32 rows / (DP 2 x 4) = 4 micro-batches, PP 4: one round).
  auto vpp = setup(1, 4, 2, 4);
  vpp.layout.vpp = 7;
  EXPECT_TRUE(model_violations(m, vpp).empty());
  vpp.layout.micro_batch = 8;  // 2 micro-batches: not a multiple of PP 4
  EXPECT_EQ(model_violations(m, vpp).size(), 1u);
  vpp.layout.micro_batch = 4;
  vpp.layout.vpp = 1;
  EXPECT_EQ(model_violations(m, vpp).size(), 1u);
  auto ep = setup(1, 1, 8, 4);
  ep.layout.ep = 2;
  EXPECT_EQ(model_violations(m, ep).front().what, "EP 2 on a model without experts");
  auto sp = setup(1, 1, 8, 4);
  sp.sequence_parallel = true;
  EXPECT_EQ(model_violations(m, sp).front().what, "sequence parallelism needs TP > 1");
  auto cp = setup(1, 1, 4, 4);
  cp.layout.cp = 2;
  EXPECT_EQ(model_violations(m, cp).size(), 1u);  // local attention has no CP
  cp.impl = Impl::te;
  EXPECT_TRUE(model_violations(m, cp).empty());
  EXPECT_EQ(model_violations(m, setup(1, 1, 8, 16)).size(), 1u);  // 32 rows / (DP 8 x 16)
  // TP 16 is refused above; TP 16 of a model that takes it still warns across two 8-GPU nodes.
  EXPECT_EQ(model_warnings(setup(16, 1, 1, 4), 8).size(), 1u);
}

TEST(ModelRules, MoeWithTensorParallelismNeedsSequenceParallelism) {
  ModelShape m = qwen3_06b();
  m.experts = 128;
  m.top_k = 8;
  m.expert_ffn_hidden = 768;
  m.moe_layers = m.layers;
  auto t = setup(2, 1, 4, 4);
  EXPECT_EQ(model_violations(m, t).size(), 1u);
  t.sequence_parallel = true;
  EXPECT_TRUE(model_violations(m, t).empty());
}

TEST(Plan, FixingEveryKnobGivesExactlyOneLayout) {
  PlanRequest q;
  q.gpus = 8;
  q.row_length = 512;
  q.global_batch = 32;
  q.tp = 2, q.pp = 1, q.cp = 1, q.ep = 1, q.etp = 1, q.micro_batch = 4;
  q.recompute = Recomputation{Recompute::selective, 1};
  q.distributed_optimizer = true;
  q.sequence_parallel = true;
  q.impl = Impl::local;
  const auto plans = plan_layouts(qwen3_06b(), q);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].setup.layout.dp, 4);
}

// A request of PP = `gpus` (DP 1) on rows of 512 tokens, `gbs` a step, the local implementation.
PlanRequest pipeline_request(std::int64_t gpus, std::int64_t gbs) {
  PlanRequest q;
  q.gpus = gpus;
  q.pp = gpus;
  q.row_length = 512;
  q.global_batch = gbs;
  q.impl = Impl::local;
  return q;
}

// Qwen3-0.6B's 28 layers: PP 3 does not divide them but divides 28 + 2, so every PP 3 layout counts the embedding and
// the loss as layers (9, 10, 9 a stage; VPP over the divisors of 10); PP 8 divides neither 28 nor 30: the middle
// stages take ceil(28 / 8) = 4 layers and the first and last 2 each, through the first/last-stage counts.
// --grad-reduce-in-bf16 is the request's.
TEST(Plan, ProposesTheEmbeddingAndLossCountedWherePpDividesTheLayersPlusTwo) {
  PlanRequest q = pipeline_request(3, 30);
  q.grads_16bit = true;
  const auto m = qwen3_06b();
  std::set<std::int64_t> vpps;
  const auto plans = plan_layouts(m, q);
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) {
    EXPECT_TRUE(p.setup.embedding_in_split && p.setup.loss_in_split);
    EXPECT_FALSE(p.setup.first_stage_layers || p.setup.last_stage_layers);
    EXPECT_TRUE(p.setup.grads_16bit);
    EXPECT_EQ(stage_layers(m, p.setup), (std::vector<std::int64_t>{9, 10, 9}));
    vpps.insert(p.setup.layout.vpp.value_or(1));
  }
  EXPECT_EQ(vpps, (std::set<std::int64_t>{1, 2, 5, 10}));
  q.gpus = 8;
  q.pp = 8;
  q.global_batch = 32;
  for (const auto& p : plan_layouts(m, q)) {
    EXPECT_FALSE(p.setup.embedding_in_split || p.setup.loss_in_split);
    EXPECT_EQ(stage_layers(m, p.setup), (std::vector<std::int64_t>{2, 4, 4, 4, 4, 4, 4, 2}));
  }
}

// Seven layers over PP 4: PP divides neither 7 nor 7 + 2, but 7 + 1. Megatron-LM counts one of the embedding and the
// loss as a layer (get_num_layers_to_build): 2 counted a stage, the first stage (embedding counted) or the last (loss
// counted) one fewer. Both are planned, each with VPP 1 and 2 (a chunk of one counted layer), never the first/last-
// stage counts.
TEST(Plan, ProposesTheEmbeddingOrTheLossCountedWherePpDividesTheLayersPlusOne) {
  PlanRequest q = pipeline_request(4, 32);
  auto m = qwen3_06b();
  m.layers = 7;
  std::set<std::pair<std::vector<std::int64_t>, std::int64_t>> seen;  // stage layers, VPP
  const auto plans = plan_layouts(m, q);
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) {
    EXPECT_NE(p.setup.embedding_in_split, p.setup.loss_in_split);
    EXPECT_FALSE(p.setup.first_stage_layers || p.setup.last_stage_layers);
    seen.insert({stage_layers(m, p.setup), p.setup.layout.vpp.value_or(1)});
  }
  const std::vector<std::int64_t> embedding{1, 2, 2, 2}, loss{2, 2, 2, 1};
  EXPECT_EQ(seen, (std::set<std::pair<std::vector<std::int64_t>, std::int64_t>>{
                      {embedding, 1}, {embedding, 2}, {loss, 1}, {loss, 2}}));
}

// A recipe's own split planned as given (plan --from, tune's start): first and last stages of 8 around 12 on PP 3,
// which the planner's own rule would count the embedding and loss for; and the counted split at PP 2 with VPP 3 (30 / 2
// = 15 a stage, 5 a chunk), which the even split (14 a stage) cannot take.
TEST(Plan, ARecipesOwnSplitIsPlannedAsGiven) {
  PlanRequest q = pipeline_request(3, 30);
  q.split = PlanRequest::Split{8, 8, false, false};
  const auto m = qwen3_06b();
  auto plans = plan_layouts(m, q);
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) EXPECT_EQ(stage_layers(m, p.setup), (std::vector<std::int64_t>{8, 12, 8}));
  q.gpus = 2;
  q.pp = 2;
  q.global_batch = 32;
  q.split = PlanRequest::Split{std::nullopt, std::nullopt, true, true};
  plans = plan_layouts(m, q);  // the recipe's own runs without VPP: no VPP variant (15 a stage would take 3 or 5)
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) EXPECT_FALSE(p.setup.layout.vpp);
  q.vpp = 3;
  q.global_batch = 32;
  q.split = PlanRequest::Split{std::nullopt, std::nullopt, true, true};
  plans = plan_layouts(m, q);
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) EXPECT_TRUE(p.setup.embedding_in_split && p.setup.layout.vpp == 3);
  q.split.reset();  // the planner's own choice: VPP 3 only with the embedding and loss counted
  plans = plan_layouts(m, q);
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) EXPECT_TRUE(p.setup.embedding_in_split && p.setup.loss_in_split);
}

TEST(Plan, EveryLayoutIsValidAndTheFittingOnesComeFirst) {
  PlanRequest q;
  q.gpus = 8;
  q.memory_mib = 81559;
  q.impl = Impl::local;
  const auto m = qwen3_06b();
  const auto plans = plan_layouts(m, q);
  ASSERT_FALSE(plans.empty());
  bool seen_unfit = false;
  for (const auto& p : plans) {
    EXPECT_TRUE(model_violations(m, p.setup).empty());
    EXPECT_EQ(p.setup.layout.tp * p.setup.layout.pp * p.setup.layout.cp * p.setup.layout.dp, 8);
    EXPECT_EQ(p.fits, p.memory.peak_mib <= usable_memory_mib(81559));
    if (!p.fits)
      seen_unfit = true;
    else
      EXPECT_FALSE(seen_unfit) << "a fitting layout after one that does not fit";
  }
  EXPECT_TRUE(seen_unfit);  // at L 8192, micro-batch 16 of local attention does not fit an H100
}

// A hostile review: plan --model planned the config's own vocabulary and a dense model's ETP as TP, where plan
// --command (a run's arguments) pads the vocabulary and reads ETP 1: the same layout got two peaks. Megatron-LM pads
// to a multiple of 128 x TP: Qwen3-0.6B's 151,936 (1,187 x 128) stays at TP 1, becomes 152,064 (594 x 256) at TP 2
// and 152,576 (149 x 1,024) at TP 8.
TEST(Plan, AConfigsVocabularyIsPaddedAtEachLayoutsTpAndADenseModelsEtpIsOne) {
  const ModelShape m = qwen3_06b();
  EXPECT_EQ(with_padded_vocab(m, 1).vocab, 151936);
  EXPECT_EQ(with_padded_vocab(m, 2).vocab, 152064);
  EXPECT_EQ(with_padded_vocab(m, 8).vocab, 152576);
  EXPECT_EQ(with_padded_vocab(m, 8).embedding_params, std::int64_t{152576} * 1024);
  EXPECT_EQ(with_padded_vocab(m, 8).active_params() - m.active_params(), std::int64_t{152576 - 151936} * 1024);
  PlanRequest q;
  q.gpus = 8;
  q.memory_mib = 81559;
  q.pad_vocab = true;
  std::set<std::int64_t> tps;
  for (const auto& p : plan_layouts(m, q)) {
    const auto& t = p.setup;
    tps.insert(t.layout.tp);
    EXPECT_EQ(t.layout.etp, 1);
    EXPECT_EQ(p.memory.peak_mib, estimate_memory(with_padded_vocab(m, t.layout.tp), t).peak_mib);
  }
  EXPECT_EQ(tps, (std::set<std::int64_t>{1, 2, 4, 8}));
  // At TP 8 the padded rows are weights the unpadded shape does not hold.
  q.tp = 8, q.pp = 1, q.micro_batch = 1, q.recompute = Recomputation{Recompute::none, 1};
  q.distributed_optimizer = false;
  const auto padded = plan_layouts(m, q);
  ASSERT_EQ(padded.size(), 1u);
  q.pad_vocab = false;
  const auto as_given = plan_layouts(m, q);
  ASSERT_EQ(as_given.size(), 1u);
  EXPECT_GT(padded[0].memory.peak_mib, as_given[0].memory.peak_mib);
}

TEST(Plan, DeepSeekV3On256GpusEveryLayoutIsWhole) {
  OPENRECIPES_REQUIRE_FIXTURE_FILE(testing::fixtures_dir() / "configs/DeepSeek-V3/config.json");
  const auto config = nlohmann::json::parse(read_file(testing::fixtures_dir() / "configs/DeepSeek-V3/config.json"));
  const auto m = shape_from_config(config, "DeepSeek-V3");
  EXPECT_TRUE(m.mla);
  EXPECT_EQ(m.moe_layers, 58);  // first_k_dense_replace 3 of 61
  PlanRequest q;
  q.gpus = 256;
  q.memory_mib = 143771;
  const auto t0 = std::chrono::steady_clock::now();
  const auto plans = plan_layouts(m, q);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(plans.size(), 1000u);
  EXPECT_TRUE(plans.front().fits);
  for (const auto& p : plans) {
    EXPECT_EQ(256 % (p.setup.layout.ep * p.setup.layout.etp * p.setup.layout.pp), 0);
    EXPECT_EQ(256 % p.setup.layout.ep, 0);
  }
  EXPECT_LT(seconds, 5.0);  // the bench (bench/plan.sh) measures the 1 s target without sanitizers
}

// best_layouts on several GPU types at once is plan_layouts' first k on each: the same setups, peaks and predicted
// steps in the same order, the smallest peak of every layout, and the counts.
void expect_best_is_plan_head(const ModelShape& m, PlanRequest q, const std::vector<GpuChoice>& gpus, std::size_t k) {
  const auto best = best_layouts(m, q, gpus, k);
  ASSERT_EQ(best.size(), gpus.size());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    q.memory_mib = gpus[g].memory_mib;
    q.speed = gpus[g].speed;
    const auto plans = plan_layouts(m, q);
    std::size_t fitting = 0;
    double smallest = plans.front().memory.peak_mib;
    for (const auto& p : plans) {
      fitting += p.fits;
      smallest = std::min(smallest, p.memory.peak_mib);
    }
    EXPECT_EQ(best[g].layouts, plans.size());
    EXPECT_EQ(best[g].fitting, fitting);
    ASSERT_TRUE(best[g].smallest_peak);
    EXPECT_EQ(best[g].smallest_peak->memory.peak_mib, smallest);
    // Among equal smallest peaks, plan's first (the faster): a model page and plan name one layout when none fits
    // (a hostile review: GLM-4.5-Air on 8 H100s, EP 1 x ETP 8 at 177 s on the page, EP 8 at 103 s in plan).
    const auto head =
        std::find_if(plans.begin(), plans.end(), [&](const PlannedLayout& p) { return p.memory.peak_mib == smallest; });
    EXPECT_EQ(best[g].smallest_peak->setup.layout, head->setup.layout);
    EXPECT_EQ(best[g].smallest_peak->setup.recompute, head->setup.recompute);
    // and that layout's own estimate (equal peaks may split differently over stages and terms)
    const MemoryEstimate& shown = best[g].smallest_peak->memory;
    EXPECT_EQ(shown.stage, head->memory.stage);
    EXPECT_EQ(shown.moment, head->memory.moment);
    ASSERT_EQ(shown.terms.size(), head->memory.terms.size());
    for (std::size_t i = 0; i < shown.terms.size(); ++i) {
      EXPECT_EQ(shown.terms[i].name, head->memory.terms[i].name);
      EXPECT_EQ(shown.terms[i].mib, head->memory.terms[i].mib) << shown.terms[i].name;
    }
    ASSERT_EQ(best[g].best.size(), std::min(k, fitting));
    for (std::size_t i = 0; i < best[g].best.size(); ++i) {
      const auto& a = best[g].best[i];
      const auto& b = plans[i];
      EXPECT_EQ(a.setup.layout, b.setup.layout) << "GPU " << g << " layout " << i;
      EXPECT_EQ(a.setup.recompute.kind, b.setup.recompute.kind);
      EXPECT_EQ(a.setup.distributed_optimizer, b.setup.distributed_optimizer);
      EXPECT_EQ(a.memory.peak_mib, b.memory.peak_mib);
      EXPECT_EQ(a.step_time->step_time_s, b.step_time->step_time_s);
      EXPECT_EQ(a.warnings, b.warnings);
    }
  }
}

TEST(Plan, BestLayoutsOnSeveralGpuTypesAreEachPlansFirstLayouts) {
  // Round rates: an 80 GB and a 141 GB GPU of different speeds, so the two orders differ.
  const GpuChoice small{81559, {989, 1979, 3350, 900, 3200, 8, 8}};
  const GpuChoice large{143771, {989, 1979, 4800, 900, 3200, 8, 8}};
  PlanRequest q;
  q.gpus = 8;
  expect_best_is_plan_head(qwen3_06b(), q, {small, large}, 5);
  q.row_length = 512;
  q.global_batch = 32;
  q.impl = Impl::local;
  expect_best_is_plan_head(qwen3_06b(), q, {large}, 40);  // ties of predicted step keep plan's enumeration order
  OPENRECIPES_REQUIRE_FIXTURE_FILE(testing::fixtures_dir() / "configs/DeepSeek-V3/config.json");
  const auto config = nlohmann::json::parse(read_file(testing::fixtures_dir() / "configs/DeepSeek-V3/config.json"));
  PlanRequest big;
  big.gpus = 128;
  expect_best_is_plan_head(shape_from_config(config, "DeepSeek-V3"), big, {small, large}, 3);
  // GLM-4.5-Air on 8 GPUs of 80 GB, as its model page plans it: none fits, and the smallest peak (231,037 MiB) is a
  // tie of TP 8 with EP 1 x ETP 8 and with EP 8 x ETP 1, plan's first the faster (a hostile review's case).
  OPENRECIPES_REQUIRE_FIXTURE_FILE(testing::fixtures_dir() / "configs/GLM-4.5-Air/config.json");
  const auto glm = nlohmann::json::parse(read_file(testing::fixtures_dir() / "configs/GLM-4.5-Air/config.json"));
  PlanRequest page;
  page.gpus = 8;
  page.pad_vocab = true;
  expect_best_is_plan_head(shape_from_config(glm, "GLM-4.5-Air"), page, {small}, 1);
}

TEST(Relayout, Tulu3Mbs16ToEightGpusSuggestsMicroBatchFourAndTp) {
  RelayoutRequest q;
  q.layout = setup(1, 1, 1, 16).layout;
  q.global_batch = 32;
  q.row_length = 512;
  q.gpus = 8;
  q.model = qwen3_06b();
  q.setup = setup(1, 1, 1, 16);
  q.memory_mib = 143771;
  const std::string command =
      "torchrun --nproc-per-node 1 pretrain_gpt.py --micro-batch-size 16 --global-batch-size 32";
  const auto r = relayout(q, command, "recipe.yaml: command");
  ASSERT_FALSE(r.violations.empty());  // DP 8 x 16 rows > 32
  ASSERT_GE(r.suggestions.size(), 2u);
  // The least disruptive change: micro-batch 4 (32 rows / DP 8), TP kept.
  EXPECT_EQ(r.suggestions[0].what, "micro-batch 16 -> 4");
  EXPECT_EQ(r.suggestions[0].setup.layout.dp, 8);
  bool tp = false;
  for (const auto& s : r.suggestions) tp |= s.setup.layout.tp > 1 && s.setup.layout.micro_batch == 16;
  EXPECT_TRUE(tp) << "no TP suggestion keeping micro-batch 16 (TP 4: DP 2 x 16 = 32)";
  RelayoutRequest again = q;
  again.micro_batch = 4;
  const auto fixed = relayout(again, command, "recipe.yaml: command");
  EXPECT_TRUE(fixed.violations.empty());
  EXPECT_EQ(fixed.command, "torchrun --nproc-per-node 8 pretrain_gpt.py --micro-batch-size 4 --global-batch-size 32");
}

// A recipe that counts the embedding and the loss in the split (28 + 2 layers over PP 3) relaid out to PP 4: PP 4
// divides the 28 layers but not 30, so the split becomes even and the flags leave the command, with a note; to PP 5
// (30 / 5) they stay.
TEST(Relayout, TheEmbeddingAndLossCountedLeaveWhereTheNewPpDividesTheLayers) {
  RelayoutRequest q;
  q.setup = setup(1, 3, 1, 1);
  q.setup.embedding_in_split = q.setup.loss_in_split = true;
  q.layout = q.setup.layout;
  q.global_batch = 32;
  q.row_length = 512;
  q.gpus = 4;
  q.pp = 4;
  q.model = qwen3_06b();
  q.memory_mib = 143771;
  const std::string command =
      "torchrun --nproc-per-node 3 pretrain_gpt.py --pipeline-model-parallel-size 3 "
      "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split --micro-batch-size 1";
  const auto r = relayout(q, command, "recipe.yaml: command");
  ASSERT_TRUE(r.violations.empty()) << r.violations.front().what;
  EXPECT_EQ(r.command,
            "torchrun --nproc-per-node 4 pretrain_gpt.py --pipeline-model-parallel-size 4 --micro-batch-size 1");
  EXPECT_FALSE(r.setup->embedding_in_split || r.setup->loss_in_split);
  EXPECT_THAT(r.notes, ::testing::Contains(::testing::HasSubstr("no longer counted in the pipeline split")));
  RelayoutRequest five = q;
  five.gpus = 5;
  five.pp = 5;
  const auto kept = relayout(five, command, "recipe.yaml: command");
  ASSERT_TRUE(kept.violations.empty()) << kept.violations.front().what;
  EXPECT_TRUE(kept.setup->embedding_in_split && kept.setup->loss_in_split);
  EXPECT_NE(kept.command.find("--account-for-loss-in-pipeline-split"), std::string::npos);
  // Under VPP 2 (5 counted layers a chunk on PP 3) to PP 2: counted, 15 a stage would not split into 2 chunks; even,
  // 14 do. The split the new PP and VPP take, not the count alone (a review's case: refused before).
  RelayoutRequest two = q;
  two.setup.layout.vpp = 2;
  two.layout = two.setup.layout;
  two.gpus = 4;
  two.pp = 2;
  const auto even = relayout(two, command + " --num-virtual-stages-per-pipeline-rank 2", "recipe.yaml: command");
  ASSERT_TRUE(even.violations.empty()) << even.violations.front().what;
  EXPECT_FALSE(even.setup->embedding_in_split || even.setup->loss_in_split);
}

// A recipe of Qwen3-0.6B's shape with `layers` layers that counts the loss alone in its split, at PP `pp` and
// micro-batch `mbs` (TP 1, DP 1, rows of 512, 32 a step), relaid out to `gpus` GPUs.
RelayoutRequest loss_counted_recipe(std::int64_t layers, std::int64_t pp, std::int64_t mbs, std::int64_t gpus) {
  RelayoutRequest q;
  q.model = qwen3_06b();
  q.model->layers = layers;
  q.setup = setup(1, pp, 1, mbs);
  q.setup.loss_in_split = true;
  q.layout = q.setup.layout;
  q.global_batch = 32;
  q.row_length = 512;
  q.gpus = gpus;
  q.memory_mib = 143771;
  return q;
}

// A recipe that counts the loss alone (14 + 1 layers over PP 5) relaid out to PP 8: 8 divides neither 14 nor 15 but
// 16, so the embedding is counted too (the split the planner proposes there), the command gains its flag, with a note.
TEST(Relayout, ACountedSplitTakesTheSplitItsNewPpNeeds) {
  RelayoutRequest q = loss_counted_recipe(14, 5, 1, 8);
  q.pp = 8;
  const std::string command =
      "torchrun --nproc-per-node 5 pretrain_gpt.py --pipeline-model-parallel-size 5 "
      "--account-for-loss-in-pipeline-split --micro-batch-size 1";
  const auto r = relayout(q, command, "recipe.yaml: command");
  ASSERT_TRUE(r.violations.empty()) << r.violations.front().what;
  EXPECT_TRUE(r.setup->embedding_in_split && r.setup->loss_in_split);
  EXPECT_NE(r.command.find("--account-for-embedding-in-pipeline-split"), std::string::npos) << r.command;
  EXPECT_THAT(r.notes, ::testing::Contains(::testing::HasSubstr(
                           "the embedding and the loss counted in the pipeline split, not the loss: PP 8 divides the "
                           "14 layers + 2")));
}

// A recipe that counts the loss alone (32 + 1 layers over PP 3, 11 a stage) and does not fit at its micro-batch of 8:
// the suggestions change knobs and keep the command's split, so they keep PP 3 with the loss counted (they used to
// drop every split but the even one, and with it PP 3).
TEST(Relayout, SuggestionsKeepTheRecipesOwnCountedSplit) {
  RelayoutRequest q = loss_counted_recipe(32, 3, 8, 3);
  const ModelShape& m = *q.model;
  TrainingSetup small = q.setup;
  small.layout.micro_batch = 1;
  const double between = (estimate_memory(m, q.setup).peak_mib + estimate_memory(m, small).peak_mib) / 2;
  q.memory_mib = between / 0.9 + 1024;  // usable_memory_mib: (memory - 1 GiB) x 0.9
  const std::string command =
      "torchrun --nproc-per-node 3 pretrain_gpt.py --num-layers 32 --pipeline-model-parallel-size 3 "
      "--account-for-loss-in-pipeline-split --micro-batch-size 8";
  const auto r = relayout(q, command, "recipe.yaml: command");
  ASSERT_FALSE(r.suggestions.empty());
  bool pp3 = false;
  for (const auto& s : r.suggestions) {
    EXPECT_TRUE(s.setup.loss_in_split && !s.setup.embedding_in_split) << s.what;
    pp3 = pp3 || s.setup.layout.pp == 3;
  }
  EXPECT_TRUE(pp3);
}

}  // namespace
}  // namespace openrecipes::layout
