// Which changed arguments are run length only (checks/run_length.h; PROTOCOL.md "Measurement").
#include "checks/run_length.h"

#include <gtest/gtest.h>

namespace openrecipes::checks {
namespace {

TEST(RunLengthArguments, lr_decay_iters_is_run_length_only_when_it_follows_train_iters) {
  const std::map<std::string, std::string> a{{"train_iters", "25"}, {"lr_decay_iters", "25"}};
  const std::map<std::string, std::string> b{{"train_iters", "20"}, {"lr_decay_iters", "20"}};
  const std::map<std::string, std::string> fixed{{"train_iters", "25"}, {"lr_decay_iters", "20"}};
  EXPECT_TRUE(is_run_length_change("train_iters", a, b));
  EXPECT_TRUE(is_run_length_change("num_rollout", a, b));  // slime derives train_iters from it
  EXPECT_TRUE(is_run_length_change("lr_decay_iters", a, b));
  EXPECT_FALSE(is_run_length_change("lr_decay_iters", fixed, b));  // a decay set apart from the length
  EXPECT_FALSE(is_run_length_change("lr", a, b));
}

TEST(RunLengthArguments, megatron_run_length_arguments_are_run_length) {
  const std::map<std::string, std::string> none;
  for (const char* name : {"train_iters", "train_samples", "exit_interval", "exit_duration_in_mins", "num_rollout"})
    EXPECT_TRUE(is_run_length_change(name, none, none)) << name;
  EXPECT_FALSE(is_run_length_change("lr_warmup_iters", none, none));
  EXPECT_FALSE(is_run_length_change("lr_decay_iters", none, none));  // absent: nothing shows it follows the length
}

}  // namespace
}  // namespace openrecipes::checks
