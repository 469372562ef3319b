// What the site's pages share (SPEC §5): number cells, safe links, the table row of a recipe, its reasons and score
// interval, a pair's anchor and best verified recipe. Internals of the pages (site/pages.h), in site::parts; each
// reads the leaderboard JSON (leaderboard_json's shape) and throws nlohmann::json exceptions on JSON of another shape.
// A page's file keeps its helpers in site::parts and names them with `using namespace parts;` inside a function only:
// src/ builds in unity batches, where a directive at namespace scope would reach the files compiled after it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace openrecipes::site::parts {

/// `url` as a link target only when it is an https URL without spaces, quotes or angle brackets; null otherwise
/// (javascript:, data:, relative paths are shown as text, never as a link).
nlohmann::json https_link(std::string_view url);

/// A source as gpus.yaml writes it under `key`, "https://… (a note)": the URL alone as the link, or null.
nlohmann::json source_link(const nlohmann::json& j, const char* key);

/// The link of the site's copy of evidence file `relative` of recipe `id` (evidence_site_path, percent-encoded,
/// prefixed by `root`), or null where the site holds no copy (a path that leaves the recipe's folder).
nlohmann::json evidence_href(const std::string& id, const std::string& root, const std::string& relative);

/// Field `key` of `j` when it is a number, else nullopt.
std::optional<double> number(const nlohmann::json& j, const char* key);

/// Field `key` of `j` when it is a string, else "".
std::string str(const nlohmann::json& j, const char* key);

/// A number cell {"text", "value"}: the text a person reads (`text(v)`) and the exact value (format_double, the
/// shortest round trip) for sorting and checking; {"–", ""} for a missing or non-finite value.
nlohmann::json cell(const std::optional<double>& v, std::string (*text)(double));

/// Cell texts: a fraction as "9.4%", a count rounded with thousands separators, seconds as "1.2345 s".
std::string percent1(double v);
std::string integer(double v);
std::string seconds(double v);

/// The reasons of an entry as the templates list them: stage, sentence and, where there is one, the fix (an empty fix
/// is left out, since a template's section shows for any string).
nlohmann::json reasons_view(const nlohmann::json& reasons);

/// The ±95% column's legend (the tables' header tooltip and the line under them).
std::string interval_legend();

/// What the table row of a ranked or unranked entry `e` of `pair` shows; links are prefixed by `root` (the page's
/// root_of).
nlohmann::json entry_row(const nlohmann::json& pair, const nlohmann::json& e, const std::string& root);

/// Whether entry `e` is verified (a preview ranks entries that are not).
bool is_verified_entry(const nlohmann::json& e);

/// The best verified entry of a pair (the first verified one in rank order), or nullptr.
const nlohmann::json* best_verified(const nlohmann::json& pair);

/// The pair's anchor on its model's page, "pair:<gpu>:<workload>".
std::string pair_anchor(const nlohmann::json& pair);

/// The framework and GPU-count filters of a table: every value of the rows shown, sorted.
struct FilterOptions {
  std::set<std::string> frameworks;
  std::set<std::int64_t> gpu_counts;

  /// Adds entry `e`'s framework and GPU count.
  void add(const nlohmann::json& e);
  /// Writes "frameworks" and "gpu_counts" (counts as text) into `view`.
  void write(nlohmann::json& view) const;
};

}  // namespace openrecipes::site::parts
