#include "evidence/steps_jsonl.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {

std::string error_of(std::string_view text) {
  return testing::message_of([&] { parse_steps_jsonl(text, "steps.jsonl"); });
}

TEST(StepsJsonl, one_record_per_line) {
  auto log = parse_steps_jsonl(
      "{\"step\": 0, \"tokens\": 1048576, \"time_s\": 9.5, \"loss\": 1.5}\n\n"
      "{\"step\": 1, \"tokens\": 1048576, \"time_s\": 4.25, \"loss\": null, \"skipped\": true}\n",
      "steps.jsonl");
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(*log.records[0].tokens, 1048576);
  EXPECT_DOUBLE_EQ(*log.records[0].time_s, 9.5);
  EXPECT_DOUBLE_EQ(*log.records[0].loss, 1.5);
  EXPECT_FALSE(log.records[1].loss.has_value());
  EXPECT_EQ(log.records[1].skipped, 1);
  EXPECT_EQ(log.records[1].line, 3u);
}

// Steps count from 0 (docs/evidence-format.md): a file numbered 1..20 (Megatron's iterations copied) is refused by
// the parser itself, so measure and build (whose convergence check needs step 0) treat it alike.
TEST(StepsJsonl, a_file_whose_first_step_is_not_0_is_refused_naming_its_line) {
  const std::string e =
      error_of("\n{\"step\": 1, \"tokens\": 1, \"time_s\": 1}\n{\"step\": 2, \"tokens\": 1, \"time_s\": 1}");
  EXPECT_NE(e.find("steps.jsonl:2: the first step is 1: steps.jsonl numbers a run's steps from 0"), std::string::npos)
      << e;
  EXPECT_NE(e.find("step = iteration - 1"), std::string::npos) << e;
}

TEST(StepsJsonl, bad_lines_name_the_line_and_field) {
  EXPECT_NE(error_of("{\"step\": 0, \"tokens\": 1, \"time_s\": 1}\n{bad\n").find("steps.jsonl:2: not a JSON object"),
            std::string::npos);
  EXPECT_NE(error_of("{\"step\": 0, \"time_s\": 1}").find("missing field 'tokens'"), std::string::npos);
  EXPECT_NE(error_of("{\"step\": 0, \"tokens\": 1, \"time_s\": 1, \"tokns\": 2}").find("unknown field 'tokns'"),
            std::string::npos);
  EXPECT_NE(error_of("{\"step\": -1, \"tokens\": 1, \"time_s\": 1}").find("'step' must be"), std::string::npos);
  EXPECT_NE(error_of("{\"step\": 0, \"tokens\": 1, \"time_s\": 1}\n{\"step\": 0, \"tokens\": 1, \"time_s\": 1}")
                .find("step 0 appears twice"),
            std::string::npos);
  EXPECT_NE(error_of("").find("no step lines"), std::string::npos);
}

TEST(StepsJsonl, a_field_given_twice_is_an_error_naming_field_and_line) {
  auto m = error_of(
      "{\"step\": 0, \"tokens\": 8, \"time_s\": 4.5, \"loss\": 1.2}\n"
      "{\"step\":1,\"tokens\":8,\"time_s\":4.5,\"time_s\":0.0001,\"loss\":1.2}\n");
  EXPECT_NE(m.find("steps.jsonl:2: the key \"time_s\" appears twice in one object"), std::string::npos) << m;
}

TEST(StepsJsonl, nesting_past_the_limit_is_an_error_naming_the_line_and_the_limit) {
  auto m = error_of("{\"step\": 0, \"tokens\": 8, \"time_s\": 4.5, \"loss\": " + std::string(100, '[') + "\n");
  EXPECT_NE(m.find("steps.jsonl:1: JSON nested deeper than 64 levels (at byte 111)"), std::string::npos) << m;
}

TEST(StepsJsonl, steps_that_count_down_are_an_error_naming_the_line) {
  auto m = error_of(
      "{\"step\": 0, \"tokens\": 8, \"time_s\": 4.5}\n"
      "{\"step\": 2, \"tokens\": 8, \"time_s\": 4.5}\n"
      "{\"step\": 1, \"tokens\": 8, \"time_s\": 4.5}\n");
  EXPECT_NE(m.find("steps.jsonl:3: step 1 comes after step 2: steps must count up"), std::string::npos) << m;
}

TEST(StepsJsonl, step_time_below_one_millisecond_or_subnormal_is_an_error) {
  auto m = error_of("{\"step\": 0, \"tokens\": 262144, \"time_s\": 1e-320, \"loss\": 1.2}\n");
  EXPECT_NE(m.find("steps.jsonl:1: 'time_s' 1e-320 s is below 1 ms"), std::string::npos) << m;
  m = error_of("{\"step\": 0, \"tokens\": 262144, \"time_s\": 0.0009, \"loss\": 1.2}\n");
  EXPECT_NE(m.find("'time_s' 9e-04 s is below 1 ms"), std::string::npos) << m;  // format_double's form of 0.0009
  EXPECT_NO_THROW(
      parse_steps_jsonl("{\"step\": 0, \"tokens\": 262144, \"time_s\": 0.001, \"loss\": 1.2}\n", "steps.jsonl"));
}

}  // namespace
}  // namespace openrecipes::evidence
