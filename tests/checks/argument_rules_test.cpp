// registry/rules/arguments.yaml: loading rules and classing every argument the fixture dumps print.
#include "checks/argument_rules.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checks/framework_options.h"
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

// The names files: each framework's own parser as tools/framework_options.py tabled it from the framework's source at
// its pinned commit (registry/rules/options/README.md says how to make them again). Every argument a parser defines
// must be classed by exactly one rule, or a recipe that changes it is ineligible as "unclassified".
struct NamesFile {
  const char* file;
  const char* framework;
  const char* commit;
  std::size_t options;
};
constexpr NamesFile kNamesFiles[] = {
    {"megatron-lm.json", "megatron-lm", "d98e8a64ddf34856e74b24714e3bedb2f5a39553", 838},
    {"slime.json", "slime", "624b824a898ab0ec1fcb4d373004c7f3852bf515", 210},  // THUDM/slime
    {"miles.json", "miles", "31f1ca961a94cb860cec3b2dea34ec332bfa8f76", 348},  // radixark/miles
};

TEST(ArgumentRules, every_argument_of_each_frameworks_own_parser_is_classed_exactly_once) {
  auto rules = registry_rules();
  for (const auto& nf : kNamesFiles) {
    auto path = testing::source_dir() / "registry/rules/options" / nf.file;
    auto table = OptionTable::parse(read_file(path), path.string());
    EXPECT_EQ(table.framework, nf.framework);
    EXPECT_EQ(table.commit, nf.commit) << nf.file << " is not made from the pinned commit";
    EXPECT_EQ(table.options().size(), nf.options) << nf.file;
    for (const auto& o : table.options()) {
      if (o.dest == "help") continue;
      const auto where = rules.rules_for(o.dest);
      EXPECT_FALSE(where.empty()) << nf.framework << ": " << o.dest << " (" << o.flags.front() << ") is unclassed";
      EXPECT_LE(where.size(), 1u) << nf.framework << ": " << o.dest << " is classed by " << where.size()
                                  << " rules' patterns";
    }
  }
}

TEST(ArgumentRules, the_arguments_slime_and_miles_copy_from_sglang_are_classed_by_their_prefix) {
  auto rules = registry_rules();
  for (const char* file : {"slime.json", "miles.json"}) {
    auto j = nlohmann::json::parse(read_file(testing::source_dir() / "registry/rules/options" / file));
    ASSERT_FALSE(j.at("external_sources").empty()) << file;
    for (const auto& src : j.at("external_sources")) {
      // sglang's ServerArgs (mem_fraction_static, ...) and sglang-router's RouterArgs (policy, ...): names from their
      // own docs, renamed as slime and miles rename them.
      const std::string prefix = src.at("prefix");
      for (const char* name : {"mem_fraction_static", "policy", "cache_threshold"}) {
        const auto c = rules.classify(prefix + name);
        EXPECT_EQ(c.cls, ArgClass::bookkeeping) << prefix << name;
        ASSERT_TRUE(c.condition) << prefix << name;
        EXPECT_EQ(c.condition->argument, "debug_train_only");
      }
    }
  }
}

TEST(ArgumentRules, a_conditional_rule_holds_only_when_both_runs_meet_its_condition) {
  auto rules = registry_rules();
  const std::map<std::string, std::string> sft{{"debug_train_only", "True"}}, rl{{"debug_train_only", "False"}};
  EXPECT_EQ(rules.classify_in("sglang_mem_fraction_static", sft, sft).cls, ArgClass::bookkeeping);
  EXPECT_EQ(rules.classify_in("rollout_top_k", sft, sft).cls, ArgClass::bookkeeping);
  const auto broken = rules.classify_in("rollout_top_k", sft, rl);
  EXPECT_EQ(broken.cls, ArgClass::math);
  EXPECT_NE(broken.why.find("but debug_train_only is False in the reference's run"), std::string::npos) << broken.why;
  EXPECT_EQ(rules.classify_in("rollout_top_k", {}, sft).cls, ArgClass::math);  // absent: the condition is not met
  // The temperature divides the logits of the training loss (slime backends/megatron_utils/loss.py): math always.
  EXPECT_EQ(rules.classify_in("rollout_temperature", sft, sft).cls, ArgClass::math);
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
  // slime and miles (SPEC §4.1): placement and packing structural, tracking bookkeeping, loss and sampling math.
  EXPECT_EQ(rules.classify("actor_num_gpus_per_node").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("colocate").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("offload_train").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("max_tokens_per_gpu").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("use_dynamic_batch_size").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("log_probs_max_tokens_per_gpu").cls, ArgClass::structural);
  EXPECT_EQ(rules.classify("use_wandb").cls, ArgClass::bookkeeping);
  EXPECT_EQ(rules.classify("loss_type").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("n_samples_per_prompt").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("kl_loss_coef").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("advantage_estimator").cls, ArgClass::math);
  EXPECT_EQ(rules.classify("num_rollout").cls, ArgClass::math);
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
  return testing::message_of([&] { ArgumentRules::load(p); });
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
