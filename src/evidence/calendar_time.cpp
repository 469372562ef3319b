// Strict calendar timestamp parsing for evidence files (SPEC §2: Megatron timestamps, Slurm sacct times).
#include "evidence/calendar_time.h"

#include <cmath>
#include <cstdint>

#include "core/calendar.h"

namespace openrecipes::evidence {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse; valid for years >= 1).
std::int64_t days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) {
  y -= m <= 2;
  const std::int64_t era = y / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool digits(std::string_view s, std::size_t at, std::size_t n, std::int64_t& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<CalendarTime> parse_calendar_time(std::string_view s, char separator, const char** why) {
  auto fail = [&](const char* reason) -> std::optional<CalendarTime> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const char* shape = separator == 'T' ? "not of the form YYYY-MM-DDTHH:MM:SS" : "not of the form YYYY-MM-DD HH:MM:SS";
  std::int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (s.size() < 19 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || s[10] != separator || !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) ||
      s[16] != ':' || !digits(s, 17, 2, se))
    return fail(shape);
  CalendarTime t;
  double fraction = 0;
  if (s.size() > 19) {
    const std::size_t n = s.size() - 20;
    std::int64_t f = 0;
    if (s[19] != '.' || n < 1 || n > 9 || !digits(s, 20, n, f)) return fail(shape);
    t.resolution_s = std::pow(10.0, -static_cast<double>(n));
    fraction = static_cast<double>(f) * t.resolution_s;
  }
  if (y < 1970 || d < 1 || d > days_in_month(static_cast<int>(y), static_cast<int>(mo)) || h > 23 || mi > 59 || se > 59)
    return fail("not a date or time of day");
  t.seconds = static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) + fraction;
  return t;
}

}  // namespace openrecipes::evidence
