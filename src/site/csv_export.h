// The leaderboard as a spreadsheet (the site's data/recipes.csv): one row per recipe, ranked or not, read from the
// JSON that `build --json` writes, so every number is the one the build computed. docs/recipes-csv.md documents the
// columns. Every text cell is quoted per RFC 4180, and one that a spreadsheet would run as a formula (a first
// character of = + - @, tab or carriage return) is neutralised with a leading ' as OWASP's CSV-injection guidance
// says: recipes arrive from strangers.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace openrecipes::site {

/// The version of the column set; a change of columns is a new version (docs/recipes-csv.md).
inline constexpr const char* kRecipesCsvSchema = "openrecipes-recipes-csv/3";

/// One text cell: `text` in double quotes with inner quotes doubled, prefixed with ' inside the quotes when it
/// starts with =, +, -, @, tab or CR (OWASP "CSV Injection"). Always quoted, so commas and newlines stay in the cell.
std::string csv_text_cell(std::string_view text);

/// One number cell: shortest round-trip decimal (format_double), or an empty cell for null or a non-number.
std::string csv_number_cell(const nlohmann::json& value);

/// The CSV of a leaderboard JSON (leaderboard_json's shape, schema "openrecipes-leaderboard/2"): a header line, then
/// per pair (in the JSON's order) its ranked recipes by rank and then its unranked ones, CRLF line ends (RFC 4180).
/// Columns: id, model, gpu, workload, non_standard_workload, status ("verified" or "unranked"), rank, tokens_per_s
/// _per_gpu, cv, gpus, mfu, dollars_per_million_tokens, gpu_hours, author, date, framework, configuration,
/// convergence, evidence (registry::EvidenceCoverage::code: "LAVDT-"), reasons ("stage: message", joined with " | "),
/// tokens_per_s_per_gpu_low and _high (the score's 95% interval, measure::ScoreInterval; "inf" for an unbounded high,
/// both empty when not measured), within_noise_of_above ("true"/"false" for a ranked recipe, empty when unranked).
/// Throws nlohmann::json exceptions on JSON of another shape.
std::string recipes_csv(const nlohmann::json& leaderboard);

}  // namespace openrecipes::site
