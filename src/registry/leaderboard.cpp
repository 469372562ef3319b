// Pairs and ranking (SPEC §5).
#include "registry/leaderboard.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "measure/throughput.h"

namespace openrecipes::registry {

std::vector<Pair> build_pairs(const Registry& reg, const std::vector<RecipeResult>& results, bool include_unverified) {
  std::map<std::tuple<std::string, std::string, std::string>, Pair> pairs;
  std::map<std::tuple<std::string, std::string, std::string>, const RecipeResult*> described_by;
  Pair unreadable;
  unreadable.unreadable = true;
  for (const auto& res : results) {
    if (!res.entry || !res.entry->recipe) {
      unreadable.unranked.push_back(&res);
      continue;
    }
    const Recipe& r = *res.entry->recipe;
    std::tuple<std::string, std::string, std::string> key{r.model, r.gpu, r.workload.key};
    Pair proto;
    proto.model = r.model;
    auto m = reg.models.find(r.model);
    proto.model_name = m == reg.models.end() ? r.model : m->second.name;
    proto.gpu = r.gpu;
    proto.workload_key = r.workload.key;
    proto.standard_workload = r.workload.standard;
    auto [it, fresh] = pairs.emplace(key, proto);
    Pair& p = it->second;
    // Only a verified recipe speaks for the pair: its reference first, else the first verified by id.
    if (res.verified) {
      const RecipeResult*& d = described_by[key];
      if (!d || (res.is_reference && !d->is_reference)) {
        d = &res;
        p.workload_description = r.workload.description;
      }
    }
    bool rankable = res.verified || (include_unverified && res.throughput.has_value());
    (rankable ? p.ranked : p.unranked).push_back(&res);
    if (!res.verified && rankable) p.unranked.push_back(&res);
  }
  std::vector<Pair> out;
  for (auto& [k, p] : pairs) {
    std::stable_sort(p.ranked.begin(), p.ranked.end(), [](const RecipeResult* a, const RecipeResult* b) {
      double sa = a->throughput->tokens_per_s_per_gpu, sb = b->throughput->tokens_per_s_per_gpu;
      return sa != sb ? sa > sb : a->id < b->id;
    });
    // Ranks are the verified recipes' (SPEC §5): a preview's unverified entry takes no rank and moves none, and a
    // verified recipe is within noise of the verified one ranked directly above it.
    const RecipeResult* above = nullptr;
    for (const auto* r : p.ranked) {
      if (!r->verified) {
        p.within_noise_of_above.push_back(false);
        continue;
      }
      p.within_noise_of_above.push_back(
          above && measure::intervals_overlap(r->throughput->interval, above->throughput->interval));
      above = r;
    }
    out.push_back(std::move(p));
  }
  if (!unreadable.unranked.empty()) out.push_back(std::move(unreadable));
  return out;
}

}  // namespace openrecipes::registry
