// Scheduler times (SPEC §2 "GPU-hours").
#include "evidence/scheduler_times.h"

#include <ctime>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::evidence {

RunTimes parse_launcher_times(std::string_view text, const std::string& file, const std::string& run) {
  std::optional<RunTimes> found;
  auto lines = lines_of(text);
  const char* fix = "each line must read '<run> rc=<exit code> start=<unix seconds> end=<unix seconds>'";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto words = split(trim(lines[i]), ' ');
    if (words.empty() || words[0] != run) continue;
    std::string where = fmt::format("{}:{}", file, i + 1);
    if (found) throw InputError(where, "run '" + run + "' appears twice", "keep one line per run");
    std::map<std::string_view, std::string_view> kv;
    for (std::size_t w = 1; w < words.size(); ++w) {
      if (words[w].empty()) continue;
      auto eq = words[w].find('=');
      if (eq == std::string_view::npos) throw InputError(where, "malformed field " + quote_for_message(words[w]), fix);
      kv[words[w].substr(0, eq)] = words[w].substr(eq + 1);
    }
    RunTimes t;
    t.line = i + 1;
    auto start = kv.count("start") ? parse_double(kv["start"]) : std::nullopt;
    auto end = kv.count("end") ? parse_double(kv["end"]) : std::nullopt;
    auto rc = kv.count("rc") ? parse_int(kv["rc"]) : std::nullopt;
    if (!start || !end || !rc) throw InputError(where, "missing or malformed rc, start or end", fix);
    t.admitted_s = *start;
    t.finished_s = *end;
    t.exit_code = static_cast<int>(*rc);
    if (!(t.finished_s >= t.admitted_s)) throw InputError(where, "end is before start", fix);
    found = t;
  }
  if (!found) throw InputError(file, "no line for run '" + run + "'", fix);
  return *found;
}

namespace {
std::optional<double> parse_iso_utc(std::string_view s) {
  std::tm tm{};
  std::string str(trim(s));
  const char* end = strptime(str.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end || *end != '\0') return std::nullopt;
  return static_cast<double>(timegm(&tm));
}
}  // namespace

RunTimes parse_sacct_times(std::string_view text, const std::string& file, const std::string& job_id) {
  auto lines = lines_of(text);
  const char* fix = "give the output of: sacct -P -j <job> -o JobID,Start,End,ExitCode";
  if (lines.empty()) throw InputError(file, "empty sacct output", fix);
  auto header = split(trim(lines[0]), '|');
  std::map<std::string_view, std::size_t> col;
  for (std::size_t c = 0; c < header.size(); ++c) col[trim(header[c])] = c;
  for (const char* need : {"JobID", "Start", "End"})
    if (!col.count(need)) throw InputError(file + ":1", fmt::format("sacct header has no {} column", need), fix);
  std::optional<RunTimes> found;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto cells = split(trim(lines[i]), '|');
    if (cells.size() != header.size()) continue;
    if (trim(cells[col["JobID"]]) != job_id) continue;
    std::string where = fmt::format("{}:{}", file, i + 1);
    if (found) throw InputError(where, "job " + job_id + " appears twice", fix);
    auto start = parse_iso_utc(cells[col["Start"]]);
    auto end = parse_iso_utc(cells[col["End"]]);
    if (!start || !end)
      throw InputError(where, "Start or End is not a finished time (YYYY-MM-DDTHH:MM:SS)",
                       "give sacct output for a finished job");
    RunTimes t;
    t.admitted_s = *start;
    t.finished_s = *end;
    t.line = i + 1;
    if (col.count("ExitCode")) {
      auto code = split(cells[col["ExitCode"]], ':');
      auto v = parse_int(code[0]);
      if (!v) throw InputError(where, "malformed ExitCode", fix);
      t.exit_code = static_cast<int>(*v);
    }
    if (t.finished_s < t.admitted_s) throw InputError(where, "End is before Start", fix);
    found = t;
  }
  if (!found) throw InputError(file, "no line for job " + job_id, fix);
  return *found;
}

}  // namespace openrecipes::evidence
