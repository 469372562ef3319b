// `openrecipes check recipe <dir>` on a scratch copy of the bundled registry: a recipe written without its claims block
// gets every problem at once and the block to paste, and after pasting it verifies in the next round; a mistyped
// field names the nearest field.
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/atomic_output.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;

struct ScratchRegistry {
  testing::TempDir d;
  fs::path root = d / "registry";
  ScratchRegistry() { fs::copy(testing::source_dir() / "registry", root, fs::copy_options::recursive); }
  fs::path recipe(const std::string& name) const { return root / "recipes/qwen3-0.6b/H200" / name; }
};

// recipe.yaml's text without its top-level `claims:` block (the last block submit writes).
std::string without_claims(const std::string& yaml) { return yaml.substr(0, yaml.find("\nclaims:") + 1); }

TEST(CheckRecipeCli, a_recipe_without_claims_gets_the_block_and_verifies_once_it_is_pasted) {
  ScratchRegistry s;
  const fs::path file = s.recipe("tulu3-cefusion") / "recipe.yaml";
  const std::string full = read_file(file);
  const std::string claims = full.substr(full.find("\nclaims:") + 1);
  write_file_atomic(file, without_claims(full));
  auto first = testing::run_cli({"check", "recipe", s.recipe("tulu3-cefusion").string()});
  EXPECT_EQ(first.exit_code, 1) << first.err;
  EXPECT_THAT(
      first.out,
      ::testing::HasSubstr("check recipe qwen3-0.6b/H200/tulu3-cefusion: verified once its claims block is pasted\n"));
  // The block it prints is the one submit wrote for this very run (the bundled recipe's own claims).
  const std::string paste = first.out.substr(first.out.find("claims:\n"));
  EXPECT_EQ(paste, claims);
  write_file_atomic(file, without_claims(full) + paste);
  auto second = testing::run_cli({"check", "recipe", s.recipe("tulu3-cefusion").string()});
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_THAT(second.out, ::testing::HasSubstr(": verified\n"));
}

TEST(CheckRecipeCli, every_problem_is_listed_at_once_with_the_computed_claims) {
  ScratchRegistry s;
  const fs::path file = s.recipe("mbs2") / "recipe.yaml";
  std::string yaml = read_file(file);
  // Two problems of two stages at once: a wrong throughput claim (measurement) and a wrong configuration claim.
  const auto at = yaml.find("tokens_per_s_per_gpu: ");
  yaml.replace(at, yaml.find('\n', at) - at, "tokens_per_s_per_gpu: 99999.0");
  const auto conf = yaml.find("configuration: eligible");
  ASSERT_NE(conf, std::string::npos);
  yaml.replace(conf, 23, "configuration: ineligible");
  write_file_atomic(file, yaml);
  auto r = testing::run_cli({"check", "recipe", (s.recipe("mbs2") / "recipe.yaml").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, ::testing::HasSubstr("not verified, 2 problems"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("the claims block its evidence supports (paste it"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("  tokens_per_s_per_gpu: 23232.69\n"));  // the README's 23,232.7
  EXPECT_THAT(r.out, ::testing::HasSubstr("  configuration: eligible\n"));
}

// Regression: check recipe printed "its claims agree with its evidence" above a block that contradicts the recipe's
// claims (a run that does not measure gives no number to hold a claim to, and no claim reason either).
TEST(CheckRecipeCli, claims_agree_only_when_every_one_was_recomputed_and_each_that_differs_is_named) {
  ScratchRegistry s;
  const fs::path log = s.recipe("mbs2") / "evidence/train.log";
  std::string text = read_file(log);
  const auto at = text.find(" iteration       11/");  // step 10, inside the window, removed: the run does not measure
  ASSERT_NE(at, std::string::npos);
  const auto line = text.rfind('\n', at) + 1;
  text.erase(line, text.find('\n', at) + 1 - line);
  write_file_atomic(log, text);
  auto r = testing::run_cli({"check", "recipe", s.recipe("mbs2").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.find("its claims agree with its evidence"), std::string::npos) << r.out;
  EXPECT_THAT(r.out, ::testing::HasSubstr(
                         "its claims do not agree with its evidence:\n  - tokens_per_s_per_gpu and cv: not recomputed "
                         "(the run does not measure: see the problems above)\n"));
  // A recipe whose claims hold says so.
  auto ok = testing::run_cli({"check", "recipe", s.recipe("ref").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_THAT(ok.out, ::testing::HasSubstr("its claims agree with its evidence; the block submit would write:\n"));
}

// Regression: a loss curve that does not vary has no correlation (the check gives NaN), and a recorded
// correlation was said to agree with it.
TEST(CheckRecipeCli, a_correlation_the_check_cannot_give_is_named_not_recomputed) {
  ScratchRegistry s;
  const fs::path log = s.recipe("mbs2") / "evidence/train.log";
  const std::string text = read_file(log);
  std::string flat;  // every step's loss 12.0: a constant curve
  std::size_t at = 0;
  for (auto hit = text.find("lm loss: "); hit != std::string::npos; hit = text.find("lm loss: ", at)) {
    flat += text.substr(at, hit - at) + "lm loss: 1.200000E+01";
    at = text.find(' ', hit + 9);
  }
  flat += text.substr(at);
  ASSERT_NE(flat, text);
  write_file_atomic(log, flat);
  auto r = testing::run_cli({"check", "recipe", s.recipe("mbs2").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, ::testing::HasSubstr(
                         "  - correlation: not recomputed (a 20-step loss curve does not vary, so the check gives "
                         "none)\n"));
  EXPECT_THAT(r.out, ::testing::Not(::testing::HasSubstr("its claims agree with its evidence")));
}

TEST(CheckRecipeCli, a_mistyped_field_names_the_nearest_one_and_a_folder_outside_a_registry_says_where_recipes_live) {
  ScratchRegistry s;
  const fs::path file = s.recipe("ref") / "recipe.yaml";
  std::string yaml = read_file(file);
  yaml.replace(yaml.find("\nsteps_per_run:"), 15, "\nsteps_per_runs:");
  write_file_atomic(file, yaml);
  auto r = testing::run_cli({"check", "recipe", s.recipe("ref").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("unknown field 'steps_per_runs' (fix: did you mean 'steps_per_run'?"));
  // Two at once: both named in one round, each with the field it likely meant.
  write_file_atomic(file, yaml + "workld: x\n");
  auto two = testing::run_cli({"check", "recipe", s.recipe("ref").string()});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_THAT(two.err, ::testing::HasSubstr(
                           "2 unknown fields: 'steps_per_runs' (did you mean 'steps_per_run'?), 'workld' (did you mean "
                           "'workload'?)"));
  testing::TempDir lone;
  fs::copy(s.recipe("mbs2"), lone / "mbs2", fs::copy_options::recursive);
  auto outside = testing::run_cli({"check", "recipe", (lone / "mbs2").string()});
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_THAT(outside.err, ::testing::HasSubstr("not inside a registry"));
}

}  // namespace
}  // namespace openrecipes
