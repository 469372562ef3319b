// Component-test records (SPEC §4.2).
#include "checks/component_test.h"

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes::checks {

std::string component_test_problem(const ComponentTest& test, const LayerShape& model_shape) {
  if (!test.passed) return "its component test did not pass";
  if (!(test.worst_error <= test.bound))
    return fmt::format("its component test's worst error {} exceeds its bound {}", format_double(test.worst_error),
                       format_double(test.bound));
  if (model_shape.empty()) return "the model file records no layer shape to compare the component test with";
  if (test.shape != model_shape) {
    std::string diff;
    for (const auto& [k, v] : model_shape) {
      auto it = test.shape.find(k);
      if (it == test.shape.end())
        diff += fmt::format(" {} missing (model {});", k, v);
      else if (it->second != v)
        diff += fmt::format(" {} {} (model {});", k, it->second, v);
    }
    for (const auto& [k, v] : test.shape)
      if (!model_shape.count(k)) diff += fmt::format(" {} {} (not a field of the model's shape);", k, v);
    if (!diff.empty()) diff.pop_back();
    return "its component test ran at another layer shape:" + diff;
  }
  return {};
}

}  // namespace openrecipes::checks
