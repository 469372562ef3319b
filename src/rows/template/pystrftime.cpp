// datetime.strftime for strftime_now: a pinned date at 00:00:00, naive (CPython 3.11 Modules/_datetimemodule.c
// wrap_strftime: %f, %z and %Z replaced before the C library's strftime, in the C locale).
#include <locale.h>

#include <clocale>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "rows/template/failure.h"
#include "rows/template/pyformat.h"

namespace openrecipes::rows::template_engine {

std::string strftime_date(std::string_view today, std::string_view fmt) {
  int y = 0, m = 0, d = 0;
  if (std::sscanf(std::string(today).c_str(), "%d-%d-%d", &y, &m, &d) != 3)
    fail(PyError::ValueError, "the render date must be YYYY-MM-DD");
  // datetime.strftime: %f, %z and %Z are replaced before time.strftime sees the format.
  std::string f;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '%' && i + 1 < fmt.size()) {
      char c = fmt[i + 1];
      if (c == 'f') {
        f += "000000";
        ++i;
        continue;
      }
      if (c == 'z' || c == 'Z') {
        ++i;
        continue;
      }
      f.push_back('%');
      f.push_back(c);
      ++i;
      continue;
    }
    f.push_back(fmt[i]);
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = m - 1;
  tm.tm_mday = d;
  tm.tm_isdst = -1;
  // Day of week and day of year (proleptic Gregorian).
  auto days_from_civil = [](int yy, int mm, int dd) {
    yy -= mm <= 2;
    const int era = (yy >= 0 ? yy : yy - 399) / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (mm + (mm > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
  };
  int days = days_from_civil(y, m, d);
  tm.tm_wday = ((days % 7) + 11) % 7;  // 1970-01-01 was a Thursday
  tm.tm_yday = days - days_from_civil(y, 1, 1);
  static locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  std::vector<char> buf(256 + f.size() * 64);
  std::size_t n = strftime_l(buf.data(), buf.size(), f.c_str(), &tm, c_locale);
  return std::string(buf.data(), n);
}

}  // namespace openrecipes::rows::template_engine
