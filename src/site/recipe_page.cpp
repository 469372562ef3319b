// A recipe's page: its row, its run and the sections of site/recipe_sections.h, put together (site/recipe_page.h).
#include "site/recipe_page.h"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/text.h"
#include "site/page_parts.h"
#include "site/recipe_sections.h"
#include "site/site_paths.h"

namespace openrecipes::site {

using nlohmann::json;

namespace parts {
namespace {

// What every recipe page shows, readable or not: its pair, whether it ranked, the recipe ranked directly above when
// within noise of it, what its evidence covers and its notes.
void header_fields(json& v, const json& pair, const json& e, const std::string& root) {
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
}

// The measured run: mean step time, reference, steps, N, the window and the command.
void run_fields(json& v, const json& e, const std::string& root) {
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
}

// The layout: each parallelism degree and the micro-batch, "–" where the recipe leaves one unset.
json layout_view(const json& l) {
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
  return layout;
}

// Memory per GPU: the predicted peak, the measured one and the prediction's error; false when the entry has none.
json memory_view(const json& e) {
  if (!e.contains("memory") || !e["memory"].is_object()) return false;
  const json& m = e["memory"];
  json mv{{"predicted", integer(m["predicted_peak_mib"].get<double>())}, {"moment", m["peak_moment"]}};
  if (m["measured_peak_mib"].is_number()) {
    const double measured = m["measured_peak_mib"].get<double>();
    mv["measured"] = integer(measured);
    mv["error"] = fmt::format("{:+.1f}%", (m["predicted_peak_mib"].get<double>() - measured) / measured * 100);
  } else {
    mv["measured"] = false;
  }
  return mv;
}

// The software stack: each component's version and whether it is pinned, GPUs per node and the network.
void stack_fields(json& v, const json& stack) {
  json versions = json::array();
  for (const auto& s : stack["versions"])
    versions.push_back({{"component", s["component"]},
                        {"version", s["version"]},
                        {"status", s["status"]},
                        {"pinned", s["status"] == "pinned"}});
  v["stack"] = versions;
  v["gpus_per_node"] = std::to_string(stack["gpus_per_node"].get<std::int64_t>());
  v["network"] = stack["network"];
}

// The charts (loss, step time) with the files of the two arms, and the step table.
void chart_fields(json& v, const json& e) {
  const json& s = e["series"];
  v["loss_chart"] = s["arm"].is_object() || s["reference_arm"].is_object() ? json(loss_chart(e)) : json(false);
  v["arm_file"] = s["arm"].is_object() ? s["arm"]["file"] : json("–");
  v["reference_arm_file"] = s["reference_arm"].is_object() ? s["reference_arm"]["file"] : json("–");
  v["step_chart"] = s["run"]["step"].empty() ? json(false) : json(step_time_chart(e));
  v["steps"] = step_table(e);
}

// The workload: row length, global batch, tokens per step, and the rows build with, for the standard workload, where
// its rows come from.
void workload_fields(json& v, const json& wl) {
  v["row_length"] = with_thousands(wl["row_length"].get<std::int64_t>());
  v["global_batch"] = with_thousands(wl["global_batch"].get<std::int64_t>());
  v["tokens_per_step"] = with_thousands(wl["row_length"].get<std::int64_t>() * wl["global_batch"].get<std::int64_t>());
  v["rows"] = false;
  if (!wl.contains("rows")) return;
  const json& r = wl["rows"];
  v["rows"] = {{"count", with_thousands(r["rows"].get<std::int64_t>())}, {"sha256", r["sha256"]}};
  if (r.contains("dataset"))  // the standard workload: where the rows come from
    v["rows"]["source"] = {{"dataset", r["dataset"]},
                           {"revision", r["revision"]},
                           {"tokenizer", r["tokenizer"]},
                           {"tokenizer_revision",
                            r["tokenizer_revision"].get<std::string>().empty() ? json(false) : r["tokenizer_revision"]},
                           {"seed", std::to_string(r["seed"].get<std::int64_t>())}};
}

}  // namespace
}  // namespace parts

json recipe_view(const json& pair, const json& e) {
  using namespace parts;
  const std::string id = e["id"].get<std::string>();
  const std::string root = root_of(recipe_page_path(id));
  json v = entry_row(pair, e, root);
  header_fields(v, pair, e, root);
  if (!e.contains("name")) return v;
  run_fields(v, e, root);
  v["reproduce"] = reproduce_view(e);
  v["layout"] = layout_view(e["layout"]);
  v["memory"] = memory_view(e);
  v["search"] = search_view(e, id, root);
  stack_fields(v, e["stack"]);
  const json& checks = e["checks"];
  v["is_reference"] = checks.contains("reference");
  v["configuration_check"] = configuration_check_view(checks);
  v["convergence_check"] = convergence_check_view(checks);
  chart_fields(v, e);
  v["component_tests"] = component_tests_view(e, id, root);
  v["has_component_tests"] = !v["component_tests"].empty();
  workload_fields(v, e["workload"]);
  v["rows_status"] = checks["rows"];
  v["evidence"] = linked_files(e["evidence"], {"role", "file", "format"}, id, root);
  v["patches"] = linked_files(e["patches"], {"file", "sha256"}, id, root);
  v["has_patches"] = !v["patches"].empty();
  return v;
}

}  // namespace openrecipes::site
