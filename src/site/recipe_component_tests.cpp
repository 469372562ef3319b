// The component tests on a recipe's page: the table, and each test's raw output where the recipe records it
// (site/recipe_sections.h).
#include "site/recipe_sections.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "checks/component_check.h"
#include "core/text.h"
#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

namespace {

// An object's fields as "k1 v1, k2 v2" in key order, each value written by `text`.
template <class Text>
std::string key_values(const json& object, Text text) {
  std::string out;
  for (auto it = object.begin(); it != object.end(); ++it)
    out += (out.empty() ? "" : ", ") + it.key() + " " + text(it.value());
  return out;
}

std::string count_text(const json& v) { return std::to_string(v.get<std::int64_t>()); }
std::string string_text(const json& v) { return v.get<std::string>(); }

// Per tensor of a raw output, the largest error first: the error and whether it is over the rule's bound, as the
// build computed them (leaderboard_report.cpp; "inf" for a non-finite one).
json tensor_rows(const json& tensors) {
  auto num = [](const json& x) { return x.is_number() ? x.get<double>() : INFINITY; };
  std::vector<std::pair<double, json>> rows;
  for (const auto& ts : tensors) {
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
  json out = json::array();
  for (auto& r : rows) out.push_back(std::move(r.second));
  return out;
}

// A test's raw output `o` (its runner's record, evidence file `file`): what it swapped, the run's shape and versions,
// the runner, the repeat difference, the effect of the swap, and its tensors.
json raw_view(const json& o, const std::string& file, const std::string& id, const std::string& root) {
  json raw = {{"verdict", o["verdict"]}, {"file", file}, {"href", evidence_href(id, root, file)}, {"gpu", o["gpu"]}};
  std::string swapped;
  for (const auto& a : o["swapped"])
    swapped += fmt::format("{}{} {} → {}", swapped.empty() ? "" : "; ", a["argument"].get<std::string>(),
                           a["reference"].get<std::string>(), a["recipe"].get<std::string>());
  raw["swapped"] = swapped;
  raw["run_shape"] = key_values(o["run_shape"], count_text) + ", " + o["precision"].get<std::string>() + ", seed " +
                     std::to_string(o["seed"].get<std::int64_t>());
  raw["versions"] = key_values(o["versions"], string_text);
  raw["runner"] = o["runner_sha256"].get<std::string>().substr(0, 12);
  raw["repeat"] = fmt::format("{:.3g}", o["repeat_max_abs_diff"].get<double>());
  const json& e = o["effect"];
  raw["effect"] = e["changed"].get<bool>()
                      ? fmt::format("{} and {} differ", counted(e["modules_differ"].get<std::int64_t>(), "module type"),
                                    counted(e["code_differ"].get<std::int64_t>(), "traced function"))
                      : "none: the same module types and the same traced code";
  raw["code_reference_only"] =
      fmt::format("{}", fmt::join(e["code_reference_only"].get<std::vector<std::string>>(), ", "));
  raw["code_recipe_only"] = fmt::format("{}", fmt::join(e["code_recipe_only"].get<std::vector<std::string>>(), ", "));
  raw["tensors"] = tensor_rows(o["tensors"]);
  raw["tensor_count"] = raw["tensors"].size();
  return raw;
}

}  // namespace

json component_tests_view(const json& e, const std::string& id, const std::string& root) {
  json tests = json::array();
  for (const auto& t : e["component_tests"]) {
    json test = {{"swap", t["swap"]},
                 {"compares", t["compares"]},
                 {"shape", key_values(t["shape"], count_text)},
                 {"bound", format_double(t["bound"].get<double>())},
                 {"worst_error", t["worst_error"].get<double>() >= checks::kMaxRecordedError
                                     ? std::string("inf")
                                     : fmt::format("{:.4g}", t["worst_error"].get<double>())},
                 {"passed", t.contains("problem")     ? "not counted"
                            : t["passed"].get<bool>() ? "passed"
                                                      : "failed"},
                 {"problem", t.contains("problem") ? t["problem"] : json(false)},
                 {"raw", false}};
    if (t.contains("raw")) test["raw"] = raw_view(t["raw"], t.value("output", ""), id, root);
    tests.push_back(std::move(test));
  }
  return tests;
}

}  // namespace openrecipes::site::parts
