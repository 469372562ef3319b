// Scheduler times (SPEC §2 "GPU-hours").
#include "evidence/scheduler_times.h"

#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"
#include "evidence/calendar_time.h"

namespace openrecipes::evidence {
namespace {

// Times are Unix seconds between 1970 and 9999-12-31 (what sacct can print); a run spans at most a year.
constexpr double kLatestTimeS = 253402300799.0;  // 9999-12-31T23:59:59 UTC
constexpr double kLongestRunS = 366.0 * 86400.0;

void check_interval(const RunTimes& t, const std::string& where, const char* start_name, const char* end_name,
                    const char* fix) {
  if (!(t.finished_s >= t.admitted_s))
    throw InputError(where, fmt::format("{} is before {}", end_name, start_name), fix);
  if (t.finished_s - t.admitted_s > kLongestRunS)
    throw InputError(where,
                     fmt::format("{} is {} s after {}: more than a year, which no run of a recipe takes", end_name,
                                 format_double(t.finished_s - t.admitted_s), start_name),
                     fix);
}

// The Unix seconds of Slurm's calendar time `text` (YYYY-MM-DDTHH:MM:SS, UTC), the value of the field `name` at
// `where`; InputError naming the field, its text and why it is no time, with the fix of `tool` (sacct, scontrol).
double slurm_seconds(std::string_view text, std::string_view name, const std::string& where, std::string_view tool) {
  const char* why = "";
  const auto t = parse_calendar_time(text, 'T', &why);
  if (!t)
    throw InputError(where, fmt::format("{} {} is {}", name, quote_for_message(text), why),
                     fmt::format("give {} output for a finished job (times as YYYY-MM-DDTHH:MM:SS)", tool));
  return t->seconds;
}

}  // namespace

RunTimes parse_launcher_times(std::string_view text, const std::string& file, const std::string& run) {
  std::optional<RunTimes> found;
  auto lines = lines_of(text);
  const char* fix = "each line must read '<run> rc=<exit code> start=<unix seconds> end=<unix seconds>'";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto words = split(trim(lines[i]), ' ');
    if (words.empty() || words[0] != run) continue;
    std::string where = fmt::format("{}:{}", file, i + 1);
    if (found)
      throw InputError(where, fmt::format("run '{}' appears twice (also line {})", run, found->line),
                       "keep one line per run");
    std::map<std::string_view, std::string_view> kv;
    for (std::size_t w = 1; w < words.size(); ++w) {
      if (words[w].empty()) continue;
      auto eq = words[w].find('=');
      if (eq == std::string_view::npos) throw InputError(where, "malformed field " + quote_for_message(words[w]), fix);
      if (!kv.emplace(words[w].substr(0, eq), words[w].substr(eq + 1)).second)
        throw InputError(where, fmt::format("field {} is given twice", quote_for_message(words[w].substr(0, eq + 1))),
                         fix);
    }
    for (const char* need : {"rc", "start", "end"})
      if (!kv.count(need)) throw InputError(where, fmt::format("missing field '{}='", need), fix);
    auto time_of = [&](const char* name) {
      auto v = parse_double(kv[name]);
      const std::string field = quote_for_message(std::string(name) + "=" + std::string(kv[name]));
      if (!v) throw InputError(where, fmt::format("{} is not a number", field), fix);
      if (!std::isfinite(*v) || *v < 0 || *v > kLatestTimeS)
        throw InputError(where, fmt::format("{} is not a finite time (Unix seconds from 1970 to 9999)", field), fix);
      return *v;
    };
    RunTimes t;
    t.line = i + 1;
    t.admitted_s = time_of("start");
    t.finished_s = time_of("end");
    auto rc = parse_int(kv["rc"]);
    if (!rc || *rc < -255 || *rc > 255)
      throw InputError(where, fmt::format("{} is not an exit code", quote_for_message("rc=" + std::string(kv["rc"]))),
                       fix);
    t.exit_code = static_cast<int>(*rc);
    check_interval(t, where, "start", "end", fix);
    found = t;
  }
  if (!found) throw InputError(file, "no line for run '" + run + "'", fix);
  return *found;
}

