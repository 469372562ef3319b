// The memory model (SPEC §7; docs/memory-model.md): per-GPU peak = static state + the largest transient moment.
// Byte counts per token are the tensors autograd keeps in Megatron-LM d98e8a64's layers; the constants marked
// "calibrated" were read off the planner's ground truth (tests/data/memory/, one H200).
#include "layout/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::layout {
namespace {

constexpr double kMiB = 1048576.0;
constexpr std::int64_t kMaxStages = std::int64_t{1} << 16;
// Calibrated: what Megatron holds beyond its parameters, gradients, optimizer state and attention buffer once a step
// is over (cuBLAS and cuBLASLt workspaces, RoPE tables, loss buffers): 66-81 MiB on every ground-truth run.
constexpr double kWorkspaceMiB = 70;
// Bytes per logit at the loss: Megatron's vocab-parallel cross-entropy upcasts the BF16 logits (2 B) to FP32 (4 B)
// and keeps the FP32 softmax for backward; the fused native cross-entropy (--cross-entropy-loss-fusion) keeps 4 B more
// (calibrated: tulu3-cefusion and q28-mbs2-s4096-none-cefusion).
constexpr double kLogitBytes = 6, kFusedLogitBytes = 10;
// Score-sized (b × heads × s × s, BF16) tensors alive at once in the backward of local core attention on top of the
// stored activations: the recomputed probabilities, their gradient, the softmax backward's output and the masked
// fill's (selective recompute, calibrated 3.9-4.0 on the ground truth); one fewer when the probabilities are stored.
constexpr double kScoreTensorsRecomputed = 4, kScoreTensorsStored = 3;

std::int64_t positive(std::int64_t v, const char* what) {
  if (v < 1) throw InputError(what, fmt::format("{} is not a size (at least 1)", v), "give a positive whole number");
  return v;
}

// Micro-batches whose activations pipeline stage `stage` holds at once, in whole-stage units (Megatron-LM d98e8a64
// schedules.py get_pp_rank_microbatches: the warm-up forwards plus the first steady-state one, capped at the step's).
// 1F1B: PP - stage. Interleaved (VPP v chunks a rank, groups of g micro-batches, g = PP by default): (PP - stage - 1)
// x 2 + (v - 1) x g chunk forwards of warm-up (one more with --overlap-moe-expert-parallel-comm), + 1, out of M x v;
// each chunk holds 1/v of the stage's layers. With the embedding or loss counted in the split the chunks differ (the
// first stage's chunk 0 and the last stage's chunk v - 1 hold a layer fewer): the warm-up runs g forwards of chunk 0,
// then g of chunk 1, ..., so the in-flight forwards' own layers are summed, over the stage's.
double micro_batches_in_flight(const ModelShape& m, const TrainingSetup& t, std::int64_t stage, double micro_batches) {
  const std::int64_t P = t.layout.pp;
  if (P == 1) return 1.0;
  if (!t.layout.vpp) return std::min(double(P - stage), micro_batches);
  const std::int64_t v = *t.layout.vpp, group = t.microbatch_group.value_or(P);
  const double chunks =
      double(P - stage - 1) * 2 + double((v - 1) * group) + (t.overlap_moe_expert_parallel_comm ? 1 : 0) + 1;
  const double in_flight = std::min(chunks, micro_batches * double(v));
  if (!t.embedding_in_split && !t.loss_in_split) return in_flight / double(v);
  const std::int64_t e = t.embedding_in_split ? 1 : 0, l = t.loss_in_split ? 1 : 0;
  const std::int64_t c = split_layers(m, t) / (P * v);  // a chunk's layers, the embedding and loss counted
  auto chunk_layers = [&](std::int64_t k) {
    return c - (stage == 0 && k == 0 ? e : 0) - (stage == P - 1 && k == v - 1 ? l : 0);
  };
  double held = 0, total = 0;
  for (std::int64_t k = 0; k < v; ++k) total += double(chunk_layers(k));
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(in_flight); ++i) held += double(chunk_layers((i / group) % v));
  return total > 0 ? held / total : in_flight / double(v);
}

}  // namespace

