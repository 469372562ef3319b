// Parser for Megatron-LM `training_log` lines (SPEC §2): "iteration k/ N | ... elapsed time per iteration (ms):
// x | ... global batch size: b | lm loss: y | ... number of skipped iterations: s | number of nan iterations: n |".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/step_record.h"

namespace openrecipes::evidence {

/// Parses every Megatron training_log line in `text` (other lines — warnings, memory reports, argument dumps —
/// are skipped). Timestamps in either form ("[2024-09-03 15:54:54]", "[2026-11-29 17:24:16.955740]") or none.
/// A line at iteration k covers the `interval` iterations up to k, i.e. steps [k-interval, k-1] (never before
/// step 0). The interval is `log_interval` when known (from the argument dump), else the smallest gap between
/// consecutive lines; a larger gap leaves the steps between uncovered (missing lines), never a longer
/// average. Output records are in file order with time_s in seconds.
/// Throws InputError (file:line and the fix) when: no training_log line exists; a line is cut off or lacks the
/// elapsed time; a number does not parse; an iteration is < 1, > N or beyond 2^63; iterations do not increase;
/// lines disagree on N; an elapsed time is positive but below 1 ms; a timestamp is not a real date; or the
/// timestamps contradict the elapsed times (the log's own clock: line by line for sub-second stamps, over the
/// first-to-last span always; bound 10% + the stamps' resolution + 1.5 s, see megatron_log.cpp).
StepLog parse_megatron_log(std::string_view text, const std::string& file,
                           std::optional<std::int64_t> log_interval = std::nullopt);

/// The same, for Megatron-Bridge logs: step time comes from the "Step Time : x.xxs" line printed before each
/// iteration line (Megatron-Bridge's training_log, as its scripts/performance/utils/evaluate.py reads it);
/// loss and global batch size come from the iteration line. An iteration line without a preceding Step Time
/// line is an error, and so is a Step Time that disagrees with the iteration line's own elapsed time by more
/// than its 2-decimal rounding (0.005 s) + 5%. Otherwise the same checks as parse_megatron_log.
StepLog parse_megatron_bridge_log(std::string_view text, const std::string& file,
                                  std::optional<std::int64_t> log_interval = std::nullopt);

}  // namespace openrecipes::evidence
