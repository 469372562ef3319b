// Megatron-LM's own memory lines in a training log: report_memory's "[Rank r] (after N iterations) memory (MB) |
// allocated: a | max allocated: m | reserved: r | max reserved: x" (megatron/training/utils/common_utils.py, printed
// after iterations 1 and 2 and every --log-memory-interval) and report_theoretical_memory's "Theoretical memory
// footprints: weight and optimizer=w MB, activation=a MB, total=t MB" (megatron/training/theoretical_memory_usage.py).
// Megatron's "MB" is 2^20 bytes (MiB). The planner (layout/memory.h) is checked against the measured peak.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace openrecipes::evidence {

/// What a log says about memory. All values in MiB as printed.
struct MemoryReport {
  int lines = 0;                          ///< report_memory lines read (every rank that printed)
  double max_allocated_mib = 0;           ///< the largest "max allocated" of any line and rank: the run's peak
  double allocated_mib = 0;               ///< "allocated" on the line that holds that peak
  double max_reserved_mib = 0;            ///< the largest "max reserved"
  std::optional<double> theoretical_mib;  ///< Megatron's own estimate ("total="), when printed
};

/// Reads every memory line of `text`. nullopt when there is none (a run logged without them: they need rank 0 of a
/// data-parallel group and start after iteration 1). Throws InputError naming `file` and the line for a memory line
/// whose numbers do not parse or are negative, and for max allocated above max reserved (the caching allocator
/// reserves every byte it allocates: the line was edited).
std::optional<MemoryReport> parse_megatron_memory(std::string_view text, const std::string& file);

}  // namespace openrecipes::evidence
