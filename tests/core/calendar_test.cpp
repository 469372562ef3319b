// Calendar dates (core/calendar.h): month lengths and strict YYYY-MM-DD, against the Gregorian rules by hand.
#include "core/calendar.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(Calendar, february_has_29_days_in_leap_years_only) {
  EXPECT_EQ(days_in_month(2024, 2), 29);  // divisible by 4
  EXPECT_EQ(days_in_month(2026, 2), 28);
  EXPECT_EQ(days_in_month(1900, 2), 28);  // by 100, not by 400
  EXPECT_EQ(days_in_month(2000, 2), 29);  // by 400
  EXPECT_EQ(days_in_month(2026, 4), 30);
  EXPECT_EQ(days_in_month(2026, 12), 31);
  EXPECT_EQ(days_in_month(2026, 0), 0);
  EXPECT_EQ(days_in_month(2026, 13), 0);
}

TEST(Calendar, only_real_days_in_exactly_yyyy_mm_dd_are_dates) {
  EXPECT_TRUE(is_calendar_date("2026-11-29"));
  EXPECT_TRUE(is_calendar_date("2024-02-29"));
  EXPECT_FALSE(is_calendar_date("2026-02-29"));
  EXPECT_FALSE(is_calendar_date("2026-02-30"));
  EXPECT_FALSE(is_calendar_date("2026-13-01"));
  EXPECT_FALSE(is_calendar_date("2026-00-10"));
  EXPECT_FALSE(is_calendar_date("2026-04-31"));
  EXPECT_FALSE(is_calendar_date("0000-01-01"));
  EXPECT_FALSE(is_calendar_date("2026-1-01"));
  EXPECT_FALSE(is_calendar_date("2026-01-01 "));
  EXPECT_FALSE(is_calendar_date("２026-01-01"));
}

}  // namespace
}  // namespace openrecipes
