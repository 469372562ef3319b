// Calendar dates of the proleptic Gregorian calendar, read strictly (DESIGN.md "Untrusted input": a date that
// does not exist is an error, never normalised). One rule for recipe dates, manifests, --date and log stamps.
#pragma once

#include <string_view>

namespace openrecipes {

/// Days in month `month` (1..12) of `year`, 29 for February of a leap year (divisible by 4, and by 400 when by
/// 100); 0 for a month outside 1..12.
int days_in_month(int year, int month);

/// True when `text` is exactly "YYYY-MM-DD" (ASCII digits) naming a real day of a year 0001..9999.
bool is_calendar_date(std::string_view text);

}  // namespace openrecipes
