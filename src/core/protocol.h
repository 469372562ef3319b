// The protocol's constants, written once (PROTOCOL.md, SPEC §1 rows, §2 measurement, §4 checks). A rule that
// depends on one of these numbers names the constant, never the literal.
#pragma once

#include <cstdint>

namespace openrecipes::protocol {

/// L, the row length in tokens every standard recipe trains on (SPEC §1.4).
inline constexpr std::uint32_t kRowLength = 8192;

/// Longest row any rows file may have: 4,194,304 ids (16 MiB). Bounds what a reader allocates per row.
inline constexpr std::uint32_t kMaxRowLength = 1u << 22;

/// B, rows per optimizer step (the global batch) of a standard recipe (SPEC §1.4).
inline constexpr std::int64_t kGlobalBatch = 128;

/// Steps of the convergence check's loss curves (SPEC §4.3: a 20-step arm for recipe and reference).
inline constexpr std::int64_t kConvergenceSteps = 20;

/// The measured windows (SPEC §2 "Window"), first and last step inclusive: runs of kStandardRunMinSteps to
/// kStandardRunMaxSteps steps are measured over steps 5–19; a 14-step run over steps 4–13.
inline constexpr std::int64_t kStandardRunMinSteps = 20;
inline constexpr std::int64_t kStandardRunMaxSteps = 25;
inline constexpr std::int64_t kStandardWindowFirst = 5;
inline constexpr std::int64_t kStandardWindowLast = 19;
inline constexpr std::int64_t kShortRunSteps = 14;
inline constexpr std::int64_t kShortWindowFirst = 4;
inline constexpr std::int64_t kShortWindowLast = 13;

/// How far a recipe's claimed tokens/s/GPU, CV and GPU-hours may be from the recomputed ones: 0.5% relative
/// (SPEC §5: "score within 0.5% of what it claims").
inline constexpr double kClaimTolerance = 0.005;

/// How far a recipe's recorded convergence numbers may be from the check's (SPEC §4.3 record): the correlation is
/// written to 4 decimals and the final loss difference to 3 significant digits, so each is off by at most half its
/// last digit (5e-5 for a correlation; 5e-5 absolute for a loss difference below 1%, which is where they live). The
/// correlation's bound is kept at 5e-4 (a tenth of the 0.95 threshold's last digit) to allow recipes written before
/// 4 decimals were the rule.
inline constexpr double kCorrelationClaimTolerance = 5e-4;
inline constexpr double kFinalLossClaimTolerance = 5e-5;

}  // namespace openrecipes::protocol
