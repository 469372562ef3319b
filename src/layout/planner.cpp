// The planner's search (SPEC §7; docs/memory-model.md "Fits", "Order"): enumerate, check, estimate, order.
#include "layout/planner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "core/error.h"
#include "layout/model_rules.h"

namespace openrecipes::layout {
namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::vector<std::int64_t> choices(const std::optional<std::int64_t>& fixed, const std::vector<std::int64_t>& all) {
  return fixed ? std::vector<std::int64_t>{*fixed} : all;
}

// The planner walks the divisors of G and of the global batch one by one: both are bounded (2^20 GPUs, 2^24 rows).
void require(std::int64_t v, const char* what, std::int64_t max = std::int64_t{1} << 24) {
  if (v < 1) throw InputError(what, fmt::format("{} is not a size (at least 1)", v), "give a positive whole number");
  if (v > max) throw InputError(what, fmt::format("{} is over the largest the planner takes ({})", v, max), "");
}

}  // namespace

double usable_memory_mib(double memory_mib) { return (memory_mib - 1024) * 0.9; }

bool fits_memory(double peak_mib, double memory_mib) {
  return memory_mib <= 0 || peak_mib <= usable_memory_mib(memory_mib);
}

double relative_time(const ModelShape& m, const TrainingSetup& t, std::int64_t gpus_per_node) {
  const Layout& l = t.layout;
  double x = t.recompute.kind == Recompute::none ? 1.0 : t.recompute.kind == Recompute::selective ? 1.05 : 4.0 / 3.0;
  const double micro_batches = std::max(1.0, double(t.global_batch) / double(l.dp * l.micro_batch));
  x *= 1 + double(l.pp - 1) / (micro_batches * double(l.vpp.value_or(1)));
  x *= 1 + 0.04 * double(l.tp - 1) + (l.tp > gpus_per_node ? 0.5 : 0.0);
  x *= 1 + 0.03 * double(l.cp - 1);
  x *= 1 + 0.02 * double(l.ep - 1);
  const double tokens = double(l.micro_batch) * double(t.row_length) / double(l.cp);
  x *= 1 + 512.0 / tokens;
  if (m.experts > 0) {  // each local expert's GEMM gets tokens × top-k × EP / experts rows
    x *= 1 + 256.0 / (tokens * double(m.top_k) * double(l.ep) / double(m.experts));
    if (l.ep * l.etp > gpus_per_node) x *= 1.2;  // all-to-all over the network
  }
  return x;
}

PlannedLayout plan_setup(const ModelShape& m, TrainingSetup t, double memory_mib, std::int64_t gpus_per_node,
                         const std::optional<GpuSpeed>& speed, Precision precision) {
  PlannedLayout p;
  const StageSplit split = stage_split(m, t);
  p.memory = estimate_memory(m, t, split);
  p.fits = fits_memory(p.memory.peak_mib, memory_mib);
  p.relative_time = relative_time(m, t, gpus_per_node);
  if (speed) {
    GpuSpeed g = *speed;
    g.gpus_per_node = gpus_per_node;
    p.step_time = predict_step_time(m, t, g, precision, split);
  }
  p.warnings = model_warnings(t, gpus_per_node);
  p.setup = std::move(t);
  return p;
}

