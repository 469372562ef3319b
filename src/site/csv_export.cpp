// data/recipes.csv from the leaderboard JSON: RFC 4180 quoting and OWASP's CSV-injection neutralisation.
#include "site/csv_export.h"

#include "core/text.h"
#include "site/board_entries.h"

namespace openrecipes::site {
namespace {

constexpr const char* kColumns[] = {"id",
                                    "model",
                                    "gpu",
                                    "workload",
                                    "non_standard_workload",
                                    "status",
                                    "rank",
                                    "tokens_per_s_per_gpu",
                                    "cv",
                                    "gpus",
                                    "tp",
                                    "pp",
                                    "cp",
                                    "ep",
                                    "etp",
                                    "dp",
                                    "vpp",
                                    "micro_batch",
                                    "mfu",
                                    "dollars_per_million_tokens",
                                    "gpu_hours",
                                    "author",
                                    "date",
                                    "framework",
                                    "configuration",
                                    "convergence",
                                    "evidence",
                                    "reasons",
                                    "tokens_per_s_per_gpu_low",
                                    "tokens_per_s_per_gpu_high",
                                    "within_noise_of_above"};

// The string at `key` of `j`, or "" when it is absent or not a string.
std::string text_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const nlohmann::json& value_of(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  auto it = j.find(key);
  return it == j.end() ? null : *it;
}

// The verdicts of both checks as the ranked table shows them: a reference recipe's convergence reads "reference".
std::pair<std::string, std::string> check_verdicts(const nlohmann::json& entry) {
  const nlohmann::json& checks = value_of(entry, "checks");
  if (!checks.is_object()) return {"", ""};
  std::string configuration = text_of(value_of(checks, "configuration"), "verdict");
  std::string convergence =
      checks.contains("reference") ? "reference" : text_of(value_of(checks, "convergence"), "verdict");
  return {configuration, convergence};
}

// Bound `i` of the entry's score interval ([low, high], a null high is unbounded: "inf"); empty when not measured.
std::string interval_cell(const nlohmann::json& entry, std::size_t i) {
  const nlohmann::json& in = value_of(entry, "tokens_per_s_per_gpu_interval");
  if (!in.is_array() || in.size() != 2) return "";
  return in[i].is_null() && i == 1 ? "inf" : csv_number_cell(in[i]);
}

std::string row(const nlohmann::json& pair, const nlohmann::json& entry, const char* status) {
  std::string reasons;
  for (const auto& r : value_of(entry, "reasons"))
    if (r.is_object()) reasons += (reasons.empty() ? "" : " | ") + text_of(r, "stage") + ": " + text_of(r, "message");
  const auto [configuration, convergence] = check_verdicts(entry);
  const std::string cells[] = {csv_text_cell(text_of(entry, "id")),
                               csv_text_cell(text_of(pair, "model")),
                               csv_text_cell(text_of(pair, "gpu")),
                               csv_text_cell(text_of(value_of(pair, "workload"), "key")),
                               value_of(pair, "non_standard_workload") == true ? "true" : "false",
                               status,
                               csv_number_cell(value_of(entry, "rank")),
                               csv_number_cell(value_of(entry, "tokens_per_s_per_gpu")),
                               csv_number_cell(value_of(entry, "cv")),
                               csv_number_cell(value_of(entry, "gpus")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "tp")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "pp")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "cp")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "ep")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "etp")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "dp")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "vpp")),
                               csv_number_cell(value_of(value_of(entry, "layout"), "micro_batch")),
                               csv_number_cell(value_of(entry, "mfu")),
                               csv_number_cell(value_of(entry, "dollars_per_million_tokens")),
                               csv_number_cell(value_of(entry, "gpu_hours")),
                               csv_text_cell(text_of(value_of(entry, "author"), "name")),
                               csv_text_cell(text_of(entry, "date")),
                               csv_text_cell(text_of(entry, "framework")),
                               csv_text_cell(configuration),
                               csv_text_cell(convergence),
                               csv_text_cell(text_of(value_of(entry, "evidence_coverage"), "code")),
                               csv_text_cell(reasons),
                               interval_cell(entry, 0),
                               interval_cell(entry, 1),
                               value_of(entry, "within_noise_of_above").is_boolean()
                                   ? (value_of(entry, "within_noise_of_above") == true ? "true" : "false")
                                   : ""};
  std::string line;
  for (const auto& c : cells) line += (line.empty() ? "" : ",") + c;
  return line + "\r\n";
}

}  // namespace

std::string csv_text_cell(std::string_view text) {
  std::string out = "\"";
  if (!text.empty() &&
      (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@' || text[0] == '\t' || text[0] == '\r'))
    out += '\'';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_number_cell(const nlohmann::json& value) {
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  if (value.is_number()) return format_double(value.get<double>());
  return "";
}

std::string recipes_csv(const nlohmann::json& leaderboard) {
  std::string out;
  for (const char* c : kColumns) out += (out.empty() ? "" : ",") + std::string(c);
  out += "\r\n";
  for (const auto& pair : leaderboard.at("pairs")) {
    for (const auto& [e, status] : pair_entries(pair)) out += row(pair, *e, status);
  }
  return out;
}

}  // namespace openrecipes::site
