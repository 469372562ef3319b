// The stages' names (core/reason.h).
#include "core/reason.h"

#include <array>

namespace openrecipes {

const char* stage_name(Stage stage) {
  // In the order of the enum: a stage added there needs its name here (the size check below).
  static constexpr std::array<const char*, 15> kNames = {"recipe",
                                                         "measurement",
                                                         "evidence",
                                                         "layout",
                                                         "model",
                                                         "stack",
                                                         "device",
                                                         "command",
                                                         "patches",
                                                         "rows",
                                                         "reference",
                                                         "configuration check",
                                                         "convergence check",
                                                         "search",
                                                         "claims"};
  static_assert(static_cast<std::size_t>(Stage::claims) + 1 == kNames.size(), "a name for every stage");
  const auto i = static_cast<std::size_t>(stage);
  return i < kNames.size() ? kNames[i] : "?";
}

}  // namespace openrecipes
