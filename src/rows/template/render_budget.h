// The allocation budget of the render running on this thread (TemplateLimits::max_alloc_bytes), charged by
// every string, list and dict the template creates.
#pragma once

#include <cstddef>

namespace openrecipes::rows::template_engine {

struct RenderBudget {
  std::size_t used = 0;
  std::size_t limit = 0;       // max_alloc_bytes: total bytes allocated
  std::size_t text_limit = 0;  // longest string a render may build: min(max_alloc_bytes, max_output_bytes)
};

/// Installs `budget` as this thread's render budget for the scope's lifetime (restores the previous one).
class RenderBudgetScope {
 public:
  explicit RenderBudgetScope(RenderBudget* budget);
  ~RenderBudgetScope();
  RenderBudgetScope(const RenderBudgetScope&) = delete;
  RenderBudgetScope& operator=(const RenderBudgetScope&) = delete;

 private:
  RenderBudget* previous_;
};

}  // namespace openrecipes::rows::template_engine