void for_each_setup(const ModelShape& m, const PlanRequest& q, const std::function<void(TrainingSetup&&)>& visit) {
  require(q.gpus, "--gpus", std::int64_t{1} << 20);
  require(q.gpus_per_node, "--gpus-per-node");
  require(q.row_length, "--row-length");
  require(q.global_batch, "--global-batch");
  for (auto [v, name] :
       {std::pair{q.tp, "--tp"}, std::pair{q.pp, "--pp"}, std::pair{q.cp, "--cp"}, std::pair{q.ep, "--ep"},
        std::pair{q.etp, "--etp"}, std::pair{q.vpp, "--vpp"}, std::pair{q.micro_batch, "--micro-batch"}})
    if (v) require(*v, name);
  const std::int64_t G = q.gpus;
  const auto all = divisors(G);
  std::vector<std::int64_t> tps, eps;
  for (auto d : choices(q.tp, all))
    if (q.tp || (m.heads % d == 0 && (m.mla || m.query_groups % d == 0))) tps.push_back(d);
  const std::vector<Recomputation> recomputes =
      q.recompute
          ? std::vector<Recomputation>{*q.recompute}
          : std::vector<Recomputation>{{Recompute::none, 1}, {Recompute::selective, 1}, {Recompute::full_uniform, 1}};
  for (auto tp : tps)
    for (auto pp : choices(q.pp, divisors(G / std::max<std::int64_t>(1, tp)))) {
      if (G % (tp * pp) != 0 || pp > m.layers + 2) continue;  // L + 2: the embedding and loss counted, a layer each
      // The pipeline splits PP can take (Megatron-LM's get_num_layers_to_build). PP divides the layers: the even
      // split. Otherwise the embedding and the loss counted as layers where PP divides L + 2 (every stage's share then
      // splits into virtual stages, as Megatron-Bridge's 405B and 235B recipes run), or one of them where PP divides
      // L + 1: counting the embedding lightens the first stage, which holds the most micro-batches in flight, and
      // counting the loss the last, which computes the output layer; both are planned and the predictions choose.
      // Otherwise the middle stages take ceil(L / PP) layers and the first and last share the rest.
      using Split = PlanRequest::Split;
      const std::int64_t L = m.layers;
      std::vector<Split> splits;
      if (q.split) {
        splits = {*q.split};
      } else if (L % pp == 0) {
        splits = {Split{}};
      } else if ((L + 2) % pp == 0) {
        splits = {{std::nullopt, std::nullopt, true, true}};
      } else if ((L + 1) % pp == 0) {
        splits = {{std::nullopt, std::nullopt, true, false}, {std::nullopt, std::nullopt, false, true}};
      } else {
        if (pp < 3 || pp > L) continue;
        const std::int64_t mid = (L + pp - 1) / pp;
        const std::int64_t rest = L - (pp - 2) * mid;
        if (rest < 2) continue;
        splits = {{rest / 2, rest - rest / 2, false, false}};
      }
      const std::vector<std::int64_t> cps =
          q.impl == Impl::local ? std::vector<std::int64_t>{1} : divisors(G / (tp * pp));
      for (auto cp : choices(q.cp, cps)) {
        if (G % (tp * pp * cp) != 0) continue;
        const std::int64_t dp = G / (tp * pp * cp);
        std::vector<std::int64_t> ep_all{1};
        if (m.experts > 0) {
          ep_all.clear();
          for (auto d : divisors(G / pp))
            if (m.experts % d == 0) ep_all.push_back(d);
        }
        for (auto ep : choices(q.ep, ep_all)) {
          const std::vector<std::int64_t> etp_all =
              m.experts > 0 && tp > 1 ? std::vector<std::int64_t>{1, tp} : std::vector<std::int64_t>{1};
          // Without experts ETP means nothing: 1, as a dense run's dump is read (setup_from_arguments).
          for (auto etp : choices(q.etp, m.experts > 0 ? etp_all : std::vector<std::int64_t>{1})) {
            if ((G / pp) % (ep * etp) != 0) continue;
            // VPP over the divisors of a stage's layers (the embedding and loss counted where they are); where PP
            // divides the layers, also the counted split's VPPs that the even split cannot take (Llama 3.1 405B's 126
            // layers over PP 2: 63 a stage, VPP 3, 7, 9; counted, 64: VPP 2, 4, 8).
            struct Pipeline {
              std::optional<std::int64_t> vpp;
              Split split;
            };
            const Split both{std::nullopt, std::nullopt, true, true};
            std::vector<Pipeline> pipelines;
            for (const Split& split : splits) {
              const std::int64_t counted = (split.embedding ? 1 : 0) + (split.loss ? 1 : 0);
              // PP divides the layers and the layers + 2: the counted split is an alternative (the even split's stage
              // of L / PP layers, the counted one's of L / PP + 1).
              const bool alternative = !q.split && counted == 0 && pp > 1 && (L + 2) % pp == 0;
              const auto only_counted = [&](std::int64_t v) {
                return alternative && (L / pp) % v != 0 && ((L + 2) / pp) % v == 0;
              };
              const std::size_t start = pipelines.size();
              if (q.vpp && only_counted(*q.vpp)) {
                pipelines.push_back({q.vpp, both});
              } else {
                pipelines.push_back({q.vpp, split});  // a recipe's own split keeps its own VPP
                if (!q.vpp && !q.split && pp > 1 && !split.first && !split.last) {
                  for (auto v : divisors((L + counted) / pp))
                    if (v > 1 && pipelines.size() - start < 5) pipelines.push_back({v, split});
                  if (alternative)
                    for (auto v : divisors((L + 2) / pp))
                      if (v > 1 && only_counted(v) && pipelines.size() - start < 8) pipelines.push_back({v, both});
                }
              }
            }
            for (const auto& pipeline : pipelines)
              for (auto mbs : choices(q.micro_batch, divisors(std::max<std::int64_t>(1, q.global_batch / dp)))) {
                if (q.global_batch % (dp * mbs) != 0) continue;
                for (const auto& rc : recomputes) {
                  const double expert_dp = double(G) / double(pp * ep * etp);
                  const bool shards = dp > 1 || (m.experts > 0 && expert_dp > 1);
                  std::vector<bool> dists = q.distributed_optimizer ? std::vector<bool>{*q.distributed_optimizer}
                                            : shards                ? std::vector<bool>{false, true}
                                                                    : std::vector<bool>{false};
                  for (bool dist : dists) {
                    TrainingSetup t;
                    t.layout = Layout{tp, pp, cp, ep, etp, dp, pipeline.vpp, mbs, std::nullopt};
                    t.row_length = q.row_length;
                    t.global_batch = q.global_batch;
                    t.recompute = rc;
                    t.distributed_optimizer = dist;
                    t.sequence_parallel = q.sequence_parallel.value_or(tp > 1);
                    t.fused_cross_entropy = q.fused_cross_entropy;
                    t.grads_16bit = q.grads_16bit;
                    t.impl = q.impl;
                    t.first_stage_layers = pipeline.split.first;
                    t.last_stage_layers = pipeline.split.last;
                    t.embedding_in_split = pipeline.split.embedding;
                    t.loss_in_split = pipeline.split.loss;
                    if (!model_violations(m, t).empty()) continue;
                    visit(std::move(t));
                  }
                }
              }
          }
        }
      }
    }
}