StageParameters stage_parameters(const ModelShape& m, const Layout& l, double Ls, double moe_in, bool first,
                                 bool last) {
  const double share = m.layers > 0 ? Ls / double(m.layers) : 0, dense_in = Ls - moe_in, tp = double(l.tp);
  StageParameters out;
  out.dense = (double(m.attention_params) * share + per_count(m.dense_mlp_params, m.dense_layers()) * dense_in +
               per_count(m.shared_expert_params, m.moe_layers) * moe_in) /
                  tp +
              per_count(m.router_params, m.moe_layers) * moe_in + double(m.norm_params) * share;
  if (first) out.dense += double(m.embedding_params) / tp + double(m.position_params);  // positions: not split by TP
  if (last && (l.pp > 1 || !m.tied)) out.dense += double(m.embedding_params) / tp;
  out.experts = per_count(m.expert_params, m.moe_layers) * moe_in / double(l.ep * l.etp);
  return out;
}

std::optional<Recomputation> parse_recompute(const std::string& text) {
  if (text == "none") return Recomputation{};
  if (text == "selective") return Recomputation{Recompute::selective, 1};
  if (text == "full") return Recomputation{Recompute::full_uniform, 1};
  for (auto [prefix, kind] : {std::pair{"full:", Recompute::full_uniform}, std::pair{"block:", Recompute::full_block}})
    if (text.rfind(prefix, 0) == 0) {
      auto n = parse_int(std::string_view(text).substr(std::string_view(prefix).size()));
      if (n && *n >= 1 && *n <= 4096) return Recomputation{kind, *n};
    }
  return std::nullopt;
}

Recomputation require_recompute(const std::string& text, const std::string& option) {
  if (auto r = parse_recompute(text)) return *r;
  throw InputError(option, quote_for_message(text) + " is not a recompute mode",
                   "give none, selective, full, full:N (N layers a chunk) or block:N");
}

std::string recompute_name(const Recomputation& r) {
  switch (r.kind) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full_uniform:
      return r.layers == 1 ? "full" : fmt::format("full:{}", r.layers);
    case Recompute::full_block:
      return fmt::format("block:{}", r.layers);
  }
  return "none";
}

void pack_micro_batches(TrainingSetup& t, std::int64_t max_tokens_per_gpu, std::int64_t cp) {
  t.layout.micro_batch = 1;
  t.row_length = max_tokens_per_gpu * cp;
}

std::int64_t split_layers(const ModelShape& m, const TrainingSetup& t) {
  return m.layers + (t.embedding_in_split ? 1 : 0) + (t.loss_in_split ? 1 : 0);
}

const char* counted_in_split(const TrainingSetup& t) {
  return t.embedding_in_split && t.loss_in_split ? "the embedding and the loss"
         : t.embedding_in_split                  ? "the embedding"
         : t.loss_in_split                       ? "the loss"
                                                 : "";
}

bool uneven_split(const TrainingSetup& t) {
  return t.first_stage_layers || t.last_stage_layers || t.embedding_in_split || t.loss_in_split;
}

std::vector<std::int64_t> stage_layers(const ModelShape& m, const TrainingSetup& t) {
  const std::int64_t p = positive(t.layout.pp, "PP");
  if (p > kMaxStages) throw InputError("PP", fmt::format("{} is over {}", p, kMaxStages), "give a real PP");
  std::vector<std::int64_t> out(static_cast<std::size_t>(p), 0);
  if (t.embedding_in_split || t.loss_in_split) {  // transformer_block.py: get_num_layers_to_build
    const std::int64_t counted = split_layers(m, t);
    if (t.first_stage_layers || t.last_stage_layers || counted % p != 0)
      throw InputError("layout",
                       fmt::format("{} layers with the embedding or loss counted do not split over PP {}", m.layers, p),
                       "use a PP that divides the layers plus those counted, without first/last stage layer counts");
    std::fill(out.begin(), out.end(), counted / p);
    if (t.embedding_in_split) --out.front();
    if (t.loss_in_split) --out.back();
    return out;
  }
  std::int64_t rest = m.layers, stages = p;
  if (t.first_stage_layers) {
    out.front() = *t.first_stage_layers;
    rest -= *t.first_stage_layers;
    --stages;
  }
  if (t.last_stage_layers && p > 1) {
    out.back() = *t.last_stage_layers;
    rest -= *t.last_stage_layers;
    --stages;
  }
  const std::size_t from = t.first_stage_layers ? 1 : 0;
  const std::size_t to = out.size() - (t.last_stage_layers && p > 1 ? 1 : 0);
  if (rest < 0 || (stages == 0 && rest != 0) || (stages > 0 && rest % stages != 0))
    throw InputError("layout", fmt::format("{} layers do not split over PP {} as given", m.layers, p),
                     "check the first/last stage layer counts");
  for (std::size_t i = from; i < to; ++i) out[i] = stages > 0 ? rest / stages : 0;
  return out;
}

