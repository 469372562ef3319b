// Strict calendar timestamps (Megatron's "[YYYY-MM-DD HH:MM:SS(.ffffff)]", Slurm's YYYY-MM-DDTHH:MM:SS);
// expected values by hand from the epoch 2000-01-01T00:00:00 = 946684800.
#include "evidence/calendar_time.h"

#include <gtest/gtest.h>

namespace openrecipes::evidence {
namespace {

TEST(CalendarTime, seconds_since_the_epoch_by_hand) {
  EXPECT_DOUBLE_EQ(parse_calendar_time("1970-01-01 00:00:00", ' ')->seconds, 0);
  EXPECT_DOUBLE_EQ(parse_calendar_time("2000-01-01T00:00:00", 'T')->seconds, 946684800);
  // 2000-01-01 to 2024-01-01: 24 years with 6 leap days (2000, 04, 08, 12, 16, 20) = 8766 days; + 31 + 28 days
  // to Feb 29 = 8825 days; + 12 h.
  EXPECT_DOUBLE_EQ(parse_calendar_time("2024-02-29 12:00:00", ' ')->seconds, 946684800.0 + 8825 * 86400 + 43200);
}

TEST(CalendarTime, fraction_digits_set_the_resolution) {
  auto t = parse_calendar_time("2000-01-01 00:00:01.250000", ' ');
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->seconds, 946684801.25);
  EXPECT_DOUBLE_EQ(t->resolution_s, 1e-6);
  EXPECT_DOUBLE_EQ(parse_calendar_time("2000-01-01 00:00:01", ' ')->resolution_s, 1);
}

TEST(CalendarTime, dates_that_do_not_exist_are_rejected_with_the_reason) {
  const char* why = "";
  for (const char* bad : {"2026-02-30 09:00:00", "2023-02-29 00:00:00", "1900-02-29 00:00:00", "2026-13-01 00:00:00",
                          "2026-10-11 25:05:00", "2026-10-11 10:60:00", "2026-10-11 10:00:60", "2026-04-31 00:00:00"}) {
    EXPECT_FALSE(parse_calendar_time(bad, ' ', &why)) << bad;
    EXPECT_STREQ(why, "not a date or time of day") << bad;
  }
  EXPECT_TRUE(parse_calendar_time("2000-02-29 00:00:00", ' '));  // 2000 is a leap year (divisible by 400)
}

TEST(CalendarTime, other_shapes_are_not_timestamps) {
  const char* why = "";
  for (const char* bad : {"Rank 0", "2026-10-11", "2026-10-11 10:00", "2026-10-11T10:00:00", "2026-10-11 10:00:00.",
                          "2026-10-11 10:00:00.1234567890", "2026-10-11 10:00:00Z", "+026-10-11 10:00:00"}) {
    EXPECT_FALSE(parse_calendar_time(bad, ' ', &why)) << bad;
    EXPECT_STREQ(why, "not of the form YYYY-MM-DD HH:MM:SS") << bad;
  }
}

}  // namespace
}  // namespace openrecipes::evidence