namespace {

// The shape a layout at TP `tp` trains: `m`, its vocabulary padded at that TP when `pad` (PlanRequest::pad_vocab);
// one copy a TP.
class ShapeAtTp {
 public:
  ShapeAtTp(const ModelShape& m, bool pad) : m_(m), pad_(pad) {}
  const ModelShape& operator()(std::int64_t tp) {
    if (!pad_) return m_;
    auto it = padded_.find(tp);
    if (it == padded_.end()) it = padded_.emplace(tp, with_padded_vocab(m_, tp)).first;
    return it->second;
  }

 private:
  const ModelShape& m_;
  bool pad_;
  std::map<std::int64_t, ModelShape> padded_;
};

}  // namespace

std::vector<PlannedLayout> plan_layouts(const ModelShape& m, const PlanRequest& q) {
  std::vector<PlannedLayout> out;
  ShapeAtTp shape(m, q.pad_vocab);
  for_each_setup(m, q, [&](TrainingSetup&& t) {
    const ModelShape& mt = shape(t.layout.tp);
    out.push_back(plan_setup(mt, std::move(t), q.memory_mib, q.gpus_per_node, q.speed, q.precision));
  });
  // Sorted by index, then moved once: a PlannedLayout is large, and DeepSeek-V3 on 256 GPUs has 90,000 of them.
  std::vector<std::size_t> order(out.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return plan_before(out[a], out[b]); });
  std::vector<PlannedLayout> sorted;
  sorted.reserve(out.size());
  for (std::size_t i : order) sorted.push_back(std::move(out[i]));
  return sorted;
}