std::vector<double> stage_moe_layers(const ModelShape& m, const TrainingSetup& t,
                                     const std::vector<std::int64_t>& layers) {
  std::vector<double> out(layers.size(), 0.0);
  const bool exact = !m.moe_layer.empty() && std::ssize(m.moe_layer) == m.layers;
  if (!exact) {
    for (std::size_t i = 0; i < layers.size(); ++i)
      out[i] = m.layers > 0 ? double(layers[i]) * double(m.moe_layers) / double(m.layers) : 0;
    return out;
  }
  // The stages' ranges cover each layer once, so counting each range's own layers is one pass (and no allocation:
  // the planner calls this for every layout it tries).
  auto count = [&](std::int64_t from, std::int64_t to) {
    from = std::clamp<std::int64_t>(from, 0, m.layers), to = std::clamp<std::int64_t>(to, from, m.layers);
    std::int64_t n = 0;
    for (std::int64_t i = from; i < to; ++i) n += m.moe_layer[static_cast<std::size_t>(i)] ? 1 : 0;
    return double(n);
  };
  const std::int64_t P = std::ssize(layers);
  const std::int64_t v = t.layout.vpp && P > 1 ? *t.layout.vpp : 1;
  if (v > 1 && (t.embedding_in_split || t.loss_in_split)) {
    // Chunk j = k × PP + s of c layers counting the embedding (and the loss) as one: the model's layers
    // [j × c − e, (j + 1) × c − e), clamped to the model (count clamps).
    const std::int64_t e = t.embedding_in_split ? 1 : 0;
    const std::int64_t c = split_layers(m, t) / (P * v);
    for (std::int64_t s = 0; s < P; ++s)
      for (std::int64_t k = 0; k < v; ++k)
        out[static_cast<std::size_t>(s)] += count((k * P + s) * c - e, (k * P + s + 1) * c - e);
    return out;
  }
  std::int64_t start = 0;
  for (std::int64_t s = 0; s < P; ++s) {
    const std::int64_t n = layers[static_cast<std::size_t>(s)];
    if (v > 1 && n % v == 0) {  // interleaved: rank s holds model chunks s, s + PP, ... of n / v layers each
      const std::int64_t c = n / v;
      for (std::int64_t k = 0; k < v; ++k)
        out[static_cast<std::size_t>(s)] += count((k * P + s) * c, (k * P + s + 1) * c);
    } else {
      out[static_cast<std::size_t>(s)] = count(start, start + n);
    }
    start += n;
  }
  return out;
}

StageSplit stage_split(const ModelShape& m, const TrainingSetup& t) {
  StageSplit out;
  out.layers = stage_layers(m, t);
  out.moe = stage_moe_layers(m, t, out.layers);
  return out;
}

MemoryEstimate estimate_memory(const ModelShape& m, const TrainingSetup& t, std::optional<std::int64_t> only_stage) {
  return estimate_memory(m, t, stage_split(m, t), only_stage);
}

