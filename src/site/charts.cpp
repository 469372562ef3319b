// SVG charts (site/charts.h).
#include "site/charts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/text.h"
#include "site/html.h"

namespace openrecipes::site {

namespace {

constexpr double kWidth = 640, kHeight = 300;
constexpr double kLeft = 72, kRight = 16, kTop = 30, kBottom = 48;
constexpr double kLegendY = 12;  // the legend sits above the plot area, never over a line

// A coordinate with two decimals: enough for a 640-unit chart, and stable bytes.
std::string c(double v) { return fmt::format("{:.2f}", v); }

std::string tick_text(double v, int decimals) {
  if (std::fabs(v) < 1e-12) v = 0;
  return with_thousands(v, decimals);
}

struct Scale {
  double lo, hi, a, b;  // data [lo, hi] -> pixels [a, b]
  double operator()(double v) const { return hi == lo ? (a + b) / 2 : a + (v - lo) / (hi - lo) * (b - a); }
};

std::string open_svg(const std::string& title, const std::string& klass) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "font-family=\"sans-serif\" font-size=\"12\"><title>{}</title>\n",
      klass, kWidth, kHeight, html_text(title));
}

// Horizontal grid lines with their labels, and the y axis title written vertically.
std::string y_axis(const Scale& y, const std::vector<double>& ticks, int decimals, const std::string& label) {
  std::string s;
  for (double t : ticks) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#d0d0d0\" stroke-width=\"1\"/>", c(kLeft),
                     c(kWidth - kRight), c(y(t)), c(y(t)));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>\n",
                     c(kLeft - 6), c(y(t)), html_text(tick_text(t, decimals)));
  }
  s += fmt::format("<text x=\"14\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {})\">{}</text>\n",
                   c((kTop + kHeight - kBottom) / 2), c((kTop + kHeight - kBottom) / 2), html_text(label));
  return s;
}

int decimals_for(const std::vector<double>& ticks) {
  if (ticks.size() < 2) return 0;
  double step = ticks[1] - ticks[0];
  return step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.05;
    lo -= pad;
    hi += pad;
  }
  double raw = (hi - lo) / std::max(1, target);
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  // Each tick as k × step (not by adding steps up, which drifts): from the last multiple at or below lo to the
  // first at or above hi.
  std::vector<double> ticks;
  const double k0 = std::floor(lo / step + 1e-9);
  for (int i = 0; i < 50; ++i) {
    ticks.push_back((k0 + i) * step);
    if (ticks.back() >= hi - step * 1e-9) break;
  }
  return ticks;
}

