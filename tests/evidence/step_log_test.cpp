// What a step time is in each log format (evidence/step_log.h; ../shared/notes/slime.md §2.2–2.3 for slime/miles).
#include "evidence/step_log.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace openrecipes::evidence {
namespace {

bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

TEST(StepTimeDefinition, every_format_has_one_naming_its_field) {
  for (const auto& f : step_log_formats()) EXPECT_FALSE(step_time_definition(f).empty()) << f;
  EXPECT_TRUE(has(step_time_definition("megatron"), "'elapsed time per iteration (ms)': Megatron-LM's timer"));
  EXPECT_TRUE(has(step_time_definition("megatron-bridge"), "'Step Time': Megatron-Bridge's timer"));
  EXPECT_TRUE(has(step_time_definition("steps-jsonl"), "'time_s': "));
  EXPECT_THROW(step_time_definition("nemo"), InputError);
}

TEST(StepTimeDefinition, slime_step_time_is_train_wait_plus_train_with_the_weight_backup) {
  // slime actor.py: train_wait runs from the end of one train block to the start of the next; perf/step_time =
  // train_wait + train; the actor backs weights up to CPU after every step (notes/slime.md §2.3).
  const auto s = step_time_definition("slime");
  EXPECT_TRUE(has(s, "'perf/step_time' = train_wait + train")) << s;
  EXPECT_TRUE(has(s, "weight backup to CPU after every step")) << s;
  EXPECT_TRUE(has(s, "the wait for the next rollout")) << s;
  EXPECT_FALSE(has(s, "total_train_time")) << s;  // only for logs that use the old name
  const auto old = step_time_definition("slime", "perf/total_train_time");
  EXPECT_TRUE(has(old, "'perf/total_train_time' (perf/step_time's name before 2025-10-30) = train_wait + train"))
      << old;
  // miles backs weights up only when a ref / teacher / old-actor model or colocation needs it (_enable_weight_backup).
  const auto m = step_time_definition("miles");
  EXPECT_TRUE(has(m, "= train_wait + train")) << m;
  EXPECT_TRUE(has(m, "weight backup to CPU only when a reference, teacher or old-actor model or colocation")) << m;
  for (const auto& d : {s, m}) {  // §2.3 (ii)-(vi) and the train block's contents
    EXPECT_TRUE(has(d, "checkpoint saves")) << d;
    EXPECT_TRUE(has(d, "with train.py a memory clear")) << d;
    EXPECT_TRUE(has(d, "update_weights")) << d;
    EXPECT_TRUE(has(d, "--disable-compute-advantages-and-returns")) << d;
  }
}

}  // namespace
}  // namespace openrecipes::evidence