MemoryEstimate estimate_memory(const ModelShape& m, const TrainingSetup& t, const StageSplit& split,
                               std::optional<std::int64_t> only_stage) {
  const Layout& l = t.layout;
  // Each size checked, in the layout's order (TP, PP, CP, EP, ETP, DP), before expert_data_parallel divides by them.
  const double tp = positive(l.tp, "TP");
  positive(l.pp, "PP");
  const double cp = positive(l.cp, "CP");
  positive(l.ep, "EP");
  const double etp = positive(l.etp, "ETP"), dp = positive(l.dp, "DP");
  const double b = positive(l.micro_batch, "micro-batch"), S = positive(t.row_length, "row length");
  positive(t.global_batch, "global batch");
  const double expert_dp = std::max(1.0, expert_data_parallel(l));
  const double micro_batches = std::max(1.0, std::floor(double(t.global_batch) / (dp * b)));
  const double T = b * S / cp;  // tokens of one micro-batch on this rank
  const double h = double(m.hidden), V = double(m.vocab);
  const double Q = double(m.heads) * double(m.head_dim);
  // TP a multiple of the query groups (Megatron allows it): each rank keeps one key/value head, i.e. K / TP becomes
  // head_dim; K here is scaled so that the / TP below gives that.
  const bool kv_replicated = !m.mla && m.query_groups < l.tp;
  const double K = m.mla ? Q : kv_replicated ? double(m.head_dim) * tp : double(m.query_groups) * double(m.head_dim);
  const double O = double(m.heads) * double(m.v_head_dim);
  const double Vv = m.mla ? O : K;
  const bool local = t.impl == Impl::local;
  const bool materialised = local || t.unfused_attention;  // the attention scores exist as a b x heads x s x s tensor
  const double r = t.sequence_parallel ? 1.0 / tp : 1.0;   // residual-sized tensors: split by SP, else replicated
  const double s_rank = S / cp;
  const double s2 = materialised ? 2.0 * b * (double(m.heads) / tp) * s_rank * s_rank : 0.0;  // one BF16 score tensor
  // Attention dropout on materialised scores keeps its 1-byte mask and the 2-byte dropped probabilities for the
  // backward (torch's dropout; the next bmm saves its input): 1.5 score tensors. Flash and fused attention keep only
  // the RNG state.
  const double s2_dropout = t.attention_dropout ? 1.5 * s2 : 0.0;

  // Bytes kept per token by one layer. LN1 input, QKV input, LN2 input and the MLP/router input: 4 × 2h; with hidden
  // dropout the 1-byte masks of the two bias-dropout-adds.
  const double norms = (8 + (t.hidden_dropout ? 2 : 0)) * h * r;
  const double attn_common = (2 * (Q + K + Vv) + 2 * Q + 2 * O) / tp;  // fused QKV output, roped q, projection input
  const bool gqa = m.heads > std::max(m.query_groups, l.tp);
  // Local attention, nothing recomputed: baddbmm and bmm keep k and v repeated to every head (GQA) or as they are.
  const double attn_none = materialised ? attn_common + (gqa ? 2 * Q + 2 * O : 2 * K) / tp
                                        : attn_common + 2 * K / tp + 4 * double(m.heads) / tp;
  const double attn_sel = materialised ? attn_common + 2 * K / tp : attn_none;  // the roped k kept for the recompute
  const double mlp_factor = m.gated ? 8 : 4;
  const double dense_mlp = mlp_factor * double(m.ffn_hidden) / tp;
  // Routed experts: a rank's experts get its T × r token shard (sequence parallelism: 1/TP) from each of the EP × ETP
  // ranks of its dispatch group, top_k copies each, 1/EP of them its own under balanced routing: T × r × ETP × top_k
  // copies (token_dispatcher.py: the all-to-all over EP, then the all-gather over ETP; the all-gather dispatcher
  // gathers over ETP × EP at once). Each keeps its 2h input and (gated) 10 f'/ETP of FC1 output, activation, weighted
  // activation and FC2 input (calibrated on moe2/moe3/moe4).
  const double moe_mlp = double(m.top_k) * r * etp * (2 * h + (m.gated ? 10 : 6) * double(m.expert_ffn_hidden) / etp) +
                         mlp_factor * double(m.shared_ffn_hidden) / tp;
  // A layer's bytes but its MLP's (added per stage: its dense and MoE layers differ).
  const double layer_none = T * (norms + attn_none) + s2 + s2_dropout;
  const double layer_sel = T * (norms + attn_sel);
  const double layer_input = T * 2 * h * r;

  const auto& layers = split.layers;
  const auto& moe_layers = split.moe;
  MemoryEstimate best;
  best.peak_mib = -1;
  const std::int64_t P = l.pp;
  if (only_stage && (*only_stage < 0 || *only_stage >= P))
    throw InputError("estimate_memory", fmt::format("stage {} is not one of PP {}'s", *only_stage, P),
                     "give a stage from 0 to PP - 1");
  for (std::int64_t stage = only_stage.value_or(0); stage < (only_stage ? *only_stage + 1 : P); ++stage) {
    const auto at = static_cast<std::size_t>(stage);
    // A middle stage with stage 1's layers, dense and MoE alike, holds its parameters and fewer micro-batches: skip
    // it (only then: under EP a dense layer can weigh more than an MoE one).
    if (!only_stage && stage > 1 && stage < P - 1 && layers[at] == layers[1] && moe_layers[at] == moe_layers[1])
      continue;
    const double Ls = double(layers[at]), moe_in = moe_layers[at], dense_in = Ls - moe_in;
    const bool first = stage == 0, last = stage == P - 1;
    const auto [dense, experts] = stage_parameters(m, l, Ls, moe_in, first, last);
    const double mlp = T * (dense_in * dense_mlp + moe_in * moe_mlp);  // the stage's MLP bytes, one micro-batch
    const double mean_mlp = Ls > 0 ? mlp / Ls : 0;                     // a layer's, on average
    const double weights = 2 * (dense + experts), grads = (t.grads_16bit ? 2 : 4) * (dense + experts);
    // The distributed optimizer shards dense state over the data- and context-parallel ranks (Megatron's
    // intra_dp_cp group), experts' over the expert-data-parallel group, each split into its instances.
    const double instances = double(t.optimizer_instances);
    const double owned = t.distributed_optimizer
                             ? dense / (dp * cp / instances) + experts / std::max(1.0, expert_dp / instances)
                             : dense + experts;
    const double optimizer = 12 * owned;

    // Activations of one micro-batch on this stage, and the transient at the backward of core attention.
    double stored = 0, attention_transient = 0;
    switch (t.recompute.kind) {
      case Recompute::none:
        stored = Ls * layer_none + mlp;
        attention_transient = kScoreTensorsStored * s2;
        break;
      case Recompute::selective:
        stored = Ls * layer_sel + mlp;
        attention_transient = kScoreTensorsRecomputed * s2 + s2_dropout;  // the recomputed forward's dropout too
        break;
      case Recompute::full_uniform: {
        const double chunk = std::min(Ls, double(t.recompute.layers));
        stored = (chunk > 0 ? std::ceil(Ls / chunk) : 0) * layer_input;
        attention_transient = chunk * (layer_none + mean_mlp) + kScoreTensorsStored * s2;
        break;
      }
      case Recompute::full_block: {  // --recompute-num-layers of each virtual pipeline chunk (Megatron: per chunk)
        const double n = std::min(Ls, double(t.recompute.layers) * double(t.layout.vpp.value_or(1)));
        stored = n * layer_input + (Ls - n) * (layer_none + mean_mlp);
        attention_transient = kScoreTensorsStored * s2;
        break;
      }
    }
    // The embedding's output (and its dropout mask). A first stage without layers sends that output on and frees it
    // (deallocate_pipeline_outputs: schedules.py deallocate_output_tensor; an empty block returns its input
    // uncloned on the first stage, transformer_block.py): only the mask stays.
    if (first) stored += T * (Ls > 0 ? (t.hidden_dropout ? 3 : 2) : (t.hidden_dropout ? 1 : 0)) * h * r;
    const double in_flight = micro_batches_in_flight(m, t, stage, micro_batches);
    const double activations = in_flight * stored;
    const double logits = last ? (t.fused_cross_entropy ? kFusedLogitBytes : kLogitBytes) * T * V / tp + T * 2 * h : 0;
    // At the optimizer step: torch AdamW (foreach) makes one FP32 copy of its parameters; BF16 gradients are copied to
    // FP32 for the parameters the optimizer owns.
    const double optimizer_step = (local ? 4 * owned : 0) + (t.grads_16bit ? 4 * owned : 0);
    // Local attention's persistent baddbmm buffer ("mpu" global memory buffer), made at a stage's first attention.
    const double buffer = local && Ls > 0 ? s2 : 0;

    // A stage without layers (the embedding or the loss counted in the split, PP = L + 1 or L + 2) runs no attention:
    // the first keeps its embedding's dropout masks (above), the last its logits.
    double transient = Ls > 0 ? attention_transient : 0;
    std::string_view moment = Ls == 0                                       ? "embedding"
                              : t.recompute.kind == Recompute::full_uniform ? "recomputed layer"
                                                                            : "attention backward";
    double act = activations;
    if (last && logits > transient) {
      transient = logits;
      moment = "loss";
    }
    if (optimizer_step > act + transient) {
      act = 0;
      transient = optimizer_step;
      moment = "optimizer step";
    }
    std::vector<MemoryTerm> terms = {
        {"weights", weights / kMiB},         {"gradients", grads / kMiB},  {"optimizer_state", optimizer / kMiB},
        {"attention_buffer", buffer / kMiB}, {"workspace", kWorkspaceMiB}, {"activations", act / kMiB},
    };
    if (moment != "embedding")  // the moment's transient; a stage of only the embedding has none
      terms.push_back({moment == "loss"             ? "logits_and_loss"
                       : moment == "optimizer step" ? "optimizer_step"
                                                    : "attention_backward",
                       transient / kMiB});
    double peak = 0;
    for (const auto& term : terms) peak += term.mib;
    if (peak > best.peak_mib) {
      best.peak_mib = peak;
      best.stage = stage;
      best.moment = moment;
      best.terms = std::move(terms);
      best.in_flight = static_cast<std::int64_t>(std::ceil(in_flight));
    }
  }
  return best;
}

