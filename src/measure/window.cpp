// Measured window rules (SPEC §2 "Window").
#include "measure/window.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/protocol.h"

namespace openrecipes::measure {

std::string Window::str() const { return fmt::format("{}–{}", first, last); }

Window window_for_run(std::int64_t steps_per_run, std::optional<Window> declared, const std::string& where) {
  std::optional<Window> rule;
  using namespace protocol;
  if (steps_per_run >= kStandardRunMinSteps && steps_per_run <= kStandardRunMaxSteps)
    rule = Window{kStandardWindowFirst, kStandardWindowLast};
  else if (steps_per_run == kShortRunSteps)
    rule = Window{kShortWindowFirst, kShortWindowLast};
  if (declared) {
    if (declared->first < 1 || declared->last < declared->first || declared->last >= steps_per_run)
      throw InputError(where,
                       fmt::format("window {} does not fit a {}-step run (steps 0–{}; step 0 is never measured)",
                                   declared->str(), steps_per_run, steps_per_run - 1),
                       "give first >= 1 and last <= steps_per_run - 1");
    if (declared->size() > kMaxWindowSteps)
      throw InputError(where,
                       fmt::format("window {} spans {} steps, over the limit of {}", declared->str(), declared->size(),
                                   kMaxWindowSteps),
                       "measure a shorter window");
    if (rule && !(*declared == *rule))
      throw InputError(
          where,
          fmt::format("a {}-step run is measured over steps {}, not {}", steps_per_run, rule->str(), declared->str()),
          "remove the window field or set it to the protocol's window");
    return *declared;
  }
  if (!rule)
    throw InputError(
        where,
        fmt::format("a {}-step run has no protocol window ({}-step runs use {}–{}, {}-step runs {}–{})", steps_per_run,
                    protocol::kStandardRunMinSteps, protocol::kStandardWindowFirst, protocol::kStandardWindowLast,
                    protocol::kShortRunSteps, protocol::kShortWindowFirst, protocol::kShortWindowLast),
        fmt::format("run {} steps, or record the window the run was measured over", protocol::kStandardRunMinSteps));
  return *rule;
}

}  // namespace openrecipes::measure
