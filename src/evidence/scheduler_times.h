// Parser for a run's scheduler times (SPEC §2 "GPU-hours"): the launcher's own clock
// ("<run> rc=<code> start=<unix s> end=<unix s>" lines) or Slurm `sacct -P` output (Start and End columns).
#pragma once

#include <string>
#include <string_view>

namespace openrecipes::evidence {

/// Admission-to-finish interval of one run, in Unix seconds.
struct RunTimes {
  double admitted_s = 0;  ///< when the scheduler admitted the job (Slurm Start; the launcher's start)
  double finished_s = 0;  ///< when it finished (Slurm End; the launcher's end)
  int exit_code = 0;      ///< the run's exit code (launcher rc; Slurm ExitCode's first field)
  std::size_t line = 0;   ///< 1-based line the times came from
  std::string state;      ///< Slurm's JobState (scontrol) or State (sacct) when shown; "" for the launcher
};

/// Launcher format: picks the line whose first word is `run`. Throws InputError (file:line, fix) when the
/// run is absent or given twice, a field is missing, malformed or given twice, a time is not a finite Unix
/// time from 1970 to 9999, end < start, or end − start is over a year (366 days).
RunTimes parse_launcher_times(std::string_view text, const std::string& file, const std::string& run);

/// Slurm `sacct -P -o JobID,Start,End,ExitCode[,State]` (any column order; header line required, '|' separated;
/// times as YYYY-MM-DDTHH:MM:SS, read as UTC, strictly: 2026-02-30 or hour 25 is an error naming the value).
/// Picks the job `job_id` (the allocation line, not its steps). Throws InputError like the launcher form, and
/// when the header names a column twice.
RunTimes parse_sacct_times(std::string_view text, const std::string& file, const std::string& job_id);

/// Slurm `scontrol show job -o <job>` output, as a cluster without an accounting database keeps it (one line per
/// job of space-separated KEY=value fields): the line whose JobId is `job_id`, its StartTime and EndTime (read as UTC;
/// `openrecipes run` asks scontrol with TZ=UTC), ExitCode's first field and JobState. Throws InputError like the
/// other forms, and for a job whose times read "Unknown" or "None" (it had not finished).
RunTimes parse_scontrol_times(std::string_view text, const std::string& file, const std::string& job_id);

/// The times of `format` ("launcher": `key` is the run label; "sacct" or "scontrol": the job id), by the parsers
/// above (and their errors). Throws InputError for another format.
RunTimes parse_run_times(std::string_view text, const std::string& file, const std::string& format,
                         const std::string& key);

}  // namespace openrecipes::evidence