namespace {

// Sizes of a run up to 2^24 (a million GPUs, 16 M-token rows): far above any real run, and small enough that a
// hostile dump cannot make the planner allocate per stage or overflow.
constexpr std::int64_t kMaxRunSize = std::int64_t{1} << 24;

std::int64_t arg_size(const std::map<std::string, std::string>& args, const char* name, std::int64_t fallback,
                      const std::string& where) {
  auto it = args.find(name);
  if (it == args.end() || it->second == "None") return fallback;
  auto v = parse_int(it->second);
  if (!v || *v < 1 || *v > kMaxRunSize)
    throw InputError(where + ": " + name,
                     "is " + quote_for_message(it->second) + fmt::format(", not a whole number in 1..{}", kMaxRunSize),
                     "give the unedited argument dump");
  return *v;
}

// Whether a dropout probability of the dump is above 0 (absent: 0, as in dumps that predate it). InputError for
// anything but a number from 0 to 1.
bool dropout(const std::map<std::string, std::string>& args, const char* name, const std::string& where) {
  auto it = args.find(name);
  if (it == args.end()) return false;
  const auto p = parse_double(it->second);
  if (!p || !(*p >= 0 && *p <= 1))
    throw InputError(where + ": " + name, "is " + quote_for_message(it->second) + ", not a probability from 0 to 1",
                     "give the unedited argument dump");
  return *p > 0;
}

}  // namespace

