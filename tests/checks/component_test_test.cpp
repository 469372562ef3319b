#include "checks/component_test.h"

#include <gtest/gtest.h>

namespace openrecipes::checks {
namespace {

TEST(ComponentTest, counts_only_when_passed_within_bound_and_at_the_models_shape) {
  LayerShape shape{{"hidden_size", 7168}, {"num_experts", 256}};
  ComponentTest t{"moe_grouped_gemm", "grouped vs sequential GEMM", shape, 1e-3, 1e-3, true, ""};
  EXPECT_EQ(component_test_problem(t, shape), "");  // worst == bound still counts
  t.shape.erase("num_experts");
  EXPECT_EQ(component_test_problem(t, shape),
            "its component test ran at another layer shape: num_experts missing (model 256)");
  EXPECT_NE(component_test_problem(t, {}), "");
}

}  // namespace
}  // namespace openrecipes::checks