std::string line_chart_svg(const LineChart& ch) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : ch.series)
    for (auto [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
    }
  if (ch.shaded_x) xlo = std::min(xlo, ch.shaded_x->first), xhi = std::max(xhi, ch.shaded_x->second);
  for (const auto& b : ch.band)
    if (std::isfinite(b.x) && std::isfinite(b.lo) && std::isfinite(b.hi))
      ylo = std::min(ylo, b.lo), yhi = std::max(yhi, b.hi);
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1;
  if (!std::isfinite(ylo)) ylo = 0, yhi = 1;
  if (ch.y_from_zero) ylo = std::min(ylo, 0.0);
  if (ch.x_from_zero) xlo = std::min(xlo, 0.0);
  auto yt = nice_ticks(ylo, yhi);
  auto xt = nice_ticks(xlo, xhi, 10);
  if (ch.x_integer && xt.size() >= 2 && xt[1] - xt[0] < 1)
    xt = nice_ticks(std::floor(xlo), std::ceil(xhi), static_cast<int>(std::max(1.0, std::ceil(xhi) - std::floor(xlo))));
  Scale x{xt.front(), xt.back(), kLeft, kWidth - kRight};
  Scale y{yt.front(), yt.back(), kHeight - kBottom, kTop};
  std::string s = open_svg(ch.title, "line");
  if (ch.shaded_x)
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#e8e8e8\" stroke=\"#909090\" "
        "stroke-dasharray=\"2 2\"/>\n",
        c(x(ch.shaded_x->first)), c(kTop), c(x(ch.shaded_x->second) - x(ch.shaded_x->first)),
        c(kHeight - kBottom - kTop));
  if (!ch.band.empty()) {
    std::string upper, lower;
    for (const auto& b : ch.band) {
      if (!std::isfinite(b.x) || !std::isfinite(b.lo) || !std::isfinite(b.hi)) continue;
      upper += (upper.empty() ? "" : " ") + c(x(b.x)) + "," + c(y(b.hi));
      lower = c(x(b.x)) + "," + c(y(b.lo)) + (lower.empty() ? "" : " ") + lower;
    }
    s += fmt::format("<polygon points=\"{} {}\" fill=\"#f3e3c3\" stroke=\"#c28a2c\" stroke-width=\"1\"/>\n", upper,
                     lower);
  }
  s += y_axis(y, yt, std::max(ch.y_decimals, decimals_for(yt)), ch.y_label);
  for (double t : xt)
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", c(x(t)), c(kHeight - kBottom + 16),
                     html_text(tick_text(t, decimals_for(xt))));
  s += fmt::format("\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", c((kLeft + kWidth - kRight) / 2),
                   c(kHeight - 8), html_text(ch.x_label));
  s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#000\"/>\n", c(kLeft), c(kWidth - kRight),
                   c(kHeight - kBottom), c(kHeight - kBottom));
  const char* colours[] = {"#1f5fa8", "#c2410c", "#4d7c0f"};
  int k = 0;
  double legend_x = kLeft + 8;
  for (const auto& ser : ch.series) {
    const char* colour = colours[k++ % 3];
    std::string pts;
    std::string marks;
    for (auto [px, py] : ser.points) {
      if (!std::isfinite(px) || !std::isfinite(py)) continue;
      pts += (pts.empty() ? "" : " ") + c(x(px)) + "," + c(y(py));
      marks +=
          fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>", c(x(px)), c(y(py)), ser.markers_only ? "5" : "2.5");
    }
    std::string dash = ser.dashed ? " stroke-dasharray=\"6 4\"" : "";
    const char* width = ser.dashed ? "3" : "1.5";  // a dashed series is drawn wide, so a solid one over it shows
    if (!ser.markers_only)
      s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", pts, colour,
                       width, dash);
    s += fmt::format("<g fill=\"{}\" stroke=\"{}\">{}</g>\n", ser.dashed ? "#fff" : colour, colour, marks);
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>", c(legend_x),
                     c(legend_x + 24), c(kLegendY), c(kLegendY), colour, width, dash);
    s += fmt::format("<text x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>\n", c(legend_x + 30), c(kLegendY),
                     html_text(ser.label));
    legend_x += 40 + 7.0 * static_cast<double>(ser.label.size());
  }
  if (!ch.band.empty() && !ch.band_label.empty()) {
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"10\" fill=\"#f3e3c3\" stroke=\"#c28a2c\"/>",
                     c(legend_x), c(kLegendY - 5));
    s += fmt::format("<text x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>\n", c(legend_x + 30), c(kLegendY),
                     html_text(ch.band_label));
    legend_x += 40 + 7.0 * static_cast<double>(ch.band_label.size());
  }
  if (ch.shaded_x && !ch.shaded_label.empty()) {
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"10\" fill=\"#e8e8e8\" stroke=\"#909090\" "
        "stroke-dasharray=\"2 2\"/>",
        c(legend_x), c(kLegendY - 5));
    s += fmt::format("<text x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>\n", c(legend_x + 30), c(kLegendY),
                     html_text(ch.shaded_label));
  }
  return s + "</svg>";
}

std::string bar_chart_svg(const BarChart& ch) {
  double hi = 0;
  for (const auto& b : ch.bars) hi = std::max(hi, std::isfinite(b.value) ? b.value : 0);
  auto yt = nice_ticks(0, hi * 1.1);
  Scale y{0, yt.back(), kHeight - kBottom, kTop};
  std::string s = open_svg(ch.title, "bar");
  s += y_axis(y, yt, std::max(ch.y_decimals, decimals_for(yt)), ch.y_label);
  const double slot = (kWidth - kLeft - kRight) / static_cast<double>(std::max<std::size_t>(1, ch.bars.size()));
  const double width = std::min(80.0, slot * 0.6);
  for (std::size_t i = 0; i < ch.bars.size(); ++i) {
    const auto& b = ch.bars[i];
    double v = std::isfinite(b.value) ? std::max(0.0, b.value) : 0;
    double cx = kLeft + slot * (static_cast<double>(i) + 0.5);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#1f5fa8\" stroke=\"#000\" stroke-width=\"1\"/>",
        c(cx - width / 2), c(y(v)), c(width), c(y(0) - y(v)));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", c(cx), c(y(v) - 5), html_text(b.text));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", c(cx), c(kHeight - kBottom + 16),
                     html_text(b.label));
  }
  s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#000\"/>\n", c(kLeft), c(kWidth - kRight),
                   c(y(0)), c(y(0)));
  return s + "</svg>";
}

}  // namespace openrecipes::site
