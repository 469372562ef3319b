// A model's page: its facts, its pairs' tables and the comparison across GPU types (site/model_page.h).
#include "site/model_page.h"

#include <map>
#include <set>
#include <vector>

#include "core/text.h"
#include "registry/evaluate.h"
#include "site/model_comparison.h"
#include "site/page_parts.h"
#include "site/site_paths.h"

namespace openrecipes::site {

using nlohmann::json;

namespace parts {
namespace {

// The model's own facts: name, checkpoint, N and its breakdown by parameter class, notes.
json model_facts(const json& m, const std::string& model) {
  json v;
  v["id"] = model;
  v["evidence_legend"] = registry::kEvidenceLegend;
  v["interval_legend"] = interval_legend();
  v["name"] = m["name"];
  v["family"] = m["family"];
  v["checkpoint"] = m["checkpoint"];
  v["revision"] = m["revision"].is_string() ? m["revision"] : json("not pinned");
  v["n"] = with_thousands(m["active_params"].get<std::int64_t>());
  v["n_value"] = std::to_string(m["active_params"].get<std::int64_t>());
  v["counted_from"] = m["counted_from"];
  v["counting"] = m["counting"];
  json breakdown = json::array();
  for (auto it = m["breakdown"].begin(); it != m["breakdown"].end(); ++it)
    breakdown.push_back({{"class", it.key()},
                         {"n", with_thousands(it.value().get<std::int64_t>())},
                         {"value", std::to_string(it.value().get<std::int64_t>())}});
  v["breakdown"] = breakdown;
  v["notes"] = m["notes"];
  v["has_notes"] = !m["notes"].get<std::string>().empty();
  return v;
}

// The recipes of pair `p` that are not verified: listed below the table when the site shows them
// (--include-unverified), else counted and named (published_board keeps their ids). Each unverified recipe once: a
// preview lists it among the ranked (by its score) and among the unranked (with its reasons).
void unverified_fields(json& pj, const json& p) {
  std::set<std::string> unverified_ids;
  json unverified_names = json::array();
  for (const auto& e : p["ranked"])
    if (!is_verified_entry(e)) unverified_ids.insert(e["id"].get<std::string>());
  for (const auto& e : p["unranked"]) unverified_ids.insert(e["id"].get<std::string>());
  if (p.contains("unverified_ids"))
    for (const auto& id : p["unverified_ids"]) {
      unverified_ids.insert(id.get<std::string>());
      const std::string s_id = id.get<std::string>();
      unverified_names.push_back({{"name", s_id.substr(s_id.rfind('/') + 1)}, {"first", unverified_names.empty()}});
    }
  const auto unverified = static_cast<std::int64_t>(unverified_ids.size());
  pj["unverified_count"] = unverified;
  pj["has_unverified"] = unverified > 0;
  pj["unverified_plural"] = unverified != 1;
  pj["unverified_shown"] = !pj["unranked"].empty();
  pj["unverified_names"] = unverified_names;
}

// One pair's section: its anchor, workload, ranked and unranked rows (their frameworks and GPU counts added to
// `options`) and its unverified recipes.
json pair_view(const json& p, const std::string& root, FilterOptions& options) {
  json pj;
  pj["anchor"] = pair_anchor(p);
  pj["gpu"] = p["gpu"];
  pj["workload"] = p["workload"]["key"];
  pj["description"] = p["workload"]["description"];
  pj["non_standard"] = p["non_standard_workload"];
  json ranked = json::array(), unranked = json::array();
  for (const auto& e : p["ranked"]) {
    ranked.push_back(entry_row(p, e, root));
    options.add(e);
  }
  for (const auto& e : p["unranked"]) unranked.push_back(entry_row(p, e, root));
  pj["ranked"] = ranked;
  pj["has_ranked"] = !ranked.empty();
  pj["unranked"] = unranked;
  pj["has_unranked"] = !unranked.empty();
  unverified_fields(pj, p);
  return pj;
}

}  // namespace
}  // namespace parts

json model_view(const json& board, const std::string& model) {
  using namespace parts;
  json v = model_facts(board["models"][model], model);
  const std::string root = root_of(model_page_path(model));
  json pairs = json::array();
  FilterOptions options;
  // Per workload, the best verified recipe of each GPU type (the comparison is only fair on one workload).
  std::map<std::string, std::vector<const json*>> by_workload;
  for (const auto& p : board["pairs"]) {
    if (p["model"] != model) continue;
    pairs.push_back(pair_view(p, root, options));
    by_workload[p["workload"]["key"].get<std::string>()].push_back(&p);
  }
  v["pairs"] = pairs;
  v["has_pairs"] = !pairs.empty();
  options.write(v);
  json comparisons = json::array();
  for (const auto& [key, ps] : by_workload) comparisons.push_back(comparison_view(key, ps, root));
  v["comparisons"] = comparisons;
  // Per model, with two or more verified recipes on a workload: tokens/s/GPU against GPU count (scaling) and
  // tokens/s/GPU against $ per 1M tokens, one series per GPU type.
  json scatter = json::array();
  for (const auto& [key, ps] : by_workload)
    if (json s = scatter_view(key, ps); !s.is_null()) scatter.push_back(std::move(s));
  v["scatter"] = scatter;
  v["has_scatter"] = !scatter.empty();
  return v;
}

}  // namespace openrecipes::site