TrainingSetup setup_from_arguments(const std::map<std::string, std::string>& args, const std::string& where) {
  TrainingSetup t;
  auto size = [&](const char* name, std::int64_t fallback) { return arg_size(args, name, fallback, where); };
  auto flag = [&](const char* name) {
    auto it = args.find(name);
    return it != args.end() && it->second == "True";
  };
  auto text = [&](const char* name) {
    auto it = args.find(name);
    return it == args.end() ? std::string() : it->second;
  };
  Layout& l = t.layout;
  l.tp = size("tensor_model_parallel_size", 1);
  l.pp = size("pipeline_model_parallel_size", 1);
  l.cp = size("context_parallel_size", 1);
  l.ep = size("expert_model_parallel_size", 1);
  // A dense model's dump prints ETP = TP (validate_args sets it whatever the experts): without experts it is 1.
  const auto experts = args.find("num_experts");
  const bool has_experts = experts != args.end() && experts->second != "None" && experts->second != "0";
  l.etp = has_experts ? size("expert_tensor_parallel_size", l.tp) : 1;
  const std::int64_t world = size("world_size", l.tp * l.pp * l.cp);
  l.dp = std::max<std::int64_t>(1, world / (l.tp * l.pp * l.cp));
  if (auto it = args.find("virtual_pipeline_model_parallel_size"); it != args.end() && it->second != "None")
    l.vpp = size("virtual_pipeline_model_parallel_size", 1);
  l.micro_batch = size("micro_batch_size", 1);
  t.row_length = size("seq_length", 1);
  t.global_batch = size("global_batch_size", l.micro_batch * l.dp);
  const std::string granularity = text("recompute_granularity");
  if (granularity == "selective") {
    t.recompute = {Recompute::selective, 1};
  } else if (granularity == "full") {
    const std::string method = text("recompute_method");
    if (method != "uniform" && method != "block")
      throw InputError(where + ": recompute_method",
                       "is " + quote_for_message(method) + "; full recompute needs uniform or block",
                       "give the unedited argument dump");
    t.recompute = {method == "block" ? Recompute::full_block : Recompute::full_uniform,
                   size("recompute_num_layers", 1)};
  } else if (!granularity.empty() && granularity != "None") {
    throw InputError(where + ": recompute_granularity",
                     "is " + quote_for_message(granularity) + ", not selective, full or None",
                     "give the unedited argument dump");
  }
  t.distributed_optimizer = flag("use_distributed_optimizer");
  t.optimizer_instances = size("num_distributed_optimizer_instances", 1);
  t.sequence_parallel = flag("sequence_parallel") && l.tp > 1;
  t.fused_cross_entropy = flag("cross_entropy_loss_fusion");
  t.impl = text("transformer_impl") == "local" ? Impl::local : Impl::te;
  const std::string backend = text("attention_backend");
  if (!backend.empty() && backend != "AttnBackend.auto" && backend != "AttnBackend.flash" &&
      backend != "AttnBackend.fused" && backend != "AttnBackend.unfused" && backend != "AttnBackend.local")
    throw InputError(where + ": attention_backend",
                     "is " + quote_for_message(backend) +
                         ", not one of AttnBackend's members (auto, flash, fused, "
                         "unfused, local)",
                     "give the unedited argument dump");
  t.unfused_attention = backend == "AttnBackend.unfused" || backend == "AttnBackend.local";
  t.attention_dropout = dropout(args, "attention_dropout", where);
  t.hidden_dropout = dropout(args, "hidden_dropout", where);
  t.overlap_moe_expert_parallel_comm = flag("overlap_moe_expert_parallel_comm");
  if (auto it = args.find("microbatch_group_size_per_vp_stage"); it != args.end() && it->second != "None")
    t.microbatch_group = size("microbatch_group_size_per_vp_stage", 1);
  if (auto it = args.find("decoder_first_pipeline_num_layers"); it != args.end() && it->second != "None")
    t.first_stage_layers = size("decoder_first_pipeline_num_layers", 1);
  if (auto it = args.find("decoder_last_pipeline_num_layers"); it != args.end() && it->second != "None")
    t.last_stage_layers = size("decoder_last_pipeline_num_layers", 1);
  // arguments.py: with --bf16 the gradients accumulate and reduce in FP32 unless --grad-reduce-in-bf16 (--main-grads-
  // dtype bf16 is refused as not modelled: Megatron-LM runs it only with the precision-aware optimizer, not modelled
  // either); with --fp16 they stay FP16 unless --accumulate-allreduce-grads-in-fp32.
  t.grads_16bit =
      flag("bf16") ? flag("grad_reduce_in_bf16") : flag("fp16") && !flag("accumulate_allreduce_grads_in_fp32");
  t.embedding_in_split = flag("account_for_embedding_in_pipeline_split");
  t.loss_in_split = flag("account_for_loss_in_pipeline_split");
  return t;
}

}  // namespace openrecipes::layout
