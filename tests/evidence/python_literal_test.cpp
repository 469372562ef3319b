#include "evidence/python_literal.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace openrecipes::evidence {
namespace {

nlohmann::json parse(std::string_view s) {
  std::size_t used = 0;
  return parse_python_literal(s, used);
}

TEST(PythonLiteral, dict_of_scalars_as_python_prints_it) {
  auto d = parse("{'a': 1, \"b\": -2.5e-3, 'c': True, 'd': None, 'e': 'x\\'y', 'f': [1, (2, 3)], 'g': nan}");
  EXPECT_EQ(d["a"], 1);
  EXPECT_DOUBLE_EQ(d["b"].get<double>(), -0.0025);
  EXPECT_EQ(d["c"], true);
  EXPECT_TRUE(d["d"].is_null());
  EXPECT_EQ(d["e"], "x'y");
  EXPECT_EQ(d["f"][1][1], 3);
  EXPECT_TRUE(std::isnan(d["g"].get<double>()));
}

TEST(PythonLiteral, numpy_and_torch_scalar_reprs_unwrap) {
  auto d = parse("{'x': np.float64(1.5), 'y': tensor(2.0, device='cuda:0'), 'z': np.int64(7)}");
  EXPECT_DOUBLE_EQ(d["x"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(d["y"].get<double>(), 2.0);
  EXPECT_EQ(d["z"], 7);
}

TEST(PythonLiteral, malformed_and_hostile_inputs_throw) {
  EXPECT_THROW(parse("{'a': 1"), std::invalid_argument);
  EXPECT_THROW(parse("{1: 2}"), std::invalid_argument);
  EXPECT_THROW(parse("{'a': os.system('x')}"), std::invalid_argument);
  EXPECT_THROW(parse(std::string(100, '[')), std::invalid_argument);  // nesting bound
}

TEST(PythonLiteral, a_key_given_twice_in_one_dict_throws_naming_the_key) {
  try {
    parse("{'perf/step_time': 4.5, 'perf/step_time': 0.001}");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("key 'perf/step_time' appears twice in one dict"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(parse("{'a': {'x': 1}, 'b': {'x': 2}}")["b"]["x"], 2);  // the same key in two dicts is fine
}

}  // namespace
}  // namespace openrecipes::evidence