std::vector<BestLayouts> best_layouts(const ModelShape& m, PlanRequest q, const std::vector<GpuChoice>& gpus,
                                      std::size_t k) {
  std::vector<BestLayouts> out(gpus.size());
  // Each GPU type's best k so far, in plan_before's order with the enumeration index breaking ties (as stable_sort
  // keeps plan_layouts' enumeration order), so the k are plan_layouts' first k.
  std::vector<std::vector<std::pair<PlannedLayout, std::size_t>>> best(gpus.size());
  auto before = [](const std::pair<PlannedLayout, std::size_t>& a, const std::pair<PlannedLayout, std::size_t>& b) {
    if (plan_before(a.first, b.first)) return true;
    if (plan_before(b.first, a.first)) return false;
    return a.second < b.second;
  };
  std::size_t index = 0;
  q.memory_mib = 0;
  ShapeAtTp shape(m, q.pad_vocab);
  // The smallest peak is the same on every GPU type (the memory model knows no GPU): its setups, every one that ties
  // it in enumeration order, are kept once and the fastest chosen at the end, where it does not fit (plan's order
  // when none fits: nearest_first_when_none_fits sorts plan_layouts' order, the predicted step first, by peak alone).
  std::vector<std::pair<TrainingSetup, MemoryEstimate>> smallest;  // each with its own estimate (equal peaks)
  for_each_setup(m, q, [&](TrainingSetup&& t) {
    const ModelShape& mt = shape(t.layout.tp);
    const StageSplit split = stage_split(mt, t);
    const MemoryEstimate memory = estimate_memory(mt, t, split);
    if (smallest.empty() || memory.peak_mib < smallest.front().second.peak_mib) {
      smallest.assign(1, {t, memory});
    } else if (memory.peak_mib == smallest.front().second.peak_mib) {
      smallest.emplace_back(t, memory);
    }
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      BestLayouts& o = out[g];
      ++o.layouts;
      if (!fits_memory(memory.peak_mib, gpus[g].memory_mib)) continue;
      ++o.fitting;
      GpuSpeed speed = gpus[g].speed;
      speed.gpus_per_node = q.gpus_per_node;
      StepTimePrediction step = predict_step_time(mt, t, speed, q.precision, split);
      auto& b = best[g];
      if (b.size() == k && !(step.step_time_s <= b.back().first.step_time->step_time_s)) continue;
      // Only a layout that enters the best k is copied out (this runs for every layout and GPU type).
      PlannedLayout p;
      p.memory = memory;
      p.relative_time = relative_time(mt, t, q.gpus_per_node);
      p.step_time = std::move(step);
      p.warnings = model_warnings(t, q.gpus_per_node);
      p.setup = t;
      std::pair<PlannedLayout, std::size_t> entry{std::move(p), index};
      b.insert(std::upper_bound(b.begin(), b.end(), entry, before), std::move(entry));
      if (b.size() > k) b.pop_back();
    }
    ++index;
  });
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    for (auto& [p, i] : best[g]) out[g].best.push_back(std::move(p));
    if (smallest.empty()) continue;
    const auto* chosen = &smallest.front();
    const bool fits = fits_memory(chosen->second.peak_mib, gpus[g].memory_mib);
    if (!fits && smallest.size() > 1) {  // a page shows the smallest peak only when none fits
      GpuSpeed speed = gpus[g].speed;
      speed.gpus_per_node = q.gpus_per_node;
      double fastest = 0;
      for (const auto& tie : smallest) {
        const ModelShape& mt = shape(tie.first.layout.tp);
        const double step =
            predict_step_time(mt, tie.first, speed, q.precision, stage_split(mt, tie.first)).step_time_s;
        if (&tie == &smallest.front() || step < fastest) fastest = step, chosen = &tie;
      }
    }
    PlannedLayout p;
    p.setup = chosen->first;
    p.memory = chosen->second;
    p.fits = fits;
    out[g].smallest_peak = std::move(p);
  }
  return out;
}

