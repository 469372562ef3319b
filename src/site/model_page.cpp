// A model's page: its facts, its pairs' tables and the comparison across GPU types (site/model_page.h).
#include "site/model_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/text.h"
#include "layout/setup_flags.h"
#include "layout/step_time.h"
#include "registry/evaluate.h"
#include "site/charts.h"
#include "site/format.h"
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
  v["tokenizer"] = m.value("tokenizer", "");
  v["chat_template"] = m.value("chat_template", "");
  v["has_tokenizer"] = !v["tokenizer"].get<std::string>().empty();
  std::string shape;  // Megatron-LM's names and values, as a recipe's MODEL_ARGS write them
  const json layer_shape = m.value("layer_shape", json::object());  // held: items() must not outlive it
  for (const auto& [k, val] : layer_shape.items())
    shape += (shape.empty() ? "" : " · ") + k + " " + std::to_string(val.get<std::int64_t>());
  v["layer_shape"] = shape;
  v["has_layer_shape"] = !shape.empty();
  v["model_args"] = m.value("model_args", "");
  v["has_model_args"] = !v["model_args"].get<std::string>().empty();
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
  if (p.contains("unverified"))
    for (const auto& e : p["unverified"]) {
      const std::string id = e["id"].get<std::string>();
      unverified_ids.insert(id);
      unverified_names.push_back(
          {{"id", id}, {"name", id.substr(id.rfind('/') + 1)}, {"reasons", reasons_view(e["reasons"])}});
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

// A predicted interval as the tables write it: "low – high".
std::string span(const json& pair, std::string (*text)(double)) {
  return text(pair[0].get<double>()) + " – " + text(pair[1].get<double>());
}

// A predicted step, to three significant digits (the model's interval is ×/÷ 2: more would be noise).
std::string step_seconds(double v) { return fmt::format("{:.3g} s", v); }

std::string layout_text(const json& l) {
  std::string t = fmt::format("TP {} · PP {}", l["tp"].get<std::int64_t>(), l["pp"].get<std::int64_t>());
  if (!l["vpp"].is_null()) t += fmt::format(" (VPP {})", l["vpp"].get<std::int64_t>());
  for (auto [key, name] : {std::pair{"cp", "CP"}, std::pair{"ep", "EP"}})
    if (l[key].get<std::int64_t>() > 1) t += fmt::format(" · {} {}", name, l[key].get<std::int64_t>());
  if (l["ep"].get<std::int64_t>() > 1 && l["etp"] != l["tp"])
    t += fmt::format(" · ETP {}", l["etp"].get<std::int64_t>());
  t += fmt::format(" · DP {} · micro-batch {}", l["dp"].get<std::int64_t>(), l["micro_batch"].get<std::int64_t>());
  if (l["recompute"] != "none") t += " · " + l["recompute"].get<std::string>() + " recompute";
  return t;
}

// An uneven pipeline split of a layout written by layout::setup_to_json, in the flags plan's table names it with
// (layout::uneven_split_flag_list), one flag and its value an item: [] for an even split.
json split_flags(const json& l) {
  layout::TrainingSetup t;
  auto layers = [&](const char* key) {
    return l.contains(key) && !l[key].is_null() ? std::optional<std::int64_t>(l[key].get<std::int64_t>())
                                                : std::nullopt;
  };
  t.first_stage_layers = layers("first_stage_layers");
  t.last_stage_layers = layers("last_stage_layers");
  t.embedding_in_split = l.value("embedding_in_split", false);
  t.loss_in_split = l.value("loss_in_split", false);
  const std::vector<std::string> items = layout::uneven_split_flag_list(t);
  json flags = json::array();  // {"flag", "more": another follows}: the template puts a space between, none after
  for (std::size_t i = 0; i < items.size(); ++i) flags.push_back({{"flag", items[i]}, {"more", i + 1 < items.size()}});
  return flags;
}

// The starting points of one GPU type: a row per GPU count, and the chart's series.
json start_rows(const json& points, const std::string& gpu, LineSeries& series) {
  json rows = json::array();
  for (const auto& sp : points) {
    if (sp["gpu"] != gpu) continue;
    json r = {{"gpus", sp["gpus"]}, {"nodes", sp["nodes"]}, {"fits", sp["fits"]}};
    r["usable"] = integer(sp["usable_mib"].get<double>());
    if (sp["fits"].get<bool>()) {
      r["layout"] = layout_text(sp["layout"]);
      r["split_flags"] = split_flags(sp["layout"]);
      r["has_split"] = !r["split_flags"].empty();
      r["peak"] = integer(sp["peak_memory_mib"].get<double>());
      r["step"] = step_seconds(sp["step_time_s"].get<double>());
      r["step_span"] = span(sp["step_time_interval_s"], step_seconds);
      r["tokens"] = format_tokens_per_s(sp["tokens_per_s_per_gpu"].get<double>());
      r["tokens_value"] = sp["tokens_per_s_per_gpu"];
      r["tokens_span"] = span(sp["tokens_interval"], format_tokens_per_s);
      r["dollars"] = format_dollars(sp["dollars_per_million_tokens"].get<double>());
      r["dollars_span"] = span(sp["dollars_interval"], format_dollars);
      r["mfu"] = percent1(sp["mfu"].get<double>());
      r["mfu_span"] = span(sp["mfu_interval"], percent1);
      r["megatron_args"] = sp["megatron_args"];
      r["tune_command"] = sp["tune_command"];
      series.points.push_back({sp["gpus"].get<double>(), sp["tokens_per_s_per_gpu"].get<double>()});
    } else {
      r["smallest_peak"] = sp.contains("smallest_peak_mib") ? integer(sp["smallest_peak_mib"].get<double>()) : "–";
      r["smallest_layout"] = sp.contains("smallest_layout") ? layout_text(sp["smallest_layout"]) : "";
      r["smallest_split_flags"] = sp.contains("smallest_layout") ? split_flags(sp["smallest_layout"]) : json::array();
      r["has_smallest_split"] = !r["smallest_split_flags"].empty();
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// "Where to start": per GPU type the predicted fastest layout at each GPU count (site/model_starting_points.h), and a
// chart of predicted tokens/s/GPU against GPU count, one series per GPU type.
void starting_points_view(json& v, const json& m) {
  const json points = m.value("starting_points", json::array());
  std::vector<std::string> gpus;
  for (const auto& sp : points)
    if (std::find(gpus.begin(), gpus.end(), sp["gpu"].get<std::string>()) == gpus.end())
      gpus.push_back(sp["gpu"].get<std::string>());
  LineChart chart;
  chart.title = "predicted tokens/s/GPU against GPU count (a prediction, not a measurement)";
  chart.x_label = "GPUs";
  chart.y_label = "predicted tokens/s/GPU";
  chart.y_from_zero = chart.x_from_zero = chart.x_integer = true;
  chart.y_decimals = 0;
  json groups = json::array();
  for (const auto& gpu : gpus) {
    LineSeries series{gpu, {}, chart.series.size() % 2 == 1, false};
    groups.push_back({{"gpu", gpu}, {"rows", start_rows(points, gpu, series)}});
    if (!series.points.empty()) chart.series.push_back(std::move(series));
  }
  v["start_groups"] = groups;
  v["starting_points_error"] = m.value("starting_points_error", "");
  v["has_starting_points_error"] = m.contains("starting_points_error");
  v["has_starting_points"] = !groups.empty();
  v["start_chart"] = chart.series.empty() ? json(false) : json(line_chart_svg(chart));
  v["interval_factor"] = fmt::format("{:.2f}", 1 + layout::step_time_error90());
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
  std::size_t verified = 0;
  for (const auto& p : board["pairs"])
    if (p["model"] == model)
      for (const auto& e : p["ranked"]) verified += is_verified_entry(e);
  v["verified_recipes"] = verified;
  v["no_verified_recipe"] = verified == 0;
  starting_points_view(v, board["models"][model]);
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
