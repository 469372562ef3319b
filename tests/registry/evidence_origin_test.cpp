// Tests for src/registry/evidence_origin: one run published under two recipes (SPEC §5). Each once ranked: evidence
// copied byte for byte under another id and author, beside the original and unflagged; a copy with a line appended;
// and a copy committed with a back-dated commit.
#include "registry/evidence_origin.h"

#include <gtest/gtest.h>

#include "core/subprocess.h"
#include "registry/leaderboard.h"
#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using namespace scratch;  // Scratch, build, gives_reason, has_reason, reasons_of

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

// The commit `root`'s HEAD names (its full id), as git prints it.
std::string head_commit(const fs::path& root) {
  const auto r = run_process({"git", "-C", root.string(), "rev-parse", "HEAD"});
  return r.out.substr(0, r.out.find('\n'));
}

TEST(EvidenceOrigin, outside_git_two_recipes_with_one_step_log_are_both_unranked_and_name_each_other) {
  Scratch s;
  add_copy(s);
  const auto b = build(s.root);
  for (const auto& [name, other] : {std::pair{"mbs2", "mbs2-copy"}, std::pair{"mbs2-copy", "mbs2"}}) {
    const auto& r = b.get(name);
    EXPECT_FALSE(r.verified) << name;
    EXPECT_TRUE(
        gives_reason(r, std::string("its step log records the very steps (each step's time and loss) of the step "
                                    "log of 'qwen3-0.6b/H200/") +
                            other + "'; outside a git registry nothing shows which is the original, so neither ranks"));
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
  EXPECT_TRUE(gives_reason(copy,
                           "its step log records the very steps (each step's time and loss) of the step log of "
                           "'qwen3-0.6b/H200/mbs2', which was committed first (commit "));
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

TEST(EvidenceOrigin, a_copy_with_other_bytes_but_the_same_steps_is_the_same_run) {
  Scratch s;
  add_copy(s);
  const auto log = s.recipe("mbs2-copy") / "evidence/train.log";
  s.write(log, s.read(log) + "\n(one more line: the same run)\n");
  const auto b = build(s.root);
  EXPECT_FALSE(b.get("mbs2-copy").verified);
  EXPECT_TRUE(gives_reason(b.get("mbs2-copy"), "records the very steps"));
  // Another recipe's log filed as a separate convergence arm is the same run too.
  Scratch t;
  fs::copy_file(t.recipe("mbs2") / "evidence/train.log", t.recipe("lr10") / "evidence/arm.log");
  t.replace(t.recipe("lr10") / "recipe.yaml", "  versions: {path: evidence/env.txt",
            "  convergence_arm: {path: evidence/arm.log, format: megatron}\n  versions: {path: evidence/env.txt");
  const auto c = build(t.root);
  EXPECT_TRUE(gives_reason(c.get("lr10"),
                           "its convergence arm records the very steps (each step's time and loss) of the "
                           "step log of 'qwen3-0.6b/H200/mbs2'"));
}

// A commit's date is whatever its author says: ancestry decides which was first.
TEST(EvidenceOrigin, a_back_dated_commit_of_a_copy_is_not_first) {
  Scratch s;
  git(s.root, {"init", "-q"}, 0);
  git(s.root, {"add", "-A"}, 1764460800);  // 2025-11-30
  git(s.root, {"commit", "-q", "-m", "the registry"}, 1764460800);
  add_copy(s);
  git(s.root, {"add", "-A"}, 1577836800);  // dated 2020-01-01, committed after it
  git(s.root, {"commit", "-q", "-m", "a copy, back-dated"}, 1577836800);
  const auto b = build(s.root);
  EXPECT_TRUE(b.get("mbs2").verified) << reasons_of(b.get("mbs2"));
  EXPECT_FALSE(b.get("mbs2-copy").verified);
  EXPECT_TRUE(has_reason(b.get("mbs2-copy"), "of 'qwen3-0.6b/H200/mbs2', which was committed first"));
}

TEST(EvidenceOrigin, the_first_commit_is_the_one_the_others_descend_from_and_an_uncommitted_file_has_none) {
  Scratch s;
  git(s.root, {"init", "-q"}, 0);
  git(s.root, {"add", "-A"}, 1700000000);
  git(s.root, {"commit", "-q", "-m", "the registry"}, 1700000000);
  const std::string added = head_commit(s.root);
  ASSERT_EQ(added.size(), 40u);
  const fs::path log = s.recipe("mbs2") / "evidence/train.log";
  // The log removed, then added again by a later commit: two commits added it, and the first is the one the other
  // descends from (git's own ancestry, whatever the dates say: the re-adding commit is dated before the first).
  const std::string text = s.read(log);
  git(s.root, {"rm", "-q", log.string()}, 1700000100);
  git(s.root, {"commit", "-q", "-m", "the log removed"}, 1700000100);
  s.write(log, text);
  git(s.root, {"add", "-A"}, 1600000000);
  git(s.root, {"commit", "-q", "-m", "the log again"}, 1600000000);
  const std::string again = head_commit(s.root);
  EXPECT_EQ(first_commit(s.root, log), added);
  EXPECT_TRUE(is_git_registry(s.root));
  EXPECT_TRUE(is_ancestor(s.root, added, again));
  EXPECT_FALSE(is_ancestor(s.root, again, added));
  add_copy(s);  // not committed
  EXPECT_FALSE(first_commit(s.root, s.recipe("mbs2-copy") / "evidence/train.log"));
  const auto reasons =
      duplicate_run_reasons({{"run",
                              {{"a/mbs2", s.recipe("mbs2") / "evidence/train.log", "step log"},
                               {"a/mbs2-copy", s.recipe("mbs2-copy") / "evidence/train.log", "step log"}}}},
                            s.root);
  EXPECT_EQ(reasons.count("a/mbs2"), 0u);  // committed before a copy that is not committed at all
  EXPECT_EQ(reasons.count("a/mbs2-copy"), 1u);
  // A path git would read as pathspec magic is taken literally.
  EXPECT_FALSE(first_commit(s.root, s.root / ":(glob)**"));
}

}  // namespace
}  // namespace openrecipes::registry
