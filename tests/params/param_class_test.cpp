// Tests for src/params/param_class: every class has its own snake_case name, read back by param_class_named, and a
// reason; the names are the ones models/*.yaml breakdowns and `params --json` use (SPEC §3).
#include "params/param_class.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace openrecipes::params {
namespace {

TEST(ParamClass, every_class_has_its_own_name_read_back_and_a_reason) {
  std::set<std::string_view> names;
  for (const auto c : kAllParamClasses) {
    const auto name = param_class_name(c);
    SCOPED_TRACE(std::string(name));
    EXPECT_NE(name, "?");
    EXPECT_TRUE(names.insert(name).second) << "a name given twice";
    EXPECT_EQ(param_class_named(name), c);
    EXPECT_NE(param_class_reason(c), "?");
    EXPECT_FALSE(param_class_reason(c).empty());
  }
  EXPECT_EQ(param_class_name(ParamClass::routed_expert), "routed_expert");
  EXPECT_EQ(param_class_reason(ParamClass::routed_expert), "routed experts, counted at top-k of the expert count");
  EXPECT_EQ(param_class_named("routed experts"), std::nullopt);
  EXPECT_EQ(param_class_named(""), std::nullopt);
}

}  // namespace
}  // namespace openrecipes::params
