// registry/rules/arguments.yaml: loading rules and classing every argument the fixture dumps print.
#include "checks/argument_rules.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "evidence/megatron_args.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {
using testing::TempDir;

ArgumentRules registry_rules() { return ArgumentRules::load(testing::source_dir() / "registry/rules/arguments.yaml"); }

TEST(ArgumentRules, every_argument_in_the_fixture_dumps_is_classed) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto rules = registry_rules();
  for (const char* run : {"ref", "mbs2", "lr10"}) {
    auto path = testing::fixtures_dir() / "runs/megatron-h200" / (std::string(run) + ".log");
    auto dump = evidence::parse_megatron_args(read_file(path), path.string());
    ASSERT_EQ(dump.values.size(), 846u);
    for (const auto& [name, value] : dump.values)
      EXPECT_NE(rules.classify(name).cls, ArgClass::unclassified) << run << ": " << name;
  }
}

TEST(ArgumentRules, the_protocols_examples_get_their_classes) {
  auto rules = registry_rules();
  EXPECT_EQ(rules.classify("tensor_model_parallel_size").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("micro_batch_size").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("recompute_granularity").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("attention_backend").cls, ArgClass::same_math_swap);
  EXPECT_EQ(rules.classify("moe_grouped_gemm").cls, ArgClass::same_math_swap);
  EXPECT_EQ(rules.classify("moe_token_dispatcher_type").cls, ArgClass::same_math_swap);
  EXPECT_EQ(rules.classify("tensorboard_dir").cls, ArgClass::bookkeeping);
  EXPECT_EQ(rules.classify("world_size").cls, ArgClass::bookkeeping);
  EXPECT_EQ(rules.classify("lr").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("seed").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("bf16").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("moe_aux_loss_coeff").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("hidden_size").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("fp8_recipe").cls, ArgClass::math);                     // by pattern fp8*
  EXPECT_EQ(rules.classify("inference_max_requests").cls, ArgClass::bookkeeping);  // by pattern
  EXPECT_EQ(rules.classify("no_such_argument_anywhere").cls, ArgClass::unclassified);
}

TEST(ArgumentRules, exact_names_win_over_patterns) {
  auto rules = registry_rules();
  EXPECT_EQ(rules.classify("gdp_cutedsl_kernel").cls, ArgClass::same_math_swap);  // gdp_* is math
  EXPECT_EQ(rules.classify("gdp_num_householder").cls, ArgClass::math);
}

TEST(ArgumentRules, glob_matching) {
  EXPECT_TRUE(glob_match("fp8*", "fp8"));
  EXPECT_TRUE(glob_match("fp8*", "fp8_recipe"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "ac"));
  EXPECT_TRUE(glob_match("*_dir", "tensorboard_dir"));
  EXPECT_FALSE(glob_match("*_dir", "tensorboard_dirs"));
}

std::string load_error(const std::string& yaml) {
  TempDir d;
  auto p = d.write("rules.yaml", yaml);
  try {
    ArgumentRules::load(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ArgumentRules, malformed_rules_are_errors) {
  EXPECT_NE(
      load_error("version: 1\nrules:\n  - class: speedy\n    why: x\n    names: [a]\n").find("unknown class 'speedy'"),
      std::string::npos);
  EXPECT_NE(load_error("version: 1\nrules:\n  - class: math\n    names: [a]\n").find("missing required field 'why'"),
            std::string::npos);
  EXPECT_NE(load_error("version: 1\nrules:\n  - class: math\n    why: x\n    names: [a]\n  - class: structural\n"
                       "    why: y\n    names: [a]\n")
                .find("argument 'a' is already classed"),
            std::string::npos);
  EXPECT_NE(
      load_error("version: 1\nrules:\n  - class: math\n    why: x\n    patterns: ['*']\n").find("match everything"),
      std::string::npos);
  EXPECT_NE(load_error("version: 1\nrules: [\n").find("malformed YAML"), std::string::npos);
}

TEST(ArgumentRules, a_file_that_is_not_a_rules_file_says_so_and_names_the_bundled_one) {
  TempDir d;
  for (const char* text : {"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
                           "model: qwen3\ngpus: 8\n"}) {
    auto path = d.write("passwd", text);
    try {
      ArgumentRules::load(path);
      FAIL() << "accepted";
    } catch (const InputError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find(path.string() + ": not an argument-rules file"), std::string::npos) << m;
      EXPECT_NE(m.find("registry/rules/arguments.yaml"), std::string::npos) << m;
      EXPECT_EQ(m.find("recipe-format"), std::string::npos) << m;
    }
  }
}

}  // namespace
}  // namespace openrecipes::checks
