// Tests for src/run/model_args: MODEL_ARGS read from a model script by a child bash, words kept exactly as bash
// splits them (quotes, spaces, globs, $ signs), and every failure named. The scripts are written by the tests.
#include "run/model_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::run {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

std::string refusal(const std::filesystem::path& script) {
  SCOPED_TRACE(script.string());
  return testing::message_of([&] { read_model_args(script); });
}

TEST(ModelArgs, the_array_comes_back_word_for_word_as_bash_holds_it) {
  TempDir d;
  // The shape of slime's qwen3-0.6B.sh, plus words a naive split would break: a quoted value with spaces, a glob
  // character, a dollar sign, an env default, and output on stdout that must not leak into the words.
  auto script = d.write("qwen3-0.6B.sh",
                        "echo 'loading model args'\n"
                        "NLAYERS=${NLAYERS:-28}\n"
                        "MODEL_ARGS=(\n"
                        "   --swiglu\n"
                        "   --num-layers $NLAYERS\n"
                        "   --normalization \"RMSNorm\"\n"
                        "   --note 'two words' '*' '$HOME'\n"
                        ")\n");
  EXPECT_THAT(read_model_args(script), ElementsAre("--swiglu", "--num-layers", "28", "--normalization", "RMSNorm",
                                                   "--note", "two words", "*", "$HOME"));
}

TEST(ModelArgs, the_script_is_found_without_regard_to_case) {
  TempDir d;
  auto script = d.write("slime/scripts/models/qwen3-0.6B.sh", "MODEL_ARGS=(--swiglu)\n");
  EXPECT_EQ(find_model_script(d / "slime", "qwen3-0.6b"), script);
  EXPECT_THAT(read_model_args(find_model_script(d / "slime", "qwen3-0.6b")), ElementsAre("--swiglu"));
}

TEST(ModelArgs, a_missing_script_or_folder_is_named) {
  TempDir d;
  d.write("slime/scripts/models/qwen3-8B.sh", "MODEL_ARGS=()\n");
  try {
    find_model_script(d / "slime", "qwen3-0.6b");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no model script qwen3-0.6b.sh"));
    EXPECT_THAT(e.what(), HasSubstr("--var SLIME="));  // the fix names the option that gives the checkout
  }
  EXPECT_THROW(find_model_script(d / "nowhere", "qwen3-0.6b"), InputError);
  EXPECT_THAT(refusal(d / "none.sh"), HasSubstr("model script not found"));
}

TEST(ModelArgs, a_script_that_fails_or_sets_no_array_is_refused) {
  TempDir d;
  EXPECT_THAT(refusal(d.write("fail.sh", "echo 'no such model' >&2\nexit 3\n")),
              HasSubstr("sourcing it failed (bash exit 3): no such model"));
  EXPECT_THAT(refusal(d.write("none.sh", "OTHER_ARGS=(--x)\n")), HasSubstr("sets no MODEL_ARGS array"));
  EXPECT_THAT(refusal(d.write("string.sh", "MODEL_ARGS='--x --y'\n")), HasSubstr("sets no MODEL_ARGS array"));
}

}  // namespace
}  // namespace openrecipes::run
