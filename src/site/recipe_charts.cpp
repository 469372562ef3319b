// The charts of a recipe's page, step time and loss, and the table of its logged steps (site/recipe_sections.h).
#include "site/recipe_sections.h"

#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "checks/convergence.h"
#include "core/protocol.h"
#include "core/text.h"
#include "site/charts.h"
#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

namespace {
// The points (xs[i], ys[i]) of a series, in order, skipping those whose y is not a number (a step without a loss).
std::vector<std::pair<double, double>> points_of(const json& xs, const json& ys) {
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 0; i < xs.size() && i < ys.size(); ++i)
    if (ys[i].is_number()) out.emplace_back(xs[i].get<double>(), ys[i].get<double>());
  return out;
}

}  // namespace

// The step-time chart: each record's step time at its last step, the measurement window shaded.
std::string step_time_chart(const json& e) {
  const json& run = e["series"]["run"];
  LineChart ch;
  ch.title = "Step time of every logged step of " + e["id"].get<std::string>();
  ch.x_label = "step (0-based)";
  ch.y_label = "step time (s)";
  json xs = json::array();
  for (std::size_t i = 0; i < run["step"].size(); ++i)
    xs.push_back(run["step"][i].get<std::int64_t>() + run["steps"][i].get<std::int64_t>() - 1);
  ch.series.push_back({"step time", points_of(xs, run["step_time_s"]), false});
  ch.y_from_zero = true;  // a cut axis would make a 5% wobble look like a collapse
  const json& w = e["series"]["window"];
  if (w.is_object()) {
    ch.shaded_x = {w["first"].get<double>() - 0.5, w["last"].get<double>() + 0.5};
    ch.shaded_label = fmt::format("measured window {}–{}", w["first"].get<int>(), w["last"].get<int>());
  }
  return line_chart_svg(ch);
}

std::string loss_chart(const json& e) {
  LineChart ch;
  ch.title = "Loss curves of " + e["id"].get<std::string>() + " and its reference";
  ch.x_label = "step (0-based)";
  ch.y_label = "training loss";
  const json& s = e["series"];
  // The reference first, dashed and wide, then the recipe thin and solid on top: where the curves coincide, both
  // still show.
  if (s["reference_arm"].is_object())
    ch.series.push_back({"reference arm", points_of(s["reference_arm"]["steps"], s["reference_arm"]["loss"]), true});
  if (s["arm"].is_object()) ch.series.push_back({"recipe arm", points_of(s["arm"]["steps"], s["arm"]["loss"]), false});
  ch.y_decimals = 2;
  // The steps the check compares (the first 20% are skipped), shaded, and the pointwise tolerance around the
  // reference's loss at each of them (checks::pointwise_tolerance: 10%, 5% or 2% by loss level).
  const json& records = e["checks"];
  if (records.contains("convergence") && s["reference_arm"].is_object()) {
    const std::int64_t points = records["convergence"]["points"].get<std::int64_t>();
    const std::int64_t first = protocol::kConvergenceSteps - points, last = protocol::kConvergenceSteps - 1;
    if (points > 0) {
      ch.shaded_x = {static_cast<double>(first) - 0.5, static_cast<double>(last) + 0.5};
      ch.shaded_label = fmt::format("compared steps {}–{}", first, last);
      for (const auto& [step, loss] : points_of(s["reference_arm"]["steps"], s["reference_arm"]["loss"]))
        if (step >= static_cast<double>(first) && step <= static_cast<double>(last)) {
          const double tol = checks::pointwise_tolerance(loss);
          ch.band.push_back({step, loss * (1 - tol), loss * (1 + tol)});
        }
      ch.band_label = "tolerance";
    }
  }
  return line_chart_svg(ch);
}

json step_table(const json& e) {
  const json& run = e["series"]["run"];
  json rows = json::array();
  const json& w = e["series"]["window"];
  for (std::size_t i = 0; i < run["step"].size(); ++i) {
    std::int64_t first = run["step"][i], k = run["steps"][i];
    bool in_window =
        w.is_object() && first >= w["first"].get<std::int64_t>() && first + k - 1 <= w["last"].get<std::int64_t>();
    rows.push_back(
        {{"step", k == 1 ? std::to_string(first) : fmt::format("{}–{}", first, first + k - 1)},
         {"step_time_s",
          cell(run["step_time_s"][i].is_number() ? std::optional<double>(run["step_time_s"][i].get<double>())
                                                 : std::nullopt,
               seconds)},
         {"tokens", cell(run["tokens"][i].get<double>(), integer)},
         {"loss", run["loss"][i].is_number() ? json(format_double(run["loss"][i].get<double>())) : json("–")},
         {"in_window", in_window}});
  }
  return rows;
}

}  // namespace openrecipes::site::parts