std::string no_layout_reason(const PlanRequest& q) {
  return fmt::format(
      "no TP x PP x CP x DP = {} keeps the model's rules with DP x micro-batch dividing the {} rows of a "
      "step (plan fewer GPUs, or a larger --global-batch; docs/memory-model.md, \"The rules\")",
      q.gpus, q.global_batch);
}

namespace {

// Whether `q` has a valid layout on `m`: for_each_setup stopped at the first.
bool has_layout(const ModelShape& m, const PlanRequest& q) {
  struct Found {};
  try {
    for_each_setup(m, q, [](TrainingSetup&&) { throw Found{}; });
  } catch (const Found&) {
    return true;
  }
  return false;
}

// A knob `q` fixes, as explain_no_layout names and varies it.
struct Knob {
  std::string shown;                                                                  // as given: "--tp 3"
  std::function<void(PlanRequest&)> release;                                          // leave it to the planner
  std::vector<std::pair<std::string, std::function<void(PlanRequest&)>>> candidates;  // each value, and setting it
};

// The knobs `q` fixes, in plan's order of flags, each with the values it may be given: a size over the divisors of the
// GPUs (the micro-batch: of the global batch), VPP from 2 to a chunk a layer, recompute's every spelling.
std::vector<Knob> fixed_knobs(const ModelShape& m, const PlanRequest& q) {
  std::vector<Knob> out;
  auto size = [&](const char* flag, std::optional<std::int64_t> PlanRequest::*field,
                  const std::vector<std::int64_t>& values) {
    if (!(q.*field)) return;
    Knob k{fmt::format("{} {}", flag, *(q.*field)), [field](PlanRequest& r) { (r.*field).reset(); }, {}};
    for (std::int64_t v : values)
      k.candidates.push_back({std::to_string(v), [field, v](PlanRequest& r) { r.*field = v; }});
    out.push_back(std::move(k));
  };
  const auto gpus = divisors(q.gpus);
  // An interleaved schedule: 2 or more chunks, at most a chunk a layer (or counted one).
  std::vector<std::int64_t> vpps;
  for (std::int64_t v = 2; v <= m.layers + 2; ++v) vpps.push_back(v);
  size("--tp", &PlanRequest::tp, gpus);
  size("--pp", &PlanRequest::pp, gpus);
  size("--cp", &PlanRequest::cp, gpus);
  size("--ep", &PlanRequest::ep, gpus);
  size("--etp", &PlanRequest::etp, gpus);
  size("--vpp", &PlanRequest::vpp, vpps);
  size("--micro-batch", &PlanRequest::micro_batch, divisors(q.global_batch));
  if (q.recompute) {
    Knob k{"--recompute " + recompute_name(*q.recompute), [](PlanRequest& r) { r.recompute.reset(); }, {}};
    std::vector<Recomputation> all = {{Recompute::none, 1}, {Recompute::selective, 1}};
    for (auto kind : {Recompute::full_uniform, Recompute::full_block})
      for (std::int64_t n = 1; n <= m.layers; ++n) all.push_back({kind, n});
    for (const auto& r : all) k.candidates.push_back({recompute_name(r), [r](PlanRequest& x) { x.recompute = r; }});
    out.push_back(std::move(k));
  }
  if (q.distributed_optimizer)
    out.push_back({*q.distributed_optimizer ? "--distributed-optimizer" : "--no-distributed-optimizer",
                   [](PlanRequest& r) { r.distributed_optimizer.reset(); },
                   {{"--distributed-optimizer", [](PlanRequest& r) { r.distributed_optimizer = true; }},
                    {"--no-distributed-optimizer", [](PlanRequest& r) { r.distributed_optimizer = false; }}}});
  return out;
}

// Recompute's spellings with every run of "full:N" (and "block:N") for consecutive N written as one range ("full to
// full:20": "full" is full:1); other values as they are.
std::vector<std::string> compress_recompute(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < values.size();) {
    const auto parsed = parse_recompute(values[i]);
    const bool counted = parsed && (parsed->kind == Recompute::full_uniform || parsed->kind == Recompute::full_block);
    std::size_t j = i + 1;
    while (counted && j < values.size()) {
      const auto next = parse_recompute(values[j]);
      if (!next || next->kind != parsed->kind || next->layers != parsed->layers + std::int64_t(j - i)) break;
      ++j;
    }
    out.push_back(j - i > 2 ? fmt::format("{} to {}", values[i], values[j - 1]) : values[i]);
    if (j - i == 2) out.push_back(values[i + 1]);
    i = j;
  }
  return out;
}

}  // namespace

