// How the leaderboard writes its numbers for people (the terminal table and the site's pages share these, so a
// number reads the same in both): dollars, GPU-hours, percentages and tokens/s/GPU.
#pragma once

#include <string>

namespace openrecipes::site {

/// $ per 1M tokens: "$1.234" from $1 up, "$0.0946" below (four decimals, so cheap recipes still differ).
std::string format_dollars(double dollars);

/// GPU-hours: one decimal from 10 h, two from 1 h, four below ("0.0241").
std::string format_gpu_hours(double hours);

/// A fraction as a percentage with `decimals` digits: format_percent(0.0938, 1) == "9.4%".
std::string format_percent(double fraction, int decimals = 1);

/// tokens/s/GPU with one decimal and thousands separators: "23,232.7".
std::string format_tokens_per_s(double tokens_per_s_per_gpu);

/// A score interval's relative half-width (measure::ScoreInterval::relative_half_width, the half-width of the mean
/// step time's 95% interval over the mean) as the tables show it: "±2.1%"; "±∞" when it is not finite.
std::string format_plus_minus(double fraction);

/// A score interval's bounds in tokens/s/GPU as text: "22,100.0 – 24,400.1"; an infinite upper bound reads
/// "22,100.0 – unbounded".
std::string format_score_interval(double low, double high);

}  // namespace openrecipes::site
