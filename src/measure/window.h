// The measured window W of a run (SPEC §2 "Window"; PROTOCOL.md "Measurement").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace openrecipes::measure {

/// The most steps a declared window may span (and the largest step a recipe's window may name): far above any
/// measured window, and a bound on the per-step table measurement keeps.
inline constexpr std::int64_t kMaxWindowSteps = 100000;

/// Inclusive range of 0-based steps [first, last] that the score is computed over.
struct Window {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::int64_t size() const { return last - first + 1; }
  std::string str() const;  ///< "5–19"
  bool operator==(const Window&) const = default;
};

/// The window for a run of `steps_per_run` optimizer steps. A 20-step run is measured over 5..19; a run
/// that continues to 21..25 steps for a profiler trace (steps 20–24) keeps 5..19 (those steps are never
/// scored); a 14-step run (the 2026-10-11 recipes) is measured over 4..13. Any other length needs the
/// recipe's own `declared` window. A declared window must lie inside the run and may not contain step 0.
/// A declared window that disagrees with the rule for 14- or 20..25-step runs is an error.
/// Throws InputError naming `where` (the recipe field) and the fix.
Window window_for_run(std::int64_t steps_per_run, std::optional<Window> declared, const std::string& where);

}  // namespace openrecipes::measure
