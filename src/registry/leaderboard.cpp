// Pairs and ranking (SPEC §5).
#include "registry/leaderboard.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace openrecipes::registry {

std::vector<Pair> build_pairs(const Registry& reg, const std::vector<RecipeResult>& results, bool include_unverified) {
  std::map<std::tuple<std::string, std::string, std::string>, Pair> pairs;
  for (const auto& res : results) {
    std::tuple<std::string, std::string, std::string> key{"(unreadable)", "", ""};
    Pair proto;
    if (res.entry && res.entry->recipe) {
      const Recipe& r = *res.entry->recipe;
      key = {r.model, r.gpu, r.workload.key};
      proto.model = r.model;
      auto m = reg.models.find(r.model);
      proto.model_name = m == reg.models.end() ? r.model : m->second.name;
      proto.gpu = r.gpu;
      proto.workload_key = r.workload.key;
      proto.workload_description = r.workload.description;
      proto.standard_workload = r.workload.standard;
    } else {
      proto.model = proto.model_name = "(unreadable)";
    }
    auto [it, fresh] = pairs.emplace(key, proto);
    Pair& p = it->second;
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
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace openrecipes::registry
