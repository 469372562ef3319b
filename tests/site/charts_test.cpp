// Tests for src/site/charts: nice axis ticks worked by hand, and the SVG a chart writes (escaped text, skipped
// non-finite points, the shaded window, values on bars, deterministic bytes).
#include "site/charts.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace openrecipes::site {
namespace {

TEST(Charts, nice_ticks_are_1_2_5_steps_covering_the_range) {
  // 2.46..4.49 over ~5 steps: raw step 0.406 -> 0.5; from floor(2.46/0.5)*0.5 = 2.0 to the first tick >= 4.49.
  EXPECT_EQ(nice_ticks(2.46, 4.49), (std::vector<double>{2.0, 2.5, 3.0, 3.5, 4.0, 4.5}));
  // 0..19 over ~10 steps: raw 1.9 -> 2.
  EXPECT_EQ(nice_ticks(0, 19, 10), (std::vector<double>{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
  // 0..25,555 over ~5 steps: raw 5,111 -> 10,000.
  EXPECT_EQ(nice_ticks(0, 25555), (std::vector<double>{0, 10000, 20000, 30000}));
  // One value: a span of 5% either side (12 -> 11.4..12.6, step 0.2 from raw 0.24).
  auto t = nice_ticks(12, 12);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LE(t.front(), 11.4 + 1e-9);
  EXPECT_GE(t.back(), 12.6 - 1e-9);
  EXPECT_EQ(nice_ticks(NAN, 1), (std::vector<double>{0, 1}));
}

TEST(Charts, line_chart_escapes_its_text_skips_non_finite_points_and_shades_the_window) {
  LineChart ch;
  ch.title = "<script>alert(1)</script>";
  ch.x_label = "step (0-based)";
  ch.y_label = "step time (s)";
  ch.series.push_back({"a \"b\" & c", {{0, 2.0}, {1, NAN}, {2, 3.0}}, false});
  ch.series.push_back({"reference", {{0, 2.5}, {2, 2.75}}, true});
  ch.shaded_x = {0.5, 1.5};
  ch.shaded_label = "measured window 1–1";
  const std::string svg = line_chart_svg(ch);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>"), std::string::npos);
  EXPECT_NE(svg.find("a &quot;b&quot; &amp; c"), std::string::npos);
  EXPECT_NE(svg.find("measured window 1–1"), std::string::npos);
  // y ticks for 2..3 step 0.2; x ticks 0..2 step 0.2 (raw 0.2 for ~10 steps). The plot spans x 72..624,
  // y 252 (bottom, 2.0) .. 30 (top, 3.0). Point (0, 2.0) -> (72.00, 252.00); (2, 3.0) -> (624.00, 30.00).
  EXPECT_THAT(svg, ::testing::HasSubstr("<polyline points=\"72.00,252.00 624.00,30.00\""));
  // The second series: dashed and wide (3), hollow markers; (2, 2.75) -> y = 252 - 0.75 * 222 = 85.50.
  EXPECT_THAT(svg,
              ::testing::HasSubstr("<polyline points=\"72.00,141.00 624.00,85.50\" fill=\"none\" stroke=\"#c2410c\" "
                                   "stroke-width=\"3\" stroke-dasharray=\"6 4\"/>"));
  // The shaded window 0.5..1.5: x = 72 + 0.25 * 552 = 210.00, width 276.00.
  EXPECT_THAT(svg, ::testing::HasSubstr("<rect x=\"210.00\" y=\"30.00\" width=\"276.00\""));
  EXPECT_EQ(svg, line_chart_svg(ch));
}

TEST(Charts, bar_chart_writes_each_value_and_thousands_on_the_axis) {
  BarChart ch{"best tokens/s/GPU", "tokens/s/GPU", {{"H100", 12395.4, "12,395.4"}, {"H200", 23232.7, "23,232.7"}}, 0};
  const std::string svg = bar_chart_svg(ch);
  EXPECT_NE(svg.find(">12,395.4</text>"), std::string::npos);
  EXPECT_NE(svg.find(">23,232.7</text>"), std::string::npos);
  EXPECT_NE(svg.find(">H100</text>"), std::string::npos);
  // 0..25,555.97 (110% of the highest) -> ticks 0, 10,000, 20,000, 30,000, written with separators.
  EXPECT_NE(svg.find(">30,000</text>"), std::string::npos);
  EXPECT_NE(svg.find(">tokens/s/GPU</text>"), std::string::npos);
}

}  // namespace
}  // namespace openrecipes::site