void explain_no_layout(const ModelShape& m, const PlanRequest& q) {
  const std::vector<Knob> knobs = fixed_knobs(m, q);
  if (knobs.empty()) return;
  PlanRequest none_given = q;
  for (const Knob& k : knobs) k.release(none_given);
  if (!has_layout(m, none_given)) return;  // the GPUs leave none, whatever the knobs
  const std::string rules = "docs/memory-model.md, \"The rules\"";
  // Knob k named with the values valid given `others` (the request with k released), each checked by planning.
  auto name = [&](const Knob& k, const PlanRequest& others, const char* context) {
    std::vector<std::string> valid;
    for (const auto& [value, set] : k.candidates) {
      PlanRequest with = others;
      set(with);
      if (has_layout(m, with)) valid.push_back(value);
    }
    throw InputError(
        k.shown, fmt::format("no valid layout of the model on {} GPUs has it{} ({})", q.gpus, context, rules),
        valid.empty()
            ? std::string("leave it to the planner")
            : fmt::format("give one of {}, or leave it to the planner", fmt::join(compress_recompute(valid), ", ")));
  };
  for (const Knob& k : knobs) {  // the one knob that, released, leaves valid layouts
    PlanRequest free = q;
    k.release(free);
    if (has_layout(m, free)) name(k, free, knobs.size() > 1 ? ", with the other knobs given" : "");
  }
  for (const Knob& k : knobs) {  // a knob no layout has even on its own
    PlanRequest only = q;        // k as given, every other knob released
    for (const Knob& other : knobs)
      if (&other != &k) other.release(only);
    if (!has_layout(m, only)) name(k, none_given, knobs.size() > 1 ? " even on its own" : "");
  }
  std::vector<std::string> shown;
  for (const Knob& k : knobs) shown.push_back(k.shown);
  throw InputError(fmt::format("{}", fmt::join(shown, " ")),
                   fmt::format("no valid layout of the model on {} GPUs has these together, though each alone has "
                               "some ({})",
                               q.gpus, rules),
                   "fix fewer of them");
}

bool plan_before(const PlannedLayout& a, const PlannedLayout& b) {
  if (a.fits != b.fits) return a.fits;
  if (a.step_time && b.step_time) {
    if (a.step_time->step_time_s != b.step_time->step_time_s)
      return a.step_time->step_time_s < b.step_time->step_time_s;
  } else if (a.relative_time != b.relative_time) {
    return a.relative_time < b.relative_time;
  }
  return a.memory.peak_mib < b.memory.peak_mib;
}

}  // namespace openrecipes::layout
