// The site's charts (docs/site.md): SVG the tool writes itself, so a page needs no script to show them. Axes carry
// their units and thousands separators; series differ by dash pattern and marker as well as colour, and each is
// named in a legend, so a chart reads in grey scale. Every text is escaped (html_text).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace openrecipes::site {

struct LineSeries {
  std::string label;                              ///< legend text
  std::vector<std::pair<double, double>> points;  ///< (x, y), drawn in order; non-finite points are skipped
  bool dashed = false;                            ///< dashed line and hollow markers (the second series)
  bool markers_only = false;                      ///< points without a line (a scatter plot)
};

/// A band drawn behind the series: at each x, from lo to hi (e.g. the convergence check's tolerance).
struct BandPoint {
  double x, lo, hi;
};

struct LineChart {
  std::string title;    ///< <title> of the SVG (its accessible name)
  std::string x_label;  ///< with its unit, e.g. "step"
  std::string y_label;  ///< with its unit, e.g. "step time (s)"
  std::vector<LineSeries> series;
  std::optional<std::pair<double, double>> shaded_x;  ///< an x range drawn shaded, e.g. the measured window
  std::string shaded_label;                           ///< its legend text
  int y_decimals = 2;                                 ///< decimals of the y tick labels
  bool y_from_zero = false;  ///< the y axis starts at 0 (a time or a rate, whose cut axis would exaggerate)
  bool x_from_zero = false;
  bool x_integer = false;       ///< x ticks at whole numbers only (a GPU count)
  std::vector<BandPoint> band;  ///< drawn shaded under the series
  std::string band_label;       ///< its legend text
};

struct Bar {
  std::string label;  ///< category under the bar, e.g. "H200"
  double value = 0;   ///< >= 0
  std::string text;   ///< the value as written above the bar, e.g. "23,232.7"
};

struct BarChart {
  std::string title;
  std::string y_label;  ///< with its unit, e.g. "tokens/s/GPU"
  std::vector<Bar> bars;
  int y_decimals = 0;
};

/// "Nice" axis ticks covering [lo, hi]: about `target` steps of 1, 2 or 5 × 10^k. lo == hi gets a span around it.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

/// An SVG line chart (640 × 300 user units, scales with its container), deterministic bytes for equal input.
std::string line_chart_svg(const LineChart& chart);

/// An SVG bar chart with the value written on each bar; y from 0.
std::string bar_chart_svg(const BarChart& chart);

}  // namespace openrecipes::site
