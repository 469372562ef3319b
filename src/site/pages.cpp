// The site's pages from the leaderboard JSON (site/pages.h).
#include "site/pages.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "checks/component_test.h"
#include "checks/convergence.h"
#include "core/protocol.h"
#include "core/text.h"
#include "core/version.h"
#include "measure/throughput.h"
#include "registry/evaluate.h"
#include "site/board_entries.h"
#include "site/charts.h"
#include "site/format.h"
#include "site/html.h"
#include "site/page_parts.h"
#include "site/site_paths.h"

namespace openrecipes::site {

using nlohmann::json;

namespace {

// Page `path` of `board`: template `template_name` rendered with `view` (and the page's root), inside the layout
// with its title, the tool's version and the build time.
std::string page(const json& board, const std::string& path, const std::string& title, const std::string& template_name,
                 json view) {
  view["root"] = root_of(path);
  std::string body = render_template(template_name, view);
  const json& site = board.contains("site") ? board["site"] : json::object();
  json layout = {{"title", title},
                 {"root", root_of(path)},
                 {"body", body},
                 {"version", kToolVersion},
                 {"built_at", site.contains("built_at") ? site["built_at"] : json(false)}};
  return render_template("layout", layout);
}

}  // namespace

namespace parts {
namespace {

// The Reproduce box (registry/reproduce.h via the board's "reproduce"): the recipe.yaml's copy, the data-prep
// commands, the run line and each variable with what it must point at.
json reproduce_view(const json& e, const std::string& id, const std::string& root) {
  if (!e.contains("reproduce")) return false;
  const json& r = e["reproduce"];
  json prepare = json::array();
  for (const auto& line : r["prepare"]) prepare.push_back(line);
  json vars = json::array();
  for (const auto& v : r["variables"])
    vars.push_back({{"name", v["name"]},
                    {"points_at", v["points_at"]},
                    {"example", v["example"].get<std::string>().empty() ? json("–") : v["example"]},
                    {"needed", v["needs_value"].get<bool>()     ? "needed"
                               : v["launcher_only"].get<bool>() ? "read by the launcher"
                                                                : "filled by run"}});
  return {{"recipe_href", root + url_path(evidence_site_path(id, "recipe.yaml"))},
          {"recipe_folder", r["recipe_folder"]},
          {"prepare", prepare},
          {"has_prepare", !prepare.empty()},
          {"run", r["run"]},
          {"variables", vars},
          {"has_variables", !vars.empty()},
          {"standard", r["standard_workload"]},
          {"rows_sha256", r["rows_sha256"].is_string() ? r["rows_sha256"] : json(false)},
          {"rows_count", with_thousands(r["rows_count"].get<std::int64_t>())}};
}

// What the recipe's evidence covers, one line per piece, from the board's evidence_coverage.
json evidence_items(const json& e) {
  const json& c = e.contains("evidence_coverage") ? e["evidence_coverage"] : json::object();
  auto text = [&](const char* k) { return c.contains(k) && c[k].is_string() ? c[k].get<std::string>() : ""; };
  auto flag = [&](const char* k) { return c.contains(k) && c[k].is_boolean() && c[k].get<bool>(); };
  json out = json::array();
  auto item = [&](const char* name, bool present, const std::string& yes, const std::string& no) {
    out.push_back({{"name", name}, {"present", present}, {"text", present ? yes : no}});
  };
  item("step log", !text("log").empty(),
       "the measured run's per-step lines (" + text("log") + "), from which the score and CV are recomputed",
       "no log could be read");
  item("argument dump", flag("arguments"),
       "the run's resolved arguments: the configuration check and the command are checked against them",
       "none: the recipe can be checked neither against its reference nor as one");
  item("versions", flag("versions"), "the software versions the run saw (the stack check)",
       "none: the stack reads not pinned");
  item("device", !text("device").empty(), "the GPU the run ran on: " + text("device"),
       "no GPU named (or several): the GPU type is unchecked");
  item("scheduler times", !text("times").empty(),
       "admission and finish times (" + text("times") + "), from which GPU-hours are computed",
       "none: GPU-hours cannot be computed");
  item("launched command", flag("launch"),
       "the command as the run started it, every variable expanded (evidence/launch.json)",
       "not kept: the published command is checked against the argument dump alone");
  return out;
}

json series_points(const json& xs, const json& ys) {
  json out = json::array();
  for (std::size_t i = 0; i < xs.size() && i < ys.size(); ++i)
    if (ys[i].is_number()) out.push_back({xs[i].get<double>(), ys[i].get<double>()});
  return out;
}

std::vector<std::pair<double, double>> points_of(const json& pts) {
  std::vector<std::pair<double, double>> v;
  for (const auto& p : pts) v.emplace_back(p[0].get<double>(), p[1].get<double>());
  return v;
}

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
  ch.series.push_back({"step time", points_of(series_points(xs, run["step_time_s"])), false});
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
    ch.series.push_back(
        {"reference arm", points_of(series_points(s["reference_arm"]["steps"], s["reference_arm"]["loss"])), true});
  if (s["arm"].is_object())
    ch.series.push_back({"recipe arm", points_of(series_points(s["arm"]["steps"], s["arm"]["loss"])), false});
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
      for (const auto& [step, loss] : points_of(series_points(s["reference_arm"]["steps"], s["reference_arm"]["loss"])))
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

}  // namespace
}  // namespace parts

json recipe_view(const json& pair, const json& e) {
  using namespace parts;
  const std::string id = e["id"].get<std::string>();
  const std::string path = recipe_page_path(id);
  const std::string root = root_of(path);
  json v = entry_row(pair, e, root);
  v["model"] = pair["model_name"];
  v["model_href"] = root + model_page_path(pair["model"].get<std::string>()) + "#" + pair_anchor(pair);
  v["workload"] = pair["workload"]["key"];
  v["workload_description"] = pair["workload"]["description"];
  v["non_standard"] = pair["non_standard_workload"];
  v["ranked"] = e.contains("rank");
  v["has_reasons"] = !e["reasons"].empty();
  v["noise_above"] = false;
  if (v["within_noise"].get<bool>())
    for (const auto& above : pair["ranked"])  // the verified recipe ranked directly above (a preview lists others)
      if (above.contains("rank") && above["rank"].get<int>() == e["rank"].get<int>() - 1)
        v["noise_above"] = {{"name", above.contains("name") ? above["name"] : above["id"]},
                            {"href", root + recipe_page_path(above["id"].get<std::string>())}};
  v["evidence_items"] = evidence_items(e);
  v["notes"] = e.contains("notes") ? e["notes"] : json::array();
  v["has_notes"] = e.contains("notes") && !e["notes"].empty();
  v["readable"] = e.contains("name");
  if (!e.contains("name")) return v;
  v["mean_step_time_s"] = cell(number(e, "mean_step_time_s"), seconds);
  v["reference"] = e["reference"].is_string() ? e["reference"] : json(false);
  v["reference_href"] =
      e["reference"].is_string() ? json(root + recipe_page_path(e["reference"].get<std::string>())) : json(nullptr);
  v["steps_per_run"] = std::to_string(e["steps_per_run"].get<std::int64_t>());
  if (e.contains("active_params"))
    v["active_params"] = {{"n", with_thousands(e["active_params"]["n"].get<std::int64_t>())},
                          {"counted_from", e["active_params"]["counted_from"]}};
  else
    v["active_params"] = false;
  const json& w = e["series"]["window"];
  v["window"] = w.is_object() ? json(fmt::format("steps {}–{} ({} steps)", w["first"].get<int>(), w["last"].get<int>(),
                                                 w["last"].get<int>() - w["first"].get<int>() + 1))
                              : json("–");
  v["command"] = e["command"];
  v["reproduce"] = reproduce_view(e, id, root);
  const json& l = e["layout"];
  json layout = json::array();
  for (const auto& [k, name] : std::vector<std::pair<const char*, const char*>>{{"tp", "TP"},
                                                                                {"pp", "PP"},
                                                                                {"cp", "CP"},
                                                                                {"ep", "EP"},
                                                                                {"etp", "ETP"},
                                                                                {"dp", "DP"},
                                                                                {"vpp", "VPP"},
                                                                                {"micro_batch", "micro-batch"}})
    layout.push_back(
        {{"name", name}, {"value", l[k].is_number() ? json(std::to_string(l[k].get<std::int64_t>())) : json("–")}});
  v["layout"] = layout;
  v["memory"] = false;
  if (e.contains("memory") && e["memory"].is_object()) {
    const json& m = e["memory"];
    json mv{{"predicted", integer(m["predicted_peak_mib"].get<double>())}, {"moment", m["peak_moment"]}};
    if (m["measured_peak_mib"].is_number()) {
      const double measured = m["measured_peak_mib"].get<double>();
      mv["measured"] = integer(measured);
      mv["error"] = fmt::format("{:+.1f}%", (m["predicted_peak_mib"].get<double>() - measured) / measured * 100);
    } else {
      mv["measured"] = false;
    }
    v["memory"] = mv;
  }
  // A link only where the site holds a copy (evidence_site_path), percent-encoded.
  auto href = [&](const json& file) {
    std::string at = evidence_site_path(id, file.get<std::string>());
    return at.empty() ? json(nullptr) : json(root + url_path(at));
  };
  // How it was found: the search `openrecipes tune` ran (evidence/search.json), every trial in the order run.
  v["search"] = false;
  if (e.contains("search") && e["search"].is_object()) {
    const json& s = e["search"];
    json trials = json::array();
    for (const auto& t : s["trials"]) {
      std::string score = "–";
      if (t["tokens_per_s_per_gpu"].is_number()) {
        const double x = t["tokens_per_s_per_gpu"].get<double>();
        const double low = t["tokens_per_s_per_gpu_interval"][0].get<double>();
        score = format_tokens_per_s(x) + " " + format_plus_minus(low > 0 ? x / low - 1 : INFINITY);
      }
      std::string outcome = t["outcome"].get<std::string>();
      if (t["best"].get<bool>()) outcome += " · best";
      if (t["within_noise_of_best"].get<bool>()) outcome += " · within noise of the best";
      trials.push_back(
          {{"trial", std::to_string(t["trial"].get<std::int64_t>())},
           {"knobs", t["knobs"]},
           {"predicted",
            integer(t["predicted_peak_mib"].get<double>()) + (t["planner_fits"].get<bool>() ? "" : " (no fit)")},
           {"measured",
            t["measured_peak_mib"].is_number() ? json(integer(t["measured_peak_mib"].get<double>())) : json("–")},
           {"score", score},
           {"wall_s", fmt::format("{:.0f}", t["wall_s"].get<double>())},
           {"outcome", outcome},
           {"best", t["best"]},
           {"log_href", t["log"].is_string() ? href(t["log"]) : json(nullptr)},
           {"reason", t["reason"].get<std::string>().empty() ? json(false) : t["reason"]}});
    }
    const auto gpus = s["gpus"].get<std::int64_t>();
    v["search"] = {{"started_from", s["started_from"]},
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
                   {"href", href(s["file"])},
                   {"trials", trials}};
  }
  json stack = json::array();
  for (const auto& s : e["stack"]["versions"])
    stack.push_back({{"component", s["component"]},
                     {"version", s["version"]},
                     {"status", s["status"]},
                     {"pinned", s["status"] == "pinned"}});
  v["stack"] = stack;
  v["gpus_per_node"] = std::to_string(e["stack"]["gpus_per_node"].get<std::int64_t>());
  v["network"] = e["stack"]["network"];
  const json& checks = e["checks"];
  v["is_reference"] = checks.contains("reference");
  if (checks.contains("configuration")) {
    json changes = json::array();
    for (const auto& c : checks["configuration"]["changes"])
      changes.push_back({{"argument", c["argument"]},
                         {"reference", c["reference"].is_string() ? c["reference"] : json("(not set)")},
                         {"recipe", c["recipe"].is_string() ? c["recipe"] : json("(not set)")},
                         {"class", c["class"]},
                         {"accepted", c["accepted"].get<bool>() ? "allowed" : "not allowed"},
                         {"note", c["note"]}});
    v["configuration_check"] = {{"verdict", checks["configuration"]["verdict"]},
                                {"changes", changes},
                                {"has_changes", !changes.empty()},
                                {"problems", checks["configuration"]["problems"]}};
  } else {
    v["configuration_check"] = false;
  }
  if (checks.contains("convergence")) {
    const json& c = checks["convergence"];
    auto fixed = [&](const char* k, int d) {
      return c[k].is_number() ? json(fmt::format("{:.{}f}", c[k].get<double>(), d)) : json("–");
    };
    v["convergence_check"] = {
        {"verdict", c["verdict"]},
        {"correlation", fixed("correlation", 6)},
        {"correlation_value",
         c["correlation"].is_number() ? json(format_double(c["correlation"].get<double>())) : json("")},
        {"final_loss_rel_diff", cell(number(c, "final_loss_rel_diff"), [](double x) { return format_percent(x, 4); })},
        {"pointwise_failures", std::to_string(c["pointwise_failures"].get<std::int64_t>())},
        {"outliers", std::to_string(c["outliers"].get<std::int64_t>())},
        {"points", std::to_string(c["points"].get<std::int64_t>())},
        {"failed_tests", c["failed_tests"]},
        {"problems", c["problems"]}};
  } else {
    v["convergence_check"] = false;
  }
  const json& s = e["series"];
  v["loss_chart"] = s["arm"].is_object() || s["reference_arm"].is_object() ? json(loss_chart(e)) : json(false);
  v["arm_file"] = s["arm"].is_object() ? s["arm"]["file"] : json("–");
  v["reference_arm_file"] = s["reference_arm"].is_object() ? s["reference_arm"]["file"] : json("–");
  v["step_chart"] = s["run"]["step"].empty() ? json(false) : json(step_time_chart(e));
  v["steps"] = step_table(e);
  json tests = json::array();
  for (const auto& t : e["component_tests"]) {
    std::string shape;
    for (auto it = t["shape"].begin(); it != t["shape"].end(); ++it)
      shape += (shape.empty() ? "" : ", ") + it.key() + " " + std::to_string(it.value().get<std::int64_t>());
    json test = {{"swap", t["swap"]},
                 {"compares", t["compares"]},
                 {"shape", shape},
                 {"bound", format_double(t["bound"].get<double>())},
                 {"worst_error", t["worst_error"].get<double>() >= checks::kMaxRecordedError
                                     ? std::string("inf")
                                     : fmt::format("{:.4g}", t["worst_error"].get<double>())},
                 {"passed", t.contains("problem")     ? "not counted"
                            : t["passed"].get<bool>() ? "passed"
                                                      : "failed"},
                 {"problem", t.contains("problem") ? t["problem"] : json(false)},
                 {"raw", false}};
    if (t.contains("raw")) {
      const json& o = t["raw"];
      const std::string file = t.value("output", "");
      const std::string at = evidence_site_path(id, file);
      json raw = {{"verdict", o["verdict"]},
                  {"file", file},
                  {"href", at.empty() ? json(nullptr) : json(root + url_path(at))},
                  {"gpu", o["gpu"]}};
      std::string swapped, run_shape, versions;
      for (const auto& a : o["swapped"])
        swapped += fmt::format("{}{} {} → {}", swapped.empty() ? "" : "; ", a["argument"].get<std::string>(),
                               a["reference"].get<std::string>(), a["recipe"].get<std::string>());
      for (auto it = o["run_shape"].begin(); it != o["run_shape"].end(); ++it)
        run_shape += (run_shape.empty() ? "" : ", ") + it.key() + " " + std::to_string(it.value().get<std::int64_t>());
      for (auto it = o["versions"].begin(); it != o["versions"].end(); ++it)
        versions += (versions.empty() ? "" : ", ") + it.key() + " " + it.value().get<std::string>();
      raw["swapped"] = swapped;
      raw["run_shape"] = run_shape + ", " + o["precision"].get<std::string>() + ", seed " +
                         std::to_string(o["seed"].get<std::int64_t>());
      raw["versions"] = versions;
      raw["runner"] = o["runner_sha256"].get<std::string>().substr(0, 12);
      raw["repeat"] = fmt::format("{:.3g}", o["repeat_max_abs_diff"].get<double>());
      const json& e = o["effect"];
      std::string effect = e["changed"].get<bool>() ? fmt::format("{} module type(s) and {} traced function(s) differ",
                                                                  e["modules_differ"].get<std::int64_t>(),
                                                                  e["code_differ"].get<std::int64_t>())
                                                    : "none: the same module types and the same traced code";
      raw["effect"] = effect;
      raw["code_reference_only"] =
          fmt::format("{}", fmt::join(e["code_reference_only"].get<std::vector<std::string>>(), ", "));
      raw["code_recipe_only"] =
          fmt::format("{}", fmt::join(e["code_recipe_only"].get<std::vector<std::string>>(), ", "));
      // Per tensor, the largest error first: the error and whether it is over the rule's bound, as the build
      // computed them (leaderboard_report.cpp; "inf" for a non-finite one).
      auto num = [](const json& x) { return x.is_number() ? x.get<double>() : INFINITY; };
      std::vector<std::pair<double, json>> rows;
      for (const auto& ts : o["tensors"]) {
        const double err = num(ts["error"]);
        rows.push_back({err,
                        {{"name", ts["name"]},
                         {"kind", ts["kind"]},
                         {"shape", fmt::format("{}", fmt::join(ts["shape"].get<std::vector<std::int64_t>>(), "×"))},
                         {"dtype", ts["dtype"]},
                         {"max_abs_error", fmt::format("{:.4g}", num(ts["max_abs_error"]))},
                         {"reference_max_abs", fmt::format("{:.4g}", num(ts["reference_max_abs"]))},
                         {"error", fmt::format("{:.4g}", err)},
                         {"over", ts["over"]}}});
      }
      std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      json tensors = json::array();
      for (auto& r : rows) tensors.push_back(std::move(r.second));
      raw["tensor_count"] = tensors.size();
      raw["tensors"] = tensors;
      test["raw"] = raw;
    }
    tests.push_back(std::move(test));
  }
  v["component_tests"] = tests;
  v["has_component_tests"] = !tests.empty();
  const json& wl = e["workload"];
  v["row_length"] = with_thousands(wl["row_length"].get<std::int64_t>());
  v["global_batch"] = with_thousands(wl["global_batch"].get<std::int64_t>());
  v["tokens_per_step"] = with_thousands(wl["row_length"].get<std::int64_t>() * wl["global_batch"].get<std::int64_t>());
  v["rows"] = false;
  if (wl.contains("rows")) {
    const json& r = wl["rows"];
    v["rows"] = {{"count", with_thousands(r["rows"].get<std::int64_t>())}, {"sha256", r["sha256"]}};
    if (r.contains("dataset"))  // the standard workload: where the rows come from
      v["rows"]["source"] = {
          {"dataset", r["dataset"]},
          {"revision", r["revision"]},
          {"tokenizer", r["tokenizer"]},
          {"tokenizer_revision",
           r["tokenizer_revision"].get<std::string>().empty() ? json(false) : r["tokenizer_revision"]},
          {"seed", std::to_string(r["seed"].get<std::int64_t>())}};
  }
  v["rows_status"] = checks["rows"];
  json evidence = json::array();
  for (const auto& f : e["evidence"])
    evidence.push_back({{"role", f["role"]}, {"file", f["file"]}, {"format", f["format"]}, {"href", href(f["file"])}});
  v["evidence"] = evidence;
  json patches = json::array();
  for (const auto& p : e["patches"])
    patches.push_back({{"file", p["file"]}, {"sha256", p["sha256"]}, {"href", href(p["file"])}});
  v["patches"] = patches;
  v["has_patches"] = !patches.empty();
  return v;
}

std::vector<PageJob> site_page_jobs(const json& board) {
  std::vector<PageJob> out;
  out.push_back({"index.html", [&board] {
                   return page(board, "index.html", "OpenRecipes leaderboard", "index", index_view(board));
                 }});
  out.push_back({"rates.html", [&board] {
                   return page(board, "rates.html", "Rates, peaks and formulas · OpenRecipes", "rates",
                               rates_view(board));
                 }});
  for (auto it = board["models"].begin(); it != board["models"].end(); ++it) {
    const std::string model = it.key(), path = model_page_path(model);
    out.push_back({path, [&board, model, path] {
                     return page(board, path, board["models"][model]["name"].get<std::string>() + " · OpenRecipes",
                                 "model", model_view(board, model));
                   }});
  }
  for (const auto& p : board["pairs"])
    for (const auto& [e, status] : pair_entries(p)) {
      const std::string id = (*e)["id"].get<std::string>(), path = recipe_page_path(id);
      const json* pair = &p;
      const json* entry = e;
      out.push_back({path, [&board, pair, entry, id, path] {
                       return page(board, path, id + " · OpenRecipes", "recipe", recipe_view(*pair, *entry));
                     }});
    }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

std::vector<SiteFileOut> site_pages(const json& board) {
  std::vector<SiteFileOut> out;
  for (const auto& job : site_page_jobs(board)) out.push_back({job.path, job.render()});
  return out;
}

}  // namespace openrecipes::site
