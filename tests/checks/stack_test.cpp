// Tests for src/checks/stack: a recipe's stack against the run's versions dump and argument dump (SPEC §6 "Stack").
#include "checks/stack.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

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
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0].text(),
            "stack: the recipe says pytorch 2.9.0, but the evidence shows 2.8.0 (evidence/versions.txt)");
  EXPECT_EQ(c.problems[0].rule, "stack.version");
}

TEST(Stack, no_transformer_engine_needs_the_local_implementation_in_the_argument_dump) {
  std::map<std::string, std::string> local{{"transformer_impl", "local"}};
  std::map<std::string, std::string> te{{"transformer_impl", "transformer_engine"}};
  EXPECT_THAT(statuses(check_stack({{"transformer_engine", "none"}}, nullptr, &local)),
              ElementsAre("transformer_engine none: pinned"));
  auto c = check_stack({{"transformer_engine", "none"}}, nullptr, &te);
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0].text(),
            "stack: transformer_engine is 'none' but the argument dump does not show --transformer-impl local");
  EXPECT_THAT(check_stack({{"transformer_engine", "none"}}, nullptr, nullptr).problems.size(), 1u);
  EXPECT_THAT(statuses(check_stack({{"cuda", "12.9"}}, nullptr, nullptr)), ElementsAre("cuda 12.9: not pinned"));
}

// SPEC §6 "Stack": versions a probe prints on one line, and the framework's own banners in the log, are evidence:
// a recipe recording other versions fails the stack check.
TEST(Stack, one_line_versions_and_log_banners_pin_and_contradict) {
  auto dump = evidence::parse_versions("torch 2.11.0+cu130 cuda 13.0 nccl 2.28.9\n", "evidence/versions.txt");
  auto c = check_stack({{"pytorch", "2.11.0+cu130"}, {"cuda", "13.0"}, {"nccl", "2.28.9"}}, &dump, nullptr);
  EXPECT_THAT(statuses(c), ElementsAre("pytorch 2.11.0+cu130: pinned", "cuda 13.0: pinned", "nccl 2.28.9: pinned"));
  auto other = check_stack({{"pytorch", "2.10.0"}, {"cuda", "12.9"}, {"nccl", "2.27.3"}}, &dump, nullptr);
  EXPECT_THAT(statuses(other), ElementsAre("pytorch 2.10.0: mismatch", "cuda 12.9: mismatch", "nccl 2.27.3: mismatch"));
  EXPECT_EQ(other.problems.size(), 3u);

  auto log = evidence::parse_version_banners(
      "> PyTorch version ................ 2.11.0+cu130\n> Megatron-Core version .......... 0.20.0+d98e8a6\n"
      "> Transformer Engine version ... 0.0.0\n",
      "evidence/train.log");
  evidence::VersionDump both = evidence::parse_versions("python 3.12.3\n", "evidence/versions.txt");
  both.merge(log);
  auto b = check_stack({{"pytorch", "2.10.0"},
                        {"megatron-lm_commit", "d98e8a64ddf34856e74b24714e3bedb2f5a39553"},
                        {"transformer_engine", "2.9.0"}},
                       &both, nullptr);
  EXPECT_THAT(statuses(b), ElementsAre("pytorch 2.10.0: mismatch",
                                       "megatron-lm_commit d98e8a64ddf34856e74b24714e3bedb2f5a39553: pinned",
                                       "transformer_engine 2.9.0: mismatch"));
  EXPECT_EQ(b.problems[0].text(),
            "stack: the recipe says pytorch 2.10.0, but the evidence shows 2.11.0+cu130 (evidence/versions.txt and "
            "evidence/train.log)");
  EXPECT_EQ(b.problems[1].text(),
            "stack: the recipe says transformer_engine 2.9.0, but the evidence shows none (evidence/versions.txt and "
            "evidence/train.log)");
  auto other_commit = check_stack({{"megatron_lm", "0123456789abcdef"}}, &both, nullptr);
  EXPECT_THAT(statuses(other_commit), ElementsAre("megatron_lm 0123456789abcdef: mismatch"));
}

// Found by the review: two versions in the evidence, and a recipe picking the one it likes.
TEST(Stack, evidence_that_disagrees_with_itself_is_a_mismatch) {
  auto dump = evidence::parse_versions("torch 2.9.0+cu128\n", "evidence/env.txt");
  dump.merge(evidence::parse_version_banners("> PyTorch version ....... 2.11.0+cu130\n", "evidence/train.log"));
  auto c = check_stack({{"pytorch", "2.11.0+cu130"}}, &dump, nullptr);
  EXPECT_THAT(statuses(c), ElementsAre("pytorch 2.11.0+cu130: mismatch"));
  EXPECT_EQ(c.problems[0].text(),
            "stack: the evidence shows several versions of pytorch: 2.11.0+cu130, 2.9.0+cu128 "
            "(evidence/env.txt and evidence/train.log)");
  // pip's plain version beside torch's own local one is one version.
  auto one = evidence::parse_versions("torch 2.11.0+cu130\ntorch                   2.11.0\n", "v.txt");
  EXPECT_THAT(statuses(check_stack({{"pytorch", "2.11.0+cu130"}}, &one, nullptr)),
              ElementsAre("pytorch 2.11.0+cu130: pinned"));
  // PyTorch's collect_env prints "PyTorch version: X".
  auto env = evidence::parse_versions("PyTorch version: 2.9.0+cu128\nPython version: 3.12.3 (main, Apr 1 2026)\n",
                                      "collect_env.txt");
  EXPECT_THAT(statuses(check_stack({{"pytorch", "2.11.0+cu130"}}, &env, nullptr)),
              ElementsAre("pytorch 2.11.0+cu130: mismatch"));
  EXPECT_EQ(env.of("python"), std::set<std::string>{"3.12.3"});
}

TEST(Stack, commits_agree_by_prefix_of_at_least_seven_hex_digits) {
  auto dump = evidence::parse_versions("megatron_lm_commit: d98e8a64ddf34856e74b24714e3bedb2f5a39553\n", "v.txt");
  EXPECT_THAT(statuses(check_stack({{"megatron_lm", "d98e8a6"}}, &dump, nullptr)),
              ElementsAre("megatron_lm d98e8a6: pinned"));
  EXPECT_THAT(statuses(check_stack({{"megatron_lm", "d98e8a65"}}, &dump, nullptr)),
              ElementsAre("megatron_lm d98e8a65: mismatch"));
  // A version that is not a commit never matches by prefix.
  auto torch = evidence::parse_versions("torch 2.11.0+cu130\n", "v.txt");
  EXPECT_THAT(statuses(check_stack({{"pytorch", "2.11.0"}}, &torch, nullptr)), ElementsAre("pytorch 2.11.0: mismatch"));
}

}  // namespace
}  // namespace openrecipes::checks
