// json.dumps as transformers' tojson calls it, printf-style %, format() specs and strftime for a pinned date
// (CPython 3.11 results, by hand).
#include "rows/template/pyformat.h"

#include <gtest/gtest.h>

#include "rows/template/failure.h"

namespace openrecipes::rows::template_engine {
namespace {

Value sample() {
  Value inner = Value::new_dict();
  inner.dict().set(Value::borrowed("k"), Value::borrowed("é\"\n"));
  Value d = Value::new_dict();
  d.dict().set(Value::borrowed("z"), Value::new_list({Value::integer(1), Value::floating(2.5), Value::none()}));
  d.dict().set(Value::borrowed("a"), inner);
  return d;
}

TEST(PyFormat, json_dumps_compact_keeps_non_ascii_and_key_order) {
  EXPECT_EQ(json_dumps(sample(), false, Value::none(), Value::none(), false),
            "{\"z\": [1, 2.5, null], \"a\": {\"k\": \"é\\\"\\n\"}}");
}

TEST(PyFormat, json_dumps_indent_uses_comma_item_separator) {
  EXPECT_EQ(json_dumps(sample(), false, Value::integer(2), Value::none(), true),
            "{\n  \"a\": {\n    \"k\": \"é\\\"\\n\"\n  },\n  \"z\": [\n    1,\n    2.5,\n    null\n  ]\n}");
}

TEST(PyFormat, json_dumps_ensure_ascii_escapes_with_surrogate_pairs) {
  EXPECT_EQ(json_dumps(Value::borrowed("é😀\x7f"), true, Value::none(), Value::none(), false),
            "\"\\u00e9\\ud83d\\ude00\\u007f\"");
  EXPECT_EQ(json_dumps(Value::borrowed("\x7f\x1f"), false, Value::none(), Value::none(), false), "\"\x7f\\u001f\"");
}

TEST(PyFormat, json_dumps_custom_separators) {
  Value seps = Value::new_tuple({Value::borrowed(","), Value::borrowed(":")});
  EXPECT_EQ(json_dumps(sample(), false, Value::none(), seps, false), "{\"z\":[1,2.5,null],\"a\":{\"k\":\"é\\\"\\n\"}}");
}

TEST(PyFormat, json_dumps_of_undefined_is_a_type_error) {
  try {
    json_dumps(Value::undefined_name("x"), false, Value::none(), Value::none(), false);
    FAIL();
  } catch (const Failure& f) {
    EXPECT_EQ(f.type, PyError::TypeError);
    EXPECT_EQ(f.message, "Object of type Undefined is not JSON serializable");
  }
}

TEST(PyFormat, percent_format_conversions) {
  EXPECT_EQ(percent_format("%s|%5.2f|%-4d|%x|%r|%%",
                           Value::new_tuple({Value::borrowed("a"), Value::floating(3.14159), Value::integer(7),
                                             Value::integer(255), Value::borrowed("q")})),
            "a| 3.14|7   |ff|'q'|%");
  EXPECT_EQ(percent_format("%#o", Value::integer(8)), "0o10");
  EXPECT_EQ(percent_format("%d", Value::floating(3.9)), "3");
}

TEST(PyFormat, format_spec_alignment_and_numbers) {
  EXPECT_EQ(format_value(Value::borrowed("ab"), "*^6"), "**ab**");
  EXPECT_EQ(format_value(Value::integer(1234567), ","), "1,234,567");
  EXPECT_EQ(format_value(Value::integer(-42), "06d"), "-00042");
  EXPECT_EQ(format_value(Value::floating(3.14159), ".2f"), "3.14");
  EXPECT_EQ(format_value(Value::floating(1234.5), ".3"), "1.23e+03");
  EXPECT_EQ(format_value(Value::boolean(true), ""), "True");
  EXPECT_EQ(format_value(Value::boolean(true), "d"), "1");
}

TEST(PyFormat, strftime_of_the_pinned_date_is_midnight_and_naive) {
  EXPECT_EQ(strftime_date("2026-01-01", "%Y-%m-%d %A %j %H:%M:%S%z%Z %f"), "2026-01-01 Thursday 001 00:00:00 000000");
  EXPECT_EQ(strftime_date("2024-12-31", "%d %b %Y %a %j"), "31 Dec 2024 Tue 366");
}

}  // namespace
}  // namespace openrecipes::rows::template_engine
