// Configuration check (SPEC §4.1, §4.2) on the real H200 argument dumps and on constructed cases.
#include "checks/config_check.h"

#include <gtest/gtest.h>

#include "core/files.h"
#include "evidence/megatron_args.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

ArgumentRules rules() { return ArgumentRules::load(testing::source_dir() / "registry/rules/arguments.yaml"); }

std::map<std::string, std::string> dump(const char* run) {
  auto path = testing::fixtures_dir() / "runs/megatron-h200" / (std::string(run) + ".log");
  return evidence::parse_megatron_args(read_file(path), path.string()).values;
}

const LayerShape kShape{{"hidden_size", 1024}, {"ffn_hidden_size", 3072}, {"num_attention_heads", 16}};

TEST(ConfigCheck, h200_mbs2_changes_only_packing_and_recompute_so_it_is_eligible) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto r = check_configuration(dump("mbs2"), dump("ref"), rules(), {}, {"qwen3", kShape});
  EXPECT_TRUE(r.eligible);
  ASSERT_EQ(r.changes.size(), 3u);
  EXPECT_EQ(r.changes[0].name, "eval_micro_batch_size");
  EXPECT_EQ(r.changes[1].name, "micro_batch_size");
  EXPECT_EQ(*r.changes[1].reference_value, "1");
  EXPECT_EQ(*r.changes[1].recipe_value, "2");
  EXPECT_EQ(r.changes[2].name, "recompute_granularity");
  for (const auto& c : r.changes) EXPECT_EQ(c.classification.cls, ArgClass::structural) << c.name;
  EXPECT_TRUE(r.problems.empty());
}

TEST(ConfigCheck, h200_lr10_changes_the_learning_rate_so_it_is_ineligible) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto r = check_configuration(dump("lr10"), dump("ref"), rules(), {}, {"qwen3", kShape});
  EXPECT_FALSE(r.eligible);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].name, "lr");
  EXPECT_EQ(r.changes[0].classification.cls, ArgClass::math);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("lr changed from 1e-05 to 0.0001 — math"), std::string::npos) << r.problems[0];
}

TEST(ConfigCheck, reference_recipe_passes_trivially) {
  auto r = check_configuration({{"lr", "1"}}, std::nullopt, rules(), {}, {"qwen3", kShape});
  EXPECT_TRUE(r.eligible);
  EXPECT_TRUE(r.changes.empty());
}

TEST(ConfigCheck, bookkeeping_changes_are_listed_and_ignored) {
  auto r = check_configuration({{"tensorboard_dir", "/a"}, {"lr", "1"}}, {{{"tensorboard_dir", "/b"}, {"lr", "1"}}},
                               rules(), {}, {"qwen3", kShape});
  EXPECT_TRUE(r.eligible);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].classification.cls, ArgClass::bookkeeping);
}

TEST(ConfigCheck, added_removed_and_unclassified_arguments) {
  auto r = check_configuration({{"brand_new_flag", "True"}}, {{{"seed", "1234"}}}, rules(), {}, {"qwen3", kShape});
  EXPECT_FALSE(r.eligible);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_NE(r.problems[0].find("brand_new_flag changed from (absent) to True — unclassified"), std::string::npos)
      << r.problems[0];
  EXPECT_NE(r.problems[1].find("seed changed from 1234 to (absent) — math"), std::string::npos) << r.problems[1];
}

ComponentTest attention_test() {
  ComponentTest t;
  t.swap = "attention_backend";
  t.compares = "flash vs unfused attention fwd+bwd, BF16";
  t.shape = kShape;
  t.bound = 1e-2;
  t.worst_error = 3e-3;
  t.passed = true;
  t.where = "r.yaml:40";
  return t;
}

TEST(ConfigCheck, same_math_swap_needs_a_passed_component_test_at_the_models_shape) {
  std::map<std::string, std::string> ref{{"attention_backend", "AttnBackend.unfused"}};
  std::map<std::string, std::string> rec{{"attention_backend", "AttnBackend.flash"}};
  auto none = check_configuration(rec, ref, rules(), {}, {"qwen3", kShape});
  EXPECT_FALSE(none.eligible);
  EXPECT_NE(none.problems[0].find("no component test records this swap"), std::string::npos);

  auto ok = check_configuration(rec, ref, rules(), {attention_test()}, {"qwen3", kShape});
  EXPECT_TRUE(ok.eligible) << (ok.problems.empty() ? "" : ok.problems[0]);

  auto failed = attention_test();
  failed.passed = false;
  EXPECT_FALSE(check_configuration(rec, ref, rules(), {failed}, {"qwen3", kShape}).eligible);

  auto over = attention_test();
  over.worst_error = 2e-2;  // above its bound of 1e-2 although it says passed
  auto r = check_configuration(rec, ref, rules(), {over}, {"qwen3", kShape});
  EXPECT_FALSE(r.eligible);
  EXPECT_NE(r.problems[0].find("worst error 0.02 exceeds its bound 0.01"), std::string::npos) << r.problems[0];

  auto other_shape = attention_test();
  other_shape.shape["hidden_size"] = 4096;
  r = check_configuration(rec, ref, rules(), {other_shape}, {"qwen3", kShape});
  EXPECT_FALSE(r.eligible);
  EXPECT_NE(r.problems[0].find("hidden_size 4096 (model 1024)"), std::string::npos) << r.problems[0];
}

TEST(ConfigCheck, qwen35_and_qwen36_must_train_without_the_load_balancing_loss) {
  std::map<std::string, std::string> on{{"moe_aux_loss_coeff", "0.001"}};
  std::map<std::string, std::string> off{{"moe_aux_loss_coeff", "0.0"}};
  auto r = check_configuration(on, off, rules(), {}, {"qwen3.5", kShape});
  EXPECT_FALSE(r.eligible);
  bool convention = false;
  for (const auto& p : r.problems)
    convention |=
        p.find("objective convention: the recipe trains with moe_aux_loss_coeff = 0.001") != std::string::npos;
  EXPECT_TRUE(convention);
  // the reference too, even when the recipe is its own reference
  EXPECT_FALSE(check_configuration(on, std::nullopt, rules(), {}, {"qwen3.6", kShape}).eligible);
  EXPECT_TRUE(check_configuration(off, off, rules(), {}, {"qwen3.5", kShape}).eligible);
  EXPECT_TRUE(
      check_configuration({{"moe_aux_loss_coeff", "[0.0, 0.0]"}}, std::nullopt, rules(), {}, {"qwen3.5", kShape})
          .eligible);
  // other families are not bound by it
  EXPECT_TRUE(check_configuration(on, on, rules(), {}, {"qwen3", kShape}).eligible);
  // a dump without the argument cannot show the convention holds
  EXPECT_FALSE(check_configuration({}, std::nullopt, rules(), {}, {"qwen3.5", kShape}).eligible);
}

TEST(ConfigCheck, argument_numbers_reads_megatron_value_forms) {
  EXPECT_EQ(*argument_numbers("0.0"), std::vector<double>{0.0});
  EXPECT_EQ(*argument_numbers("[0.0, 1e-3]"), (std::vector<double>{0.0, 1e-3}));
  EXPECT_FALSE(argument_numbers("None"));
  EXPECT_FALSE(argument_numbers("[]"));
}

}  // namespace
}  // namespace openrecipes::checks
