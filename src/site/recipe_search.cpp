// How it was found: the search `openrecipes tune` ran, on a recipe's page (site/recipe_sections.h).
#include "site/recipe_sections.h"

#include <cmath>

#include <fmt/format.h>

#include "core/text.h"
#include "site/format.h"
#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

namespace {

// A trial's step time, predicted (the step-time model) / measured (the mean over its measured steps), "–" for none.
std::string step_cell(const json& t) {
  auto text = [](const json& v) { return v.is_number() ? fmt::format("{:.3g}", v.get<double>()) : std::string("–"); };
  return text(t["predicted_step_time_s"]) + " / " + text(t["mean_step_time_s"]);
}

// One trial of the search as its table row: the knobs it changed, predicted and measured peaks, score with its
// interval, wall time, outcome and its log.
json trial_row(const json& t, const std::string& id, const std::string& root) {
  std::string score = "–";
  if (t["tokens_per_s_per_gpu"].is_number()) {
    const double x = t["tokens_per_s_per_gpu"].get<double>();
    const double low = t["tokens_per_s_per_gpu_interval"][0].get<double>();
    score = format_tokens_per_s(x) + " " + format_plus_minus(low > 0 ? x / low - 1 : INFINITY);
  }
  std::string outcome = t["outcome"].get<std::string>();
  if (t["best"].get<bool>()) outcome += " · best";
  if (t["within_noise_of_best"].get<bool>()) outcome += " · within noise of the best";
  return {{"trial", std::to_string(t["trial"].get<std::int64_t>())},
          {"knobs", t["knobs"]},
          {"predicted",
           integer(t["predicted_peak_mib"].get<double>()) + (t["planner_fits"].get<bool>() ? "" : " (no fit)")},
          {"measured",
           t["measured_peak_mib"].is_number() ? json(integer(t["measured_peak_mib"].get<double>())) : json("–")},
          {"score", score},
          {"step", step_cell(t)},
          {"wall_s", fmt::format("{:.0f}", t["wall_s"].get<double>())},
          {"outcome", outcome},
          {"best", t["best"]},
          {"log_href", t["log"].is_string() ? evidence_href(id, root, t["log"].get<std::string>()) : json(nullptr)},
          {"reason", t["reason"].get<std::string>().empty() ? json(false) : t["reason"]}};
}

}  // namespace

json search_view(const json& e, const std::string& id, const std::string& root) {
  if (!e.contains("search") || !e["search"].is_object()) return false;
  const json& s = e["search"];
  json trials = json::array();
  for (const auto& t : s["trials"]) trials.push_back(trial_row(t, id, root));
  const auto gpus = s["gpus"].get<std::int64_t>();
  return {{"started_from", s["started_from"]},
          {"gpus", gpus == 1 ? std::string("1 GPU") : std::to_string(gpus) + " GPUs"},
          {"launcher", s["launcher"]},
          {"candidates", std::to_string(s["candidates"].get<std::size_t>())},
          {"trial_count", std::to_string(s["trials"].size())},
          {"warmup_steps", std::to_string(s["warmup_steps"].get<std::int64_t>())},
          {"trial_steps", std::to_string(s["trial_steps"].get<std::int64_t>())},
          {"budget", format_double(s["budget_minutes"].get<double>())},
          {"elapsed", fmt::format("{:.1f}", s["elapsed_s"].get<double>() / 60)},
          {"stopped", s["stopped"]},
          {"interval_method", s["interval_method"]},
          {"file", s["file"]},
          {"href", evidence_href(id, root, s["file"].get<std::string>())},
          {"trials", trials}};
}

}  // namespace openrecipes::site::parts
