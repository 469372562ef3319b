// The front page's view: the filterable table of verified recipes and the changelog (site/index_page.h).
#include "site/index_page.h"

#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "site/board_entries.h"
#include "site/format.h"
#include "site/page_parts.h"
#include "site/site_paths.h"

namespace openrecipes::site {

using nlohmann::json;

namespace parts {
namespace {

// The changelog: the builds that changed something, newest first (site_writer's data/build.json); an id links to its
// recipe's page only where this site has one (a removed recipe has none).
json changelog_view(const json& board, const json& site) {
  json changes = json::array();
  std::set<std::string> paged;  // the ids with a recipe page, gathered once (a first build lists every recipe as new)
  for (const auto& p : board["pairs"])
    for (const auto& [e, status] : pair_entries(p)) paged.insert((*e)["id"].get<std::string>());
  if (!site.contains("changes")) return changes;
  for (const auto& c : site["changes"]) {
    auto ids = [&](const char* k) {
      json out = json::array();
      for (const auto& id : c[k])
        out.push_back({{"id", id},
                       {"href", paged.count(id.get<std::string>()) ? json(recipe_page_path(id.get<std::string>()))
                                                                   : json(false)}});
      return out;
    };
    changes.push_back({{"built_at", c["built_at"]},
                       {"first", c["first"]},
                       {"new", ids("new")},
                       {"has_new", !c["new"].empty()},
                       {"changed", ids("changed")},
                       {"has_changed", !c["changed"].empty()},
                       {"removed", ids("removed")},
                       {"has_removed", !c["removed"].empty()}});
  }
  return changes;
}

// The models table: a row per model and GPU type with its count of verified recipes and its best verified
// tokens/s/GPU, or, where it has none, its best predicted starting point (marked as a prediction; never a rank).
json models_table(const json& board) {
  struct Verified {
    std::size_t count = 0;
    const json* best = nullptr;  // the fastest verified entry, and the pair (workload) it is ranked in
    const json* pair = nullptr;
  };
  std::map<std::pair<std::string, std::string>, Verified> verified;  // by (model, GPU type)
  for (const auto& p : board["pairs"]) {
    const auto key = std::pair{p["model"].get<std::string>(), p["gpu"].get<std::string>()};
    for (const auto& e : p["ranked"]) {
      if (!is_verified_entry(e)) continue;
      Verified& v = verified[key];
      ++v.count;
      if (!v.best || e["tokens_per_s_per_gpu"].get<double>() > (*v.best)["tokens_per_s_per_gpu"].get<double>()) {
        v.best = &e;
        v.pair = &p;
      }
    }
  }
  json rows = json::array();
  for (auto it = board["models"].begin(); it != board["models"].end(); ++it) {
    std::set<std::string> gpus;
    for (const auto& [key, v] : verified)
      if (key.first == it.key()) gpus.insert(key.second);
    for (const auto& sp : it.value().value("starting_points", json::array())) gpus.insert(sp["gpu"].get<std::string>());
    if (gpus.empty()) {  // neither a verified recipe nor a starting point: the row says why
      const std::string why = it.value().value("starting_points_error", std::string());
      rows.push_back({{"model_id", it.key()},
                      {"model", it.value()["name"]},
                      {"gpu", "–"},
                      {"href", model_page_path(it.key())},
                      {"verified_count", 0},
                      {"kind", "none"},
                      {"predicted", false},
                      {"none", true},
                      {"reason", why.empty() ? "its model file gives no config.json fields to plan from" : why}});
      continue;
    }
    for (const auto& gpu : gpus) {
      json row = {
          {"model_id", it.key()}, {"model", it.value()["name"]}, {"gpu", gpu}, {"href", model_page_path(it.key())}};
      const auto v = verified.find({it.key(), gpu});
      row["verified_count"] = v == verified.end() ? 0 : v->second.count;
      if (v != verified.end()) {
        const json& e = *v->second.best;
        const json& p = *v->second.pair;
        row["kind"] = "verified";
        row["tokens"] = format_tokens_per_s(e["tokens_per_s_per_gpu"].get<double>());
        row["tokens_value"] = e["tokens_per_s_per_gpu"];
        row["gpus"] = e["gpus"];
        row["recipe_href"] = recipe_page_path(e["id"].get<std::string>());
        row["recipe"] = e.contains("name") ? e["name"] : e["id"];
        row["non_standard"] = p["non_standard_workload"];
      } else {
        const json* top = nullptr;
        for (const auto& sp : it.value()["starting_points"])
          if (sp["gpu"] == gpu && sp["fits"].get<bool>() &&
              (!top || sp["tokens_per_s_per_gpu"].get<double>() > (*top)["tokens_per_s_per_gpu"].get<double>()))
            top = &sp;
        row["kind"] = "predicted";
        row["fits"] = top != nullptr;
        if (top) {
          row["tokens"] = format_tokens_per_s((*top)["tokens_per_s_per_gpu"].get<double>());
          row["tokens_value"] = (*top)["tokens_per_s_per_gpu"];
          row["gpus"] = (*top)["gpus"];
          row["start_href"] = model_page_path(it.key()) + "#starting-points";
        }
      }
      row["predicted"] = row["kind"] == "predicted";
      row["none"] = false;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace
}  // namespace parts

json index_view(const json& board) {
  using namespace parts;
  // One row per verified recipe, each pair's in rank order: the filters (model, GPU type, GPU count, framework,
  // standard workload only) pick rows, and "best only" keeps the first one of each model × GPU type × workload left.
  json rows = json::array();
  std::set<std::string> gpu_types;
  FilterOptions options;
  std::map<std::string, bool> model_has_standard;
  bool any_non_standard = false;
  for (const auto& p : board["pairs"]) {
    const std::string model = p["model"].get<std::string>();
    model_has_standard.emplace(model, false);
    bool first = true;
    for (const auto& e : p["ranked"]) {
      if (!is_verified_entry(e)) continue;
      json row = entry_row(p, e, "");
      row["model"] = p["model_name"];
      row["model_id"] = model;
      row["model_href"] = model_page_path(model) + "#" + pair_anchor(p);
      row["workload"] = p["workload"]["key"];
      row["non_standard"] = p["non_standard_workload"];
      row["standard"] = !p["non_standard_workload"].get<bool>() ? "1" : "0";
      row["pair"] = pair_anchor(p);
      row["best"] = first;
      first = false;
      // The 95% interval of tokens/s/GPU, exact, for the script that keeps the recipes within noise of the best shown
      // (their intervals overlap, measure::intervals_overlap); "" above: unbounded.
      const json& in = e["tokens_per_s_per_gpu_interval"];
      row["interval_low"] = in.is_array() && in[0].is_number() ? fmt::format("{}", in[0].get<double>()) : "";
      row["interval_high"] = in.is_array() && in[1].is_number() ? fmt::format("{}", in[1].get<double>()) : "";
      rows.push_back(row);
      gpu_types.insert(p["gpu"].get<std::string>());
      options.add(e);
      if (!p["non_standard_workload"].get<bool>()) model_has_standard[model] = true;
      any_non_standard = any_non_standard || p["non_standard_workload"].get<bool>();
    }
  }
  // Empty states, one per model: shown (by the script) when the filters leave that model no row.
  json empties = json::array(), model_options = json::array();
  for (const auto& [model, has_standard] : model_has_standard) {
    const std::string name =
        board["models"].contains(model) ? board["models"][model]["name"].get<std::string>() : model;
    empties.push_back({{"model_id", model}, {"model", name}, {"no_standard", !has_standard}});
  }
  for (auto it = board["models"].begin(); it != board["models"].end(); ++it)
    model_options.push_back({{"id", it.key()}, {"name", it.value()["name"]}});
  const json& site = board.contains("site") ? board["site"] : json::object();
  const json changes = changelog_view(board, site);
  const json models = models_table(board);
  for (const auto& m : models) gpu_types.insert(m["gpu"].get<std::string>());  // the models table filters by them too
  json unreadable = json::array();
  for (const auto& e : board["unreadable"])
    unreadable.push_back({{"id", e["id"]}, {"reasons", reasons_view(e["reasons"])}});
  json v = {{"rows", rows},
            {"has_rows", !rows.empty()},
            {"has_pairs", !board["pairs"].empty()},
            {"empties", empties},
            {"model_options", model_options},
            {"gpu_types", gpu_types},
            {"any_non_standard", any_non_standard},
            {"changes", changes},
            {"has_changes", !changes.empty()},
            {"built_at", site.contains("built_at") ? site["built_at"] : json(false)},
            {"models", models},
            {"unreadable", unreadable},
            {"has_unreadable", !unreadable.empty()},
            {"interval_legend", interval_legend()}};
  options.write(v);
  return v;
}

}  // namespace openrecipes::site
