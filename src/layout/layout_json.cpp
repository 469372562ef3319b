// A parallel layout as JSON (layout/layout_json.h).
#include "layout/layout_json.h"

namespace openrecipes::layout {

nlohmann::ordered_json layout_to_json(const Layout& l) {
  auto optional = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::ordered_json(*v) : nullptr; };
  return {{"tp", l.tp},
          {"pp", l.pp},
          {"cp", l.cp},
          {"ep", l.ep},
          {"etp", l.etp},
          {"vpp", optional(l.vpp)},
          {"dp", l.dp},
          {"micro_batch", l.micro_batch},
          {"max_tokens_per_gpu", optional(l.max_tokens_per_gpu)}};
}

nlohmann::ordered_json setup_to_json(const TrainingSetup& t) {
  auto optional = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::ordered_json(*v) : nullptr; };
  nlohmann::ordered_json j = layout_to_json(t.layout);
  j["recompute"] = recompute_name(t.recompute);
  j["distributed_optimizer"] = t.distributed_optimizer;
  j["sequence_parallel"] = t.sequence_parallel;
  j["impl"] = t.impl == Impl::local ? "local" : "te";
  j["first_stage_layers"] = optional(t.first_stage_layers);
  j["last_stage_layers"] = optional(t.last_stage_layers);
  j["embedding_in_split"] = t.embedding_in_split;
  j["loss_in_split"] = t.loss_in_split;
  return j;
}

Layout layout_from_json(const nlohmann::json& j) {
  Layout l;
  l.tp = j.at("tp"), l.pp = j.at("pp"), l.cp = j.at("cp"), l.ep = j.at("ep"), l.etp = j.at("etp"), l.dp = j.at("dp");
  l.micro_batch = j.at("micro_batch");
  if (!j.at("vpp").is_null()) l.vpp = j.at("vpp").get<std::int64_t>();
  if (!j.at("max_tokens_per_gpu").is_null()) l.max_tokens_per_gpu = j.at("max_tokens_per_gpu").get<std::int64_t>();
  return l;
}

}  // namespace openrecipes::layout
