// A model's starting points: the planner's fastest predicted layout per GPU type and count
// (registry/starting_points.h).
#include "registry/starting_points.h"

#include <algorithm>

#include "core/protocol.h"
#include "layout/model_shape.h"
#include "measure/cost.h"
#include "params/mfu.h"

namespace openrecipes::registry {

std::vector<StartingPoint> starting_points(const ModelInfo& model, const std::map<std::string, GpuType>& gpus) {
  // Named as the registry holds it (models/<id>.yaml), never by the builder's own path: the message reaches the site.
  const layout::ModelShape shape = layout::shape_from_config(model.config, "models/" + model.id + ".yaml: config");
  std::vector<const GpuType*> types;
  std::vector<layout::GpuChoice> choices;
  for (const auto& [key, g] : gpus)
    if (g.hardware && g.memory_mib > 0) {
      types.push_back(&g);
      choices.push_back({g.memory_mib, gpu_speed(g, kStartingNodeGpus)});
    }
  std::vector<StartingPoint> out;
  for (std::int64_t count : kStartingGpuCounts) {
    layout::PlanRequest q;
    q.gpus = count;
    q.gpus_per_node = kStartingNodeGpus;
    q.row_length = protocol::kRowLength;
    q.global_batch = protocol::kGlobalBatch;
    q.pad_vocab = true;  // the config's vocabulary, padded at each layout's TP as a run pads it
    auto planned = layout::best_layouts(shape, q, choices, 1);
    for (std::size_t i = 0; i < types.size(); ++i) {
      StartingPoint s;
      s.gpu = types[i]->key;
      s.gpus = count;
      s.nodes = (count + kStartingNodeGpus - 1) / kStartingNodeGpus;
      s.layouts = planned[i].layouts;
      s.fitting = planned[i].fitting;
      s.usable_mib = layout::usable_memory_mib(types[i]->memory_mib);
      if (!planned[i].best.empty()) {
        s.best = std::move(planned[i].best.front());
        const auto& st = *s.best->step_time;
        auto rate = [&](double step) {
          return layout::tokens_per_s_per_gpu(q.global_batch, q.row_length, step, count);
        };
        s.tokens_per_s_per_gpu = rate(st.step_time_s);
        s.tokens_low = rate(st.high_s);
        s.tokens_high = rate(st.low_s);
        auto dollars = [&](double tokens) {
          return measure::dollars_per_million_tokens(types[i]->dollars_per_gpu_hour, tokens);
        };
        s.dollars_per_million_tokens = dollars(s.tokens_per_s_per_gpu);
        s.dollars_low = dollars(s.tokens_high);
        s.dollars_high = dollars(s.tokens_low);
        auto mfu = [&](double tokens) { return params::mfu(model.active_params, tokens, types[i]->dense_bf16_tflops); };
        s.mfu = mfu(s.tokens_per_s_per_gpu);
        s.mfu_low = mfu(s.tokens_low);
        s.mfu_high = mfu(s.tokens_high);
      } else {
        s.smallest = std::move(planned[i].smallest_peak);
      }
      out.push_back(std::move(s));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const StartingPoint& a, const StartingPoint& b) { return a.gpu < b.gpu; });
  return out;
}

}  // namespace openrecipes::registry
