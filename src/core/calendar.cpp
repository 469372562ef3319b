// Calendar dates: month lengths and strict YYYY-MM-DD.
#include "core/calendar.h"

namespace openrecipes {

int days_in_month(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

bool is_calendar_date(std::string_view d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u})
    if (d[i] < '0' || d[i] > '9') return false;
  auto num = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (d[i] - '0');
    return v;
  };
  const int y = num(0, 4), m = num(5, 2), day = num(8, 2);
  return y >= 1 && day >= 1 && day <= days_in_month(y, m);
}

}  // namespace openrecipes
