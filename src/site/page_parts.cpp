// What the site's pages share: cells, links, a recipe's table row (site/page_parts.h).
#include "site/page_parts.h"

#include <cmath>

#include <fmt/format.h>

#include "core/text.h"
#include "measure/throughput.h"
#include "registry/evaluate.h"
#include "site/format.h"
#include "site/site_paths.h"

namespace openrecipes::site::parts {

using nlohmann::json;

namespace {

// The link of field `key` of `j` (a recipe's author link), or null.
json safe_link(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return nullptr;
  return https_link(j[key].get_ref<const std::string&>());
}

json convergence_text(const json& e) {
  const json& c = e["checks"];
  if (c.contains("reference")) return "reference";
  if (!c.contains("convergence")) return "–";
  const json& v = c["convergence"];
  std::string s = v["verdict"].get<std::string>();
  if (v["correlation"].is_number()) s += fmt::format(" (r {:.4f})", v["correlation"].get<double>());
  return s;
}

json configuration_text(const json& e) {
  const json& c = e["checks"];
  if (c.contains("reference")) return "reference";
  return c.contains("configuration") ? c["configuration"]["verdict"] : json("–");
}

// The score's 95% interval as the pages show it (the build computed it: measure::ScoreInterval): the bounds as text,
// the half-width share as a sortable cell, the method for a tooltip, and whether the recipe ranked directly above is
// within noise of it (with that recipe's rank).
void interval_fields(json& row, const json& e) {
  const json& in = e.contains("tokens_per_s_per_gpu_interval") ? e["tokens_per_s_per_gpu_interval"] : json();
  const auto half = number(e, "mean_step_time_half_width_s"), mean = number(e, "mean_step_time_s");
  row["has_interval"] = in.is_array() && in[0].is_number();
  row["interval"] = in.is_array() && in[0].is_number()
                        ? format_score_interval(in[0].get<double>(), in[1].is_number() ? in[1].get<double>() : INFINITY)
                        : "–";
  row["interval_share"] = cell(half && mean ? std::optional<double>(*half / *mean) : std::nullopt, format_plus_minus);
  row["interval_method"] = measure::kIntervalMethod;
  const bool noise = e.contains("within_noise_of_above") && e["within_noise_of_above"].get<bool>();
  row["within_noise"] = noise;
  row["noise_above_rank"] = noise ? std::to_string(e["rank"].get<int>() - 1) : "";
}

}  // namespace

json https_link(std::string_view url) {
  return url.rfind("https://", 0) == 0 && url.find_first_of(" \t\"'<>") == std::string_view::npos ? json(url)
                                                                                                  : json(nullptr);
}

json source_link(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return nullptr;
  const std::string_view s = j[key].get_ref<const std::string&>();
  return https_link(s.substr(0, s.find(' ')));
}

json evidence_href(const std::string& id, const std::string& root, const std::string& relative) {
  const std::string at = evidence_site_path(id, relative);
  return at.empty() ? json(nullptr) : json(root + url_path(at));
}

std::optional<double> number(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

json cell(const std::optional<double>& v, std::string (*text)(double)) {
  if (!v || !std::isfinite(*v)) return {{"text", "–"}, {"value", ""}};
  return {{"text", text(*v)}, {"value", format_double(*v)}};
}

std::string percent1(double v) { return format_percent(v, 1); }
std::string integer(double v) { return with_thousands(static_cast<std::int64_t>(std::llround(v))); }
std::string seconds(double v) { return fmt::format("{:.4f} s", v); }

json reasons_view(const json& reasons) {
  json out = json::array();
  for (const auto& r : reasons) {
    json v = r;
    if (v.contains("fix") && v["fix"].is_string() && v["fix"].get_ref<const std::string&>().empty()) v.erase("fix");
    out.push_back(std::move(v));
  }
  return out;
}

std::string interval_legend() {
  return std::string(
             "x where the mean step time's 95% interval is mean·(1 ± x), so tokens/s/GPU's is score/(1+x) to "
             "score/(1−x), unbounded above when x ≥ 100% (") +
         measure::kIntervalMethod + ")";
}

json entry_row(const json& pair, const json& e, const std::string& root) {
  json row;
  row["id"] = e["id"];
  row["name"] = e.contains("name") ? e["name"] : e["id"];
  row["href"] = root + recipe_page_path(e["id"].get<std::string>());
  row["rank"] = e.contains("rank") ? json(std::to_string(e["rank"].get<int>())) : json("–");
  row["rank_value"] = e.contains("rank") ? json(std::to_string(e["rank"].get<int>())) : json("");
  row["verified"] = e["verified"].get<bool>();
  row["tokens_per_s_per_gpu"] = cell(number(e, "tokens_per_s_per_gpu"), format_tokens_per_s);
  interval_fields(row, e);
  row["cv"] = cell(number(e, "cv"), percent1);
  row["gpus"] = cell(number(e, "gpus"), integer);
  row["mfu"] = cell(number(e, "mfu"), percent1);
  row["dollars_per_million_tokens"] = cell(number(e, "dollars_per_million_tokens"), format_dollars);
  row["gpu_hours"] = cell(number(e, "gpu_hours"), format_gpu_hours);
  row["author"] = e.contains("author") ? e["author"]["name"] : json("");
  row["author_link"] = e.contains("author") ? safe_link(e["author"], "link") : json(nullptr);
  row["date"] = str(e, "date");
  row["framework"] = str(e, "framework");
  row["configuration"] = configuration_text(e);
  row["convergence"] = convergence_text(e);
  row["reasons"] = reasons_view(e["reasons"]);
  row["gpu"] = pair["gpu"];
  const json& cov = e.contains("evidence_coverage") ? e["evidence_coverage"] : json::object();
  row["evidence_code"] = cov.contains("code") ? cov["code"] : json("------");
  row["evidence_title"] = registry::kEvidenceLegend;
  return row;
}

bool is_verified_entry(const json& e) { return e["verified"].get<bool>(); }

const json* best_verified(const json& pair) {
  for (const auto& e : pair["ranked"])
    if (is_verified_entry(e)) return &e;
  return nullptr;
}

std::string pair_anchor(const json& pair) {
  // ':' is in neither a GPU key nor a workload key, so no two pairs of a model share an anchor.
  return "pair:" + pair["gpu"].get<std::string>() + ":" + pair["workload"]["key"].get<std::string>();
}

void FilterOptions::add(const json& e) {
  frameworks.insert(str(e, "framework"));
  gpu_counts.insert(e["gpus"].get<std::int64_t>());
}

void FilterOptions::write(json& view) const {
  json fw = json::array(), gc = json::array();
  for (const auto& f : frameworks) fw.push_back(f);
  for (auto g : gpu_counts) gc.push_back(std::to_string(g));
  view["frameworks"] = fw;
  view["gpu_counts"] = gc;
}

}  // namespace openrecipes::site::parts
