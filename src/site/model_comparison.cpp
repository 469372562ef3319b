// The GPU-type comparison and scatter charts of a model's page (site/model_comparison.h).
#include "site/model_comparison.h"

#include <algorithm>
#include <set>

#include "core/text.h"
#include "site/charts.h"
#include "site/format.h"
#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

json comparison_view(const std::string& key, const std::vector<const json*>& pairs, const std::string& root) {
  json cmp;
  cmp["workload"] = key;
  cmp["non_standard"] = (*pairs.front())["non_standard_workload"];  // the key decides it: every pair of it agrees
  json rows = json::array();
  BarChart speed{"Best verified tokens/s/GPU per GPU type, workload " + key + " (higher is better)",
                 "tokens/s/GPU (higher is better)",
                 {},
                 0};
  BarChart cost{"$ per 1M tokens of the best verified recipe per GPU type, workload " + key + " (lower is better)",
                "$ per 1M tokens (lower is better)",
                {},
                2};
  json all_rows = json::array();  // every verified recipe per GPU type in rank order: the filters pick the best
  for (const json* p : pairs) {
    const json* best = best_verified(*p);  // the first verified entry in rank order
    for (const auto& e : (*p)["ranked"]) {
      if (!is_verified_entry(e)) continue;
      json row = entry_row(*p, e, root);
      if (&e == best) {
        rows.push_back(row);
        const double tps = e["tokens_per_s_per_gpu"].get<double>();
        speed.bars.push_back({(*p)["gpu"].get<std::string>(), tps, format_tokens_per_s(tps)});
        if (auto d = number(e, "dollars_per_million_tokens"))
          cost.bars.push_back({(*p)["gpu"].get<std::string>(), *d, format_dollars(*d)});
      }
      row["best"] = &e == best;
      all_rows.push_back(std::move(row));
    }
  }
  cmp["all_rows"] = all_rows;
  cmp["rows"] = rows;
  cmp["single"] = rows.size() == 1;
  cmp["none"] = rows.empty();
  cmp["single_gpu"] = rows.size() == 1 ? rows[0]["gpu"] : json("");
  cmp["comparable"] = rows.size() > 1;
  if (rows.size() > 1) {
    double hi = 0;
    for (const auto& b : cost.bars) hi = std::max(hi, b.value);
    cost.y_decimals = hi >= 1 ? 1 : 3;
    cmp["speed_chart"] = bar_chart_svg(speed);
    cmp["cost_chart"] = bar_chart_svg(cost);
  }
  return cmp;
}

json scatter_view(const std::string& key, const std::vector<const json*>& pairs) {
  LineChart scaling, value;
  scaling.title = "tokens/s/GPU against GPU count, workload " + key + " (higher is better)";
  scaling.x_label = "GPUs";
  scaling.y_label = "tokens/s/GPU (higher is better)";
  scaling.y_from_zero = scaling.x_from_zero = true;
  scaling.y_decimals = 0;
  value.title = "tokens/s/GPU against $ per 1M tokens, workload " + key + " (up and left is better)";
  value.x_label = "$ per 1M tokens (lower is better)";
  value.y_label = "tokens/s/GPU (higher is better)";
  value.y_from_zero = value.x_from_zero = true;
  value.y_decimals = 0;
  std::size_t n = 0;
  for (const json* p : pairs) {
    LineSeries a{(*p)["gpu"].get<std::string>(), {}, false, true}, b = a;
    for (const auto& e : (*p)["ranked"]) {
      if (!is_verified_entry(e)) continue;
      const double tps = e["tokens_per_s_per_gpu"].get<double>();
      a.points.push_back({static_cast<double>(e["gpus"].get<std::int64_t>()), tps});
      if (auto d = number(e, "dollars_per_million_tokens")) b.points.push_back({*d, tps});
      ++n;
    }
    if (!a.points.empty()) scaling.series.push_back(a);
    if (!b.points.empty()) value.series.push_back(b);
  }
  if (n < 2) return nullptr;
  // Scaling needs two GPU counts; on one there is nothing to draw but a column of points.
  std::set<double> counts;
  for (const auto& ser : scaling.series)
    for (const auto& [g, t] : ser.points) counts.insert(g);
  scaling.x_integer = true;
  return {{"workload", key},
          {"scaling_chart", counts.size() >= 2 ? json(line_chart_svg(scaling)) : json(false)},
          {"gpu_count", counts.empty() ? std::string() : with_thousands(static_cast<std::int64_t>(*counts.begin()))},
          {"plural", counts.empty() || *counts.begin() != 1},
          {"value_chart", line_chart_svg(value)}};
}

}  // namespace openrecipes::site::parts
