// Reference resolution: pair roots, chains and cycles, and verification passed down reference chains (SPEC §4, §5).
#include "registry/references.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes::registry {

std::string pair_key(const Recipe& r) { return r.model + "\n" + r.gpu + "\n" + r.workload.key; }

std::map<std::string, std::string> choose_pair_references(const Registry& reg, const RecipesById& by_id) {
  std::map<std::string, std::int64_t> tuned_from;  // root id -> recipes whose chain ends there
  for (const auto& e : reg.recipes) {
    if (!e.recipe || !e.recipe->reference) continue;
    std::set<std::string> seen{e.id};
    const Recipe* cur = &*e.recipe;
    while (cur && cur->reference) {
      auto it = by_id.find(*cur->reference);
      if (it == by_id.end() || !it->second->recipe || !seen.insert(it->first).second)
        cur = nullptr;
      else
        cur = &*it->second->recipe;
    }
    if (cur) ++tuned_from[cur->id];
  }
  std::map<std::string, const Recipe*> best;
  for (const auto& e : reg.recipes) {
    if (!e.recipe || e.recipe->reference) continue;
    const Recipe* r = &*e.recipe;
    auto [it, fresh] = best.emplace(pair_key(*r), r);
    if (fresh) continue;
    const Recipe* b = it->second;
    auto rank = [&](const Recipe* x) { return std::make_tuple(-tuned_from[x->id], x->date, x->id); };
    if (rank(r) < rank(b)) it->second = r;
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, r] : best) out[k] = r->id;
  return out;
}

namespace {

// The chain of references from `r` ("r → a → b …"), and whether it comes back to a recipe already in it.
std::pair<std::vector<std::string>, bool> reference_chain(const Recipe& r, const RecipesById& by_id) {
  std::vector<std::string> chain{r.id};
  std::string cur = *r.reference;
  while (true) {
    const bool seen = std::find(chain.begin(), chain.end(), cur) != chain.end();
    chain.push_back(cur);
    if (seen) return {chain, true};
    auto it = by_id.find(cur);
    if (it == by_id.end() || !it->second->recipe || !it->second->recipe->reference) return {chain, false};
    cur = *it->second->recipe->reference;
  }
}

}  // namespace

ReferenceResolution resolve_reference(const Recipe& r, const RecipesById& by_id,
                                      const std::map<std::string, std::string>& pair_reference) {
  ReferenceResolution out;
  if (!r.reference) {
    const std::string& chosen = pair_reference.at(pair_key(r));
    if (chosen == r.id)
      out.is_reference = true;
    else
      out.problem = Reason{Stage::reference, "reference.second-root",
                           fmt::format("the pair already has the reference recipe '{}'; a second reference would "
                                       "rank without any check",
                                       chosen),
                           fmt::format("set `reference: {}` and pass both checks against it", chosen)};
    return out;
  }
  const auto [chain, cycle] = reference_chain(r, by_id);
  auto it = by_id.find(*r.reference);
  if (cycle) {
    std::string path;
    for (const auto& c : chain) path += (path.empty() ? "" : " → ") + c;
    out.problem = Reason{Stage::reference, "reference.cycle", "the references form a cycle: " + path,
                         "make the chain end at the pair's reference recipe"};
  } else if (it == by_id.end()) {
    // The recipe it most likely means, among the registry's ids (a name alone in recipe.yaml reads as its pair's id).
    std::vector<std::string> ids;
    for (const auto& [id, e] : by_id) ids.push_back(id);
    const std::string near = nearest_name(*r.reference, ids);
    out.problem = Reason{Stage::reference, "reference.missing", "'" + *r.reference + "' does not exist in the registry",
                         near.empty() ? std::string("name a recipe of the registry")
                                      : "did you mean '" + near + "'? (name a recipe of the registry)"};
  } else if (!it->second->recipe) {
    out.problem = Reason{Stage::reference, "reference.unreadable",
                         "'" + *r.reference + "' cannot be read: " + it->second->load_error, ""};
  } else {
    out.reference = &*it->second->recipe;
  }
  return out;
}

void require_verified_references(std::vector<RecipeResult>& results) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < results.size(); ++i) index[results[i].id] = i;
  // cause[i]: for a settled unverified recipe, (the recipe whose own reasons break the chain, its first reason).
  std::vector<int> state(results.size(), 0);  // 0 unvisited, 1 on the current walk, 2 settled
  std::vector<std::pair<std::string, std::string>> cause(results.size());
  auto reference_of = [&](std::size_t i) -> std::optional<std::size_t> {
    const auto* e = results[i].entry;
    if (!e || !e->recipe || !e->recipe->reference) return std::nullopt;
    auto it = index.find(*e->recipe->reference);
    if (it == index.end() || !results[it->second].entry || !results[it->second].entry->recipe) return std::nullopt;
    return it->second;
  };
  for (std::size_t start = 0; start < results.size(); ++start) {
    std::vector<std::size_t> walk;
    std::optional<std::size_t> cur = start;
    while (cur && state[*cur] == 0) {
      state[*cur] = 1;
      walk.push_back(*cur);
      cur = reference_of(*cur);
    }
    // The walk ends in a cycle when it comes back to a recipe on it: from that recipe on, every one is a member.
    const auto cycle_from = cur && state[*cur] == 1 ? std::find(walk.begin(), walk.end(), *cur) - walk.begin()
                                                    : std::ptrdiff_t(walk.size());
    // Settle from the far end of the walk back to `start`. A cycle's members already carry their reason and take none
    // from each other, so what each is told does not depend on where the walk started.
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      RecipeResult& res = results[*it];
      const bool own = !res.reasons.empty();
      if (own) cause[*it] = {res.id, res.reasons.front().text()};
      const bool in_cycle = walk.rend() - it - 1 >= cycle_from;
      auto ref = reference_of(*it);
      if (!in_cycle && ref && state[*ref] == 2 && !results[*ref].reasons.empty()) {
        const RecipeResult& rr = results[*ref];
        const auto& [where, why] = cause[*ref];
        std::string detail = where == rr.id ? why : "it is tuned from '" + where + "', which is not verified: " + why;
        res.reasons.push_back({Stage::reference, "reference.verified",
                               "'" + rr.id + "' is not verified (" + detail + ")", "fix the reference recipe first"});
        if (!own) cause[*it] = cause[*ref];
      }
      state[*it] = 2;
      res.verified = res.reasons.empty();
    }
  }
}

}  // namespace openrecipes::registry
