// Number formats of the leaderboard (site/format.h).
#include "site/format.h"

#include <cmath>

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes::site {

std::string format_dollars(double v) { return v >= 1 ? fmt::format("${:.3f}", v) : fmt::format("${:.4f}", v); }

std::string format_gpu_hours(double v) {
  return v >= 10 ? fmt::format("{:.1f}", v) : v >= 1 ? fmt::format("{:.2f}", v) : fmt::format("{:.4f}", v);
}

std::string format_percent(double v, int decimals) { return fmt::format("{:.{}f}%", 100 * v, decimals); }

std::string format_tokens_per_s(double v) { return with_thousands(v, 1); }

std::string format_plus_minus(double v) { return std::isfinite(v) ? "±" + format_percent(v, 1) : "±∞"; }

std::string format_score_interval(double low, double high) {
  return format_tokens_per_s(low) + " – " + (std::isfinite(high) ? format_tokens_per_s(high) : "unbounded");
}

}  // namespace openrecipes::site
