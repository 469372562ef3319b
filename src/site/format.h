// How the leaderboard writes its numbers for people (the terminal table and the site's pages share these, so a
// number reads the same in both): dollars, GPU-hours, percentages and tokens/s/GPU.
#pragma once

#include <string>

namespace openrecipes::registry {
struct EvidenceCoverage;
}

namespace openrecipes::site {

/// What a recipe's evidence covers, in six letters read like `ls -l`'s mode (the table and the site share it): L the
/// step log, A an argument dump, V a versions dump, D a device named, T scheduler times, C the command as launched
/// (evidence/launch.json); '-' where that piece is missing: "LAVDT-".
std::string evidence_code(const registry::EvidenceCoverage& coverage);

/// The legend of evidence_code, one line.
inline constexpr const char* kEvidenceLegend =
    "evidence: L step log, A argument dump, V versions, D device, T scheduler times, C launched command (- missing)";

/// $ per 1M tokens: "$1.234" from $1 up, "$0.0946" below (four decimals, so cheap recipes still differ).
std::string format_dollars(double dollars);

/// GPU-hours: one decimal from 10 h, two from 1 h, four below ("0.0241").
std::string format_gpu_hours(double hours);

/// A fraction as a percentage with `decimals` digits: format_percent(0.0938, 1) == "9.4%".
std::string format_percent(double fraction, int decimals = 1);

/// tokens/s/GPU with one decimal and thousands separators: "23,232.7".
std::string format_tokens_per_s(double tokens_per_s_per_gpu);

}  // namespace openrecipes::site
