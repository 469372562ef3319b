// Tests for src/checks/stack: a recipe's stack against the run's versions dump and argument dump (SPEC §6 "Stack").
#include "checks/stack.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace openrecipes::checks {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> statuses(const StackCheck& c) {
  std::vector<std::string> out;
  for (const auto& s : c.stack) out.push_back(s.component + " " + s.version + ": " + s.status);
  return out;
}

TEST(Stack, a_version_the_dump_shows_under_any_spelling_is_pinned_and_one_it_lacks_is_not_pinned) {
  auto dump = evidence::parse_versions("torch 2.9.0\nnvidia-nccl-cu12==2.27.3\nmegatron_core_commit: d98e8a64\n",
                                       "evidence/versions.txt");
  auto c = check_stack({{"pytorch", "2.9.0"}, {"nccl", "2.27.3"}, {"megatron_lm", "d98e8a64"}, {"cuda", "12.9"}}, &dump,
                       nullptr);
  EXPECT_THAT(statuses(c), ElementsAre("pytorch 2.9.0: pinned", "nccl 2.27.3: pinned", "megatron_lm d98e8a64: pinned",
                                       "cuda 12.9: not pinned"));
  EXPECT_THAT(c.problems, IsEmpty());
}

TEST(Stack, a_version_the_dump_contradicts_is_a_mismatch_naming_the_file_and_what_it_shows) {
  auto dump = evidence::parse_versions("torch 2.8.0\n", "evidence/versions.txt");
  auto c = check_stack({{"pytorch", "2.9.0"}}, &dump, nullptr);
  EXPECT_THAT(statuses(c), ElementsAre("pytorch 2.9.0: mismatch"));
  EXPECT_THAT(c.problems, ElementsAre("stack: the recipe says pytorch 2.9.0, but evidence/versions.txt shows 2.8.0"));
}

TEST(Stack, no_transformer_engine_needs_the_local_implementation_in_the_argument_dump) {
  std::map<std::string, std::string> local{{"transformer_impl", "local"}};
  std::map<std::string, std::string> te{{"transformer_impl", "transformer_engine"}};
  EXPECT_THAT(statuses(check_stack({{"transformer_engine", "none"}}, nullptr, &local)),
              ElementsAre("transformer_engine none: pinned"));
  auto c = check_stack({{"transformer_engine", "none"}}, nullptr, &te);
  EXPECT_THAT(c.problems, ElementsAre("stack: transformer_engine is 'none' but the argument dump does not show "
                                      "--transformer-impl local"));
  EXPECT_THAT(check_stack({{"transformer_engine", "none"}}, nullptr, nullptr).problems.size(), 1u);
  EXPECT_THAT(statuses(check_stack({{"cuda", "12.9"}}, nullptr, nullptr)), ElementsAre("cuda 12.9: not pinned"));
}

}  // namespace
}  // namespace openrecipes::checks
