// Python value semantics: float repr, str repr quoting, equality and ordering across numbers, containment and
// arithmetic corner cases (CPython 3.11 results, by hand).
#include "rows/template/pyops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "rows/template/failure.h"

namespace openrecipes::rows::template_engine {
namespace {

TEST(PyOps, float_repr_is_shortest_round_trip_with_pythons_notation_switch) {
  EXPECT_EQ(float_repr(1.0), "1.0");
  EXPECT_EQ(float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(float_repr(1e16), "1e+16");
  EXPECT_EQ(float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(float_repr(0.0001), "0.0001");
  EXPECT_EQ(float_repr(0.00001), "1e-05");
  EXPECT_EQ(float_repr(5e-324), "5e-324");
  EXPECT_EQ(float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(float_repr(-0.0), "-0.0");
  EXPECT_EQ(float_repr(123456789.0), "123456789.0");
  EXPECT_EQ(float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(float_repr(NAN), "nan");
  EXPECT_EQ(float_repr(-INFINITY), "-inf");
}

TEST(PyOps, str_repr_picks_the_quote_python_picks) {
  EXPECT_EQ(repr(Value::borrowed("it's")), "\"it's\"");
  EXPECT_EQ(repr(Value::borrowed("say \"hi\"")), "'say \"hi\"'");
  EXPECT_EQ(repr(Value::borrowed("both ' \"")), "'both \\' \"'");
  EXPECT_EQ(repr(Value::borrowed("\t\n\x01\xc2\xa0é\\")), "'\\t\\n\\x01\\xa0é\\\\'");
}

TEST(PyOps, equality_crosses_int_float_and_bool) {
  EXPECT_TRUE(py_eq(Value::integer(1), Value::floating(1.0)));
  EXPECT_TRUE(py_eq(Value::boolean(true), Value::integer(1)));
  EXPECT_FALSE(py_eq(Value::integer(9007199254740993), Value::floating(9007199254740992.0)));
  EXPECT_FALSE(py_eq(Value::borrowed("1"), Value::integer(1)));
  EXPECT_FALSE(py_eq(Value::new_tuple({Value::integer(1)}), Value::new_list({Value::integer(1)})));
}

TEST(PyOps, ordering_of_unrelated_types_is_a_type_error) {
  try {
    py_order(Value::borrowed("a"), Value::integer(1), CmpOp::Lt);
    FAIL();
  } catch (const Failure& f) {
    EXPECT_EQ(f.type, PyError::TypeError);
    EXPECT_EQ(f.message, "'<' not supported between instances of 'str' and 'int'");
  }
}

TEST(PyOps, floor_division_and_modulo_take_the_sign_of_the_divisor) {
  EXPECT_EQ(py_binary(BinOp::FloorDiv, Value::integer(-7), Value::integer(2)).as_int(), -4);
  EXPECT_EQ(py_binary(BinOp::Mod, Value::integer(-7), Value::integer(3)).as_int(), 2);
  EXPECT_EQ(py_binary(BinOp::Mod, Value::integer(7), Value::integer(-3)).as_int(), -2);
  EXPECT_EQ(py_binary(BinOp::FloorDiv, Value::floating(-7.5), Value::integer(2)).as_float(), -4.0);
  EXPECT_EQ(py_binary(BinOp::Mod, Value::floating(-7.5), Value::integer(2)).as_float(), 0.5);
}

TEST(PyOps, int_power_with_negative_exponent_is_a_float) {
  Value v = py_binary(BinOp::Pow, Value::integer(2), Value::integer(-2));
  EXPECT_TRUE(v.is(Kind::Float));
  EXPECT_EQ(v.as_float(), 0.25);
}

TEST(PyOps, in_on_a_string_needs_a_string) {
  EXPECT_TRUE(py_contains(Value::borrowed("cat"), Value::borrowed("a")));
  try {
    py_contains(Value::borrowed("cat"), Value::integer(1));
    FAIL();
  } catch (const Failure& f) {
    EXPECT_EQ(f.message, "'in <string>' requires string as left operand, not int");
  }
}

}  // namespace
}  // namespace openrecipes::rows::template_engine
