// Calendar timestamps as the evidence files print them ("2024-09-03 15:54:54", "2026-11-29 17:24:16.955740",
// Slurm's "2026-02-01T10:00:00"), read strictly: a date that does not exist is an error, never normalised.
#pragma once

#include <optional>
#include <string_view>

namespace openrecipes::evidence {

/// A parsed timestamp: seconds since 1970-01-01 00:00:00 of the same (unstated) time zone, and the resolution
/// the text carried (1 s, or 10^-d s for d fraction digits).
struct CalendarTime {
  double seconds = 0;
  double resolution_s = 1;
};

/// Parses exactly "YYYY-MM-DD<sep>HH:MM:SS[.f{1,9}]" (the whole of `text`), `sep` being ' ' or 'T' as allowed
/// by `separator`. Years 1970..9999; the month's real length (leap years included); hours 0..23, minutes
/// 0..59, seconds 0..59 (leap seconds are not printed by the tools we read). Returns nullopt and sets `why`
/// (if given) to the reason: "not of the form YYYY-MM-DD HH:MM:SS" or "not a date or time of day".
std::optional<CalendarTime> parse_calendar_time(std::string_view text, char separator, const char** why = nullptr);

}  // namespace openrecipes::evidence