RunTimes parse_sacct_times(std::string_view text, const std::string& file, const std::string& job_id) {
  auto lines = lines_of(text);
  const char* fix = "give the output of: sacct -P -j <job> -o JobID,Start,End,ExitCode";
  if (lines.empty()) throw InputError(file, "empty sacct output", fix);
  auto header = split(trim(lines[0]), '|');
  std::map<std::string_view, std::size_t> col;
  for (std::size_t c = 0; c < header.size(); ++c)
    if (!col.emplace(trim(header[c]), c).second)
      throw InputError(file + ":1",
                       fmt::format("sacct header names the column {} twice", quote_for_message(trim(header[c]))), fix);
  for (const char* need : {"JobID", "Start", "End"})
    if (!col.count(need)) throw InputError(file + ":1", fmt::format("sacct header has no {} column", need), fix);
  std::optional<RunTimes> found;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto cells = split(trim(lines[i]), '|');
    if (cells.size() != header.size()) continue;
    if (trim(cells[col["JobID"]]) != job_id) continue;
    std::string where = fmt::format("{}:{}", file, i + 1);
    if (found) throw InputError(where, fmt::format("job {} appears twice (also line {})", job_id, found->line), fix);
    auto time_of = [&](const char* name) { return slurm_seconds(trim(cells[col[name]]), name, where, "sacct"); };
    RunTimes t;
    t.admitted_s = time_of("Start");
    t.finished_s = time_of("End");
    t.line = i + 1;
    if (col.count("ExitCode")) {
      auto code = split(cells[col["ExitCode"]], ':');
      auto v = parse_int(code[0]);
      if (!v || *v < 0 || *v > 255)
        throw InputError(where, "malformed ExitCode " + quote_for_message(cells[col["ExitCode"]]), fix);
      t.exit_code = static_cast<int>(*v);
    }
    if (col.count("State")) t.state = std::string(split(trim(cells[col["State"]]), ' ')[0]);
    check_interval(t, where, "Start", "End", fix);
    found = t;
  }
  if (!found) throw InputError(file, "no line for job " + job_id, fix);
  return *found;
}

RunTimes parse_scontrol_times(std::string_view text, const std::string& file, const std::string& job_id) {
  const char* fix = "give the output of: TZ=UTC scontrol show job -o <job>, taken after the job finished";
  auto lines = lines_of(text);
  // The value of KEY= in a line of space-separated fields (a value runs to the next space).
  auto value_of = [](std::string_view line, std::string_view key) -> std::optional<std::string_view> {
    for (auto word : split(line, ' '))
      if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=')
        return word.substr(key.size() + 1);
    return std::nullopt;
  };
  std::optional<RunTimes> found;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto line = trim(lines[i]);
    if (value_of(line, "JobId") != std::optional<std::string_view>(job_id)) continue;
    std::string where = fmt::format("{}:{}", file, i + 1);
    if (found) throw InputError(where, fmt::format("job {} appears twice (also line {})", job_id, found->line), fix);
    auto time_of = [&](const char* name) {
      auto v = value_of(line, name);
      if (!v) throw InputError(where, fmt::format("no {} field", name), fix);
      return slurm_seconds(*v, name, where, "scontrol");
    };
    RunTimes t;
    t.admitted_s = time_of("StartTime");
    t.finished_s = time_of("EndTime");
    t.line = i + 1;
    auto code = value_of(line, "ExitCode");
    if (!code) throw InputError(where, "no ExitCode field", fix);
    auto first = parse_int(split(*code, ':')[0]);
    if (!first || *first < 0 || *first > 255)
      throw InputError(where, "malformed ExitCode " + quote_for_message(*code), fix);
    t.exit_code = static_cast<int>(*first);
    if (auto st = value_of(line, "JobState")) t.state = std::string(*st);
    check_interval(t, where, "StartTime", "EndTime", fix);
    found = t;
  }
  if (!found) throw InputError(file, "no line for job " + job_id, fix);
  return *found;
}

RunTimes parse_run_times(std::string_view text, const std::string& file, const std::string& format,
                         const std::string& key) {
  if (format == "launcher") return parse_launcher_times(text, file, key);
  if (format == "sacct") return parse_sacct_times(text, file, key);
  if (format == "scontrol") return parse_scontrol_times(text, file, key);
  throw InputError(file, "unknown scheduler times format " + quote_for_message(format),
                   "use launcher, sacct or scontrol");
}

}  // namespace openrecipes::evidence
