// Tests for src/registry/evidence_origin: one run published under two recipes (SPEC §5). Issue 39: evidence copied
// byte for byte under another id and author ranked beside the original, unflagged.
#include "registry/evidence_origin.h"

#include <gtest/gtest.h>

#include "core/subprocess.h"
#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using scratch::build;
using scratch::has_reason;
using scratch::reasons_of;
using scratch::Scratch;

// mbs2's run filed again as "mbs2-copy" by another author: its evidence byte for byte.
void add_copy(const Scratch& s) {
  s.copy_recipe("mbs2", "mbs2-copy");
  s.replace(s.recipe("mbs2-copy") / "recipe.yaml", "github: openrecipes", "github: someone-else");
}

// git in `root` with a fixed author and commit time (seconds since 1970), so "first" is the test's to decide.
void git(const fs::path& root, const std::vector<std::string>& args, std::int64_t time) {
  const std::string date = std::to_string(time) + " +0000";
  ProcessOptions o;
  o.env = {{"GIT_AUTHOR_NAME", "t"},    {"GIT_AUTHOR_EMAIL", "t@example.com"},
           {"GIT_COMMITTER_NAME", "t"}, {"GIT_COMMITTER_EMAIL", "t@example.com"},
           {"GIT_AUTHOR_DATE", date},   {"GIT_COMMITTER_DATE", date}};
  std::vector<std::string> argv{"git", "-C", root.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = run_process(argv, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(EvidenceOrigin, outside_git_two_recipes_with_one_step_log_are_both_unranked_and_name_each_other) {
  Scratch s;
  add_copy(s);
  const auto b = build(s.root);
  for (const auto& [name, other] : {std::pair{"mbs2", "mbs2-copy"}, std::pair{"mbs2-copy", "mbs2"}}) {
    const auto& r = b.get(name);
    EXPECT_FALSE(r.verified) << name;
    EXPECT_TRUE(has_reason(r, std::string("its step log is byte-identical to that of 'qwen3-0.6b/H200/") + other +
                                  "'; outside a git registry nothing shows which is the original, so neither ranks"))
        << reasons_of(r);
  }
  EXPECT_TRUE(b.get("ref").verified);  // the others are untouched
}

TEST(EvidenceOrigin, in_git_the_recipe_whose_evidence_was_committed_first_keeps_its_rank) {
  Scratch s;
  git(s.root, {"init", "-q"}, 0);
  git(s.root, {"add", "-A"}, 1700000000);
  git(s.root, {"commit", "-q", "-m", "the registry"}, 1700000000);
  add_copy(s);
  git(s.root, {"add", "-A"}, 1700086400);
  git(s.root, {"commit", "-q", "-m", "a copy, a day later"}, 1700086400);
  const auto b = build(s.root);
  EXPECT_TRUE(b.get("mbs2").verified) << reasons_of(b.get("mbs2"));
  const auto& copy = b.get("mbs2-copy");
  EXPECT_FALSE(copy.verified);
  EXPECT_TRUE(has_reason(copy,
                         "its step log is byte-identical to that of 'qwen3-0.6b/H200/mbs2', whose evidence was "
                         "committed first (commit "))
      << reasons_of(copy);
  // Committed together: git cannot tell which came first, and neither ranks.
  Scratch t;
  add_copy(t);
  git(t.root, {"init", "-q"}, 0);
  git(t.root, {"add", "-A"}, 1700000000);
  git(t.root, {"commit", "-q", "-m", "both"}, 1700000000);
  const auto both = build(t.root);
  EXPECT_FALSE(both.get("mbs2").verified);
  EXPECT_TRUE(has_reason(both.get("mbs2"), "the registry's git history does not show which was committed first"));
}

TEST(EvidenceOrigin, the_first_is_the_one_git_added_earliest_and_an_uncommitted_copy_is_never_first) {
  Scratch s;
  git(s.root, {"init", "-q"}, 0);
  git(s.root, {"add", "-A"}, 1700000000);
  git(s.root, {"commit", "-q", "-m", "the registry"}, 1700000000);
  const auto first = first_commit(s.root, s.recipe("mbs2") / "evidence/train.log");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->time, 1700000000);
  EXPECT_TRUE(is_git_registry(s.root));
  add_copy(s);  // not committed
  EXPECT_FALSE(first_commit(s.root, s.recipe("mbs2-copy") / "evidence/train.log"));
  const auto reasons = duplicate_evidence_reasons({{"digest",
                                                    {{"a/mbs2", s.recipe("mbs2") / "evidence/train.log"},
                                                     {"a/mbs2-copy", s.recipe("mbs2-copy") / "evidence/train.log"}}}},
                                                  s.root);
  EXPECT_EQ(reasons.count("a/mbs2"), 0u);
  ASSERT_EQ(reasons.count("a/mbs2-copy"), 1u);
  // A path git would read as pathspec magic is taken literally.
  EXPECT_FALSE(first_commit(s.root, s.root / ":(glob)**"));
}

}  // namespace
}  // namespace openrecipes::registry
