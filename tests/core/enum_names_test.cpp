// Tests for src/core/enum_names: a value's name, a name's value, the names listed for an error's fix; a table with a
// third column reads the same way.
#include "core/enum_names.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

enum class Colour { red, green, blue, unnamed };
constexpr EnumName<Colour> kColours[] = {{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}};

TEST(EnumNames, a_value_reads_as_its_name_and_a_name_as_its_value) {
  EXPECT_EQ(name_of(kColours, Colour::green), "green");
  EXPECT_EQ(name_of(kColours, Colour::unnamed), "?");  // a value without its row
  EXPECT_EQ(value_named(kColours, "blue"), Colour::blue);
  EXPECT_EQ(value_named(kColours, "Blue"), std::nullopt);  // exact, case-sensitive
  EXPECT_EQ(value_named(kColours, ""), std::nullopt);
  static_assert(name_of(kColours, Colour::red) == "red");  // usable at compile time
}

TEST(EnumNames, the_names_are_listed_as_a_fix_says_them) {
  EXPECT_EQ(names_listed(kColours), "red, green or blue");
  EXPECT_EQ(names_listed(kColours, "and"), "red, green and blue");
  constexpr EnumName<Colour> one[] = {{Colour::red, "red"}};
  EXPECT_EQ(names_listed(one), "red");
  constexpr EnumName<Colour> two[] = {{Colour::red, "red"}, {Colour::blue, "blue"}};
  EXPECT_EQ(names_listed(two), "red or blue");
}

TEST(EnumNames, a_table_with_more_columns_reads_by_its_value_and_name) {
  struct Row {
    Colour value;
    std::string_view name;
    int wavelength_nm;
  };
  constexpr Row rows[] = {{Colour::red, "red", 700}, {Colour::blue, "blue", 450}};
  EXPECT_EQ(name_of(rows, Colour::blue), "blue");
  EXPECT_EQ(value_named(rows, "red"), Colour::red);
  EXPECT_EQ(names_listed(rows), "red or blue");
}

}  // namespace
}  // namespace openrecipes
