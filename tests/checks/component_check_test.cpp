// Component tests (SPEC §4.2): the rules file's names against arguments.yaml's same-math swaps, the raw output's
// parse, the verdict recomputed by hand, and every way a record's evidence can fail to back it.
#include "checks/component_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "checks/argument_rules.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/sha256.h"
#include "core/yaml.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

const ComponentRules& bundled_rules() {
  static const ComponentRules r = ComponentRules::load(testing::source_dir() / "registry/rules/component_tests.yaml");
  return r;
}

TEST(ComponentRules, every_same_math_swap_of_arguments_yaml_has_exactly_one_rule) {
  // arguments.yaml lists the same-math swaps by name; component_tests.yaml must say how each is tested.
  const auto args = load_yaml_file(testing::source_dir() / "registry/rules/arguments.yaml");
  std::set<std::string> swaps;
  for (const auto& r : args["rules"].items())
    if (r["class"].as_string() == "same_math_swap")
      for (const auto& n : r["names"].items()) swaps.insert(n.as_string());
  ASSERT_GE(swaps.size(), 40u);
  std::set<std::string> listed;
  for (const auto& rule : bundled_rules().rules())
    for (const auto& n : rule.names) {
      EXPECT_TRUE(listed.insert(n).second) << n << " is in two rules";
      EXPECT_TRUE(swaps.count(n)) << n << " is not a same_math_swap of arguments.yaml";
    }
  for (const auto& s : swaps) EXPECT_TRUE(bundled_rules().find(s)) << s << " has no component-test rule";
  // Every rule cites its bound's source; the runner builds those it can (unit model), the rest say why not.
  for (const auto& rule : bundled_rules().rules()) {
    EXPECT_FALSE(rule.source.empty()) << rule.where;
    EXPECT_GT(rule.bound, 0) << rule.where;
    EXPECT_LE(rule.bound, 2e-2) << rule.where;  // the field's BF16 tolerances: 1.5e-2 .. 2e-2
    if (rule.unit == "model")
      EXPECT_GE(rule.layers, 1) << rule.where;
    else
      EXPECT_FALSE(rule.why.empty()) << rule.where;
  }
  EXPECT_EQ(bundled_rules().precision(), "bf16");
  // The three swaps the device ran without Transformer Engine need nothing beyond torch and Megatron-LM.
  for (const char* te_free : {"bias_swiglu_fusion", "cross_entropy_loss_fusion", "moe_token_dispatcher_type"})
    EXPECT_TRUE(bundled_rules().find(te_free)->needs.empty()) << te_free;
  EXPECT_EQ(bundled_rules().find("apply_rope_fusion")->needs, std::vector<std::string>{"transformer_engine"});
  EXPECT_EQ(bundled_rules().find("bias_swiglu_fusion")->bound, 2e-2);  // Megatron-LM's fused SwiGLU test, rtol
}

TEST(ComponentRules, a_name_in_two_rules_or_an_unknown_unit_is_refused) {
  testing::TempDir d;
  auto write = [&](const std::string& body) {
    write_file_atomic(d / "c.yaml", "version: 1\nprecision: bf16\nswaps:\n" + body);
    return d / "c.yaml";
  };
  const std::string rule = "  - {names: [a], unit: model, layers: 2, needs: [], compares: x, bound: 0.01, source: y}\n";
  EXPECT_NO_THROW(ComponentRules::load(write(rule)));
  EXPECT_THROW(ComponentRules::load(write(rule + rule)), InputError);
  EXPECT_THROW(ComponentRules::load(write("  - {names: [a], unit: kernel, compares: x, bound: 0.01, source: y}\n")),
               InputError);
  EXPECT_THROW(ComponentRules::load(write("  - {names: [a], unit: none, compares: x, bound: 0.01, source: y}\n")),
               InputError);  // unit none needs its why
}

// A raw output as data/component_test.py writes it: a test of cross_entropy_loss_fusion at the Qwen3-0.6B shape.
nlohmann::json raw_json() {
  nlohmann::json j = {
      {"format", "openrecipes-component-test"},
      {"format_version", 1},
      {"runner_sha256", builtin_runner_sha256()},
      {"recipe", "qwen3-0.6b/H200/ce"},
      {"reference", "qwen3-0.6b/H200/ref"},
      {"test", "cross_entropy_loss_fusion"},
      {"swap", {{{"argument", "cross_entropy_loss_fusion"}, {"reference", "False"}, {"recipe", "True"}}}},
      {"compares", bundled_rules().find("cross_entropy_loss_fusion")->compares},
      {"bound", 0.016},
      {"metric", "max|d| / max|ref|"},
      {"shape",
       {{"hidden_size", 1024},
        {"ffn_hidden_size", 3072},
        {"num_attention_heads", 16},
        {"num_query_groups", 8},
        {"kv_channels", 128},
        {"num_layers", 2},
        {"seq_length", 512},
        {"micro_batch_size", 4},
        {"vocab_size", 151936}}},
      {"precision", "bf16"},
      {"seed", 1234},
      {"deterministic_algorithms", true},
      {"versions",
       {{"torch", "2.11.0+cu130"},
        {"transformer_engine", "none"},
        {"megatron_lm_commit", "d98e8a64ddf34856e74b24714e3bedb2f5a39553"}}},
      {"gpu", "NVIDIA H200"},
      {"effect",
       {{"changed", true},
        {"modules",
         {{"differ", 0}, {"reference_only", nlohmann::json::array()}, {"recipe_only", nlohmann::json::array()}}},
        {"code",
         {{"differ", 2},
          {"reference_only", {"megatron/core/tensor_parallel/cross_entropy.py:vocab_parallel_cross_entropy"}},
          {"recipe_only", {"megatron/core/fusions/fused_cross_entropy.py:fused_vocab_parallel_cross_entropy"}}}}}},
      {"repeat_max_abs_diff", 0.0},
      // loss: 0.0; grad a: 1.5e-5 / 3.75e-3 = 0.004; grad b: 2e-5 / 3e-3 = 0.00666..., the worst
      {"tensors",
       {{{"name", "loss"},
         {"kind", "output"},
         {"shape", {4, 512}},
         {"dtype", "float32"},
         {"max_abs_error", 0.0},
         {"reference_max_abs", 14.2},
         {"error", 0.0}},
        {{"name", "grad:a"},
         {"kind", "gradient"},
         {"shape", {1024}},
         {"dtype", "bfloat16"},
         {"max_abs_error", 1.5e-5},
         {"reference_max_abs", 3.75e-3},
         {"error", 0.004}},
        {{"name", "grad:b"},
         {"kind", "gradient"},
         {"shape", {1024}},
         {"dtype", "bfloat16"},
         {"max_abs_error", 2e-5},
         {"reference_max_abs", 3e-3},
         {"error", 2e-5 / 3e-3}}}},
      {"worst_error", 2e-5 / 3e-3},
      {"worst_tensor", "grad:b"},
      {"verdict", "passed"}};
  return j;
}

TEST(ComponentOutput, the_verdict_is_recomputed_from_the_tensors) {
  const auto o = parse_component_output(raw_json().dump(), "ce.json");
  ASSERT_EQ(o.tensors.size(), 3u);
  auto v = recompute_verdict(o, 0.016);
  EXPECT_DOUBLE_EQ(v.worst_error, 2e-5 / 3e-3);  // by hand: grad:b
  EXPECT_EQ(v.worst_tensor, "grad:b");
  EXPECT_EQ(v.verdict, "passed");
  EXPECT_EQ(recompute_verdict(o, 0.006).verdict, "failed");  // 0.00667 > 0.006
  // 0 / 0 is no error; x / 0 is an infinite one.
  auto j = raw_json();
  j["tensors"][1]["reference_max_abs"] = 0.0;
  j["tensors"][1]["max_abs_error"] = 0.0;
  EXPECT_DOUBLE_EQ(recompute_verdict(parse_component_output(j.dump(), "x"), 0.016).worst_error, 2e-5 / 3e-3);
  j["tensors"][1]["max_abs_error"] = 1e-9;
  j["tensors"][1]["error"] = "inf";
  v = recompute_verdict(parse_component_output(j.dump(), "x"), 0.016);
  EXPECT_TRUE(std::isinf(v.worst_error));
  EXPECT_EQ(v.verdict, "failed");
  // Nothing changed: no effect, whatever the numbers.
  j = raw_json();
  j["effect"]["changed"] = false;
  j["effect"]["code"]["differ"] = 0;
  EXPECT_EQ(recompute_verdict(parse_component_output(j.dump(), "x"), 0.016).verdict, "no effect");
}

TEST(ComponentOutput, malformed_raw_outputs_are_refused_with_the_file) {
  auto refused = [](const nlohmann::json& j) {
    try {
      parse_component_output(j.dump(), "bad.json");
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
      return true;
    }
    return false;
  };
  auto j = raw_json();
  j["format"] = "something else";
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["tensors"] = nlohmann::json::array();
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["tensors"][1]["max_abs_error"] = -1.0;
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["tensors"].erase(0);  // no output compared
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["effect"]["changed"] = false;  // but it counts two code differences
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["verdict"] = "ok";
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j.erase("shape");
  EXPECT_TRUE(refused(j));
  EXPECT_THROW(parse_component_output("{not json", "bad.json"), InputError);
}

struct Fixture {
  LayerShape model{{"hidden_size", 1024},
                   {"ffn_hidden_size", 3072},
                   {"num_attention_heads", 16},
                   {"num_query_groups", 8},
                   {"kv_channels", 128}};
  std::map<std::string, std::string> recipe_args{{"cross_entropy_loss_fusion", "True"}};
  std::map<std::string, std::string> reference_args{{"cross_entropy_loss_fusion", "False"}};
  ComponentContext context() const {
    ComponentContext c;
    c.rules = &bundled_rules();
    c.model_shape = model;
    c.row_length = 512;
    c.micro_batch = 4;
    c.torch_version = "2.11.0+cu130";
    c.transformer_engine = "none";
    c.megatron_commit = "d98e8a64ddf34856e74b24714e3bedb2f5a39553";
    c.gpu_names = {"NVIDIA H200"};
    c.gpu_type = "H200";
    c.recipe_args = &recipe_args;
    c.reference_args = &reference_args;
    c.recipe_precision = "bf16";
    c.seed = 1234;
    c.vocab_size = 151936;
    return c;
  }
  // The record submit writes from `j`.
  static ComponentTest record(const nlohmann::json& j) {
    ComponentTest t;
    t.raw = parse_component_output(j.dump(), "evidence/component-tests/cross_entropy_loss_fusion.json");
    t.swap = "cross_entropy_loss_fusion";
    t.compares = t.raw->compares;
    t.bound = 0.016;
    t.worst_error = recompute_verdict(*t.raw, 0.016).worst_error;
    t.passed = true;
    t.output = "evidence/component-tests/cross_entropy_loss_fusion.json";
    return t;
  }
  std::string problems(const ComponentTest& t) const {
    std::string all;
    for (const auto& p : check_component_evidence(t, context())) all += p + "\n";
    return all;
  }
};

TEST(ComponentEvidence, a_record_its_raw_output_backs_counts) {
  Fixture f;
  EXPECT_EQ(f.problems(Fixture::record(raw_json())), "");
}

TEST(ComponentEvidence, a_tampered_worst_error_or_verdict_is_caught) {
  Fixture f;
  auto t = Fixture::record(raw_json());
  t.worst_error = 0.001;  // the record typed lower than its tensors give
  EXPECT_NE(f.problems(t).find("its worst_error 0.001 disagrees with its raw output"), std::string::npos)
      << f.problems(t);
  // A tensor's error edited down in the raw output: the build recomputes max_abs_error / reference_max_abs.
  auto j = raw_json();
  j["tensors"][2]["max_abs_error"] = 1e-4;  // 1e-4 / 3e-3 = 0.0333 > 0.016, its typed error left at 0.0067
  t = Fixture::record(raw_json());
  t.raw = parse_component_output(j.dump(), "x.json");
  const auto p = f.problems(t);
  EXPECT_NE(p.find("whose tensors give 0.0333333 (grad:b)"), std::string::npos) << p;
  EXPECT_NE(p.find("it says passed: true, and its raw output"), std::string::npos) << p;
}

TEST(ComponentEvidence, a_wrong_shape_swap_bound_stack_or_gpu_is_caught) {
  Fixture f;
  auto j = raw_json();
  j["shape"]["hidden_size"] = 2048;
  j["shape"]["seq_length"] = 4096;
  auto p = f.problems(Fixture::record(j));
  EXPECT_NE(
      p.find("ran at another shape: hidden_size 2048 (model 1024); seq_length 4096 (the recipe's row length 512)"),
      std::string::npos)
      << p;

  j = raw_json();
  j["swap"][0]["reference"] = "True";  // the other way round from the two runs
  j["swap"][0]["recipe"] = "False";
  p = f.problems(Fixture::record(j));
  EXPECT_NE(p.find("tested cross_entropy_loss_fusion = True (reference) vs False (recipe), but the runs' argument "
                   "dumps show False vs True"),
            std::string::npos)
      << p;

  j = raw_json();
  j["swap"][0]["argument"] = "bias_swiglu_fusion";  // another rule's argument
  p = f.problems(Fixture::record(j));
  EXPECT_NE(p.find("swapped bias_swiglu_fusion, which is not one of this test's arguments"), std::string::npos) << p;

  auto t = Fixture::record(raw_json());
  t.bound = 0.05;  // not the rule's
  p = f.problems(t);
  EXPECT_NE(p.find("its bound 0.05 (raw output 0.016) is not the rule's 0.016"), std::string::npos) << p;

  j = raw_json();
  j["versions"]["torch"] = "2.9.0";
  j["versions"]["megatron_lm_commit"] = "0123456789abcdef0123456789abcdef01234567";
  j["gpu"] = "NVIDIA H100 80GB HBM3";
  p = f.problems(Fixture::record(j));
  EXPECT_NE(p.find("ran torch 2.9.0, and the recipe's stack says 2.11.0+cu130"), std::string::npos) << p;
  EXPECT_NE(p.find("ran Megatron-LM 0123456789abcdef0123456789abcdef01234567"), std::string::npos) << p;
  EXPECT_NE(p.find("not a GPU of the recipe's type H200"), std::string::npos) << p;

  j = raw_json();
  j["runner_sha256"] = std::string(64, 'a');
  p = f.problems(Fixture::record(j));
  EXPECT_NE(p.find("was written by a runner this registry does not accept"), std::string::npos) << p;
}

TEST(ComponentEvidence, run_to_run_noise_another_seed_precision_vocabulary_or_compares_is_caught) {
  Fixture f;
  auto j = raw_json();
  j["repeat_max_abs_diff"] = 0.25;
  auto p = f.problems(Fixture::record(j));
  EXPECT_NE(p.find("the same setting run twice differed by 0.25"), std::string::npos) << p;
  j = raw_json();
  j["deterministic_algorithms"] = false;
  j["seed"] = 7;
  j["shape"]["vocab_size"] = 8;
  j["shape"]["num_layers"] = 1;
  p = f.problems(Fixture::record(j));
  EXPECT_NE(p.find("ran without deterministic kernels"), std::string::npos) << p;
  EXPECT_NE(p.find("ran from seed 7, and the recipe's is 1234"), std::string::npos) << p;
  EXPECT_NE(p.find("vocab_size 8 (the model's 151936)"), std::string::npos) << p;
  EXPECT_NE(p.find("num_layers 1 (the rule builds 2)"), std::string::npos) << p;
  j = raw_json();
  j["compares"] = "whatever the submitter likes";
  auto t = Fixture::record(j);
  p = f.problems(t);
  EXPECT_NE(p.find("is not the rule's"), std::string::npos) << p;
  // The recipe trains in FP16 (its argument dump), the raw output says BF16.
  auto c = f.context();
  c.recipe_precision = "fp16";
  std::string all;
  for (const auto& x : check_component_evidence(Fixture::record(raw_json()), c)) all += x + "\n";
  EXPECT_NE(all.find("the recipe trains in fp16, and its raw output"), std::string::npos) << all;
  EXPECT_EQ(training_precision({{"bf16", "True"}, {"fp16", "False"}, {"fp8", "None"}}), "bf16");
  EXPECT_EQ(training_precision({{"bf16", "False"}, {"fp16", "True"}}), "fp16");
  EXPECT_EQ(training_precision({{"bf16", "True"}, {"fp8", "hybrid"}}), "fp8");
  EXPECT_EQ(training_precision({{"bf16", "False"}, {"fp16", "False"}}), "fp32");
  EXPECT_EQ(training_precision({}), "");
}

TEST(ComponentOutput, a_non_finite_tensor_fails_and_lenient_shapes_are_refused) {
  auto j = raw_json();
  j["tensors"][2]["max_abs_error"] = "inf";  // the runner's NaN or inf in a gradient
  j["tensors"][2]["error"] = "inf";
  const auto v = recompute_verdict(parse_component_output(j.dump(), "x"), 0.016);
  EXPECT_TRUE(std::isinf(v.worst_error));
  EXPECT_EQ(v.verdict, "failed");
  auto refused = [](const nlohmann::json& x) {
    try {
      parse_component_output(x.dump(), "bad.json");
    } catch (const InputError&) {
      return true;
    }
    return false;
  };
  j = raw_json();
  j["swap"] = {{"argument", "cross_entropy_loss_fusion"}};  // an object, not a list
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["swap"].push_back(j["swap"][0]);  // twice
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["swap"][0]["recipe"] = "False";  // the same value on both sides
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["tensors"][1]["shape"] = {1e308};
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["tensors"][1]["shape"] = {-5};
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["tensors"].push_back(j["tensors"][1]);  // a tensor twice
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["worst_tensor"] = "grad:elsewhere";
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j["effect"]["code"]["reference_only"] = nlohmann::json::array();
  j["effect"]["code"]["recipe_only"] = nlohmann::json::array();  // changed, and nothing listed
  EXPECT_TRUE(refused(j));
  j = raw_json();
  j.erase("deterministic_algorithms");
  EXPECT_TRUE(refused(j));
}

TEST(ComponentEvidence, no_effect_and_a_missing_raw_output_never_count) {
  Fixture f;
  auto j = raw_json();
  j["effect"]["changed"] = false;
  j["effect"]["code"]["differ"] = 0;
  j["verdict"] = "no effect";
  auto t = Fixture::record(j);
  auto p = f.problems(t);
  EXPECT_NE(p.find("its component test shows no effect"), std::string::npos) << p;

  t = Fixture::record(raw_json());
  t.output.clear();
  t.raw.reset();
  EXPECT_EQ(f.problems(t), "its component test has no raw output (the record's output: is missing)\n");

  // The configuration check: a record with evidence problems is a reason, whatever it says.
  t = Fixture::record(raw_json());
  t.evidence_problem = "its component test shows no effect";
  EXPECT_EQ(component_test_problem(t, f.model), "its component test shows no effect");
}

TEST(ComponentTest, counts_only_when_passed_within_bound_and_at_the_models_shape) {
  LayerShape shape{{"hidden_size", 7168}, {"num_experts", 256}};
  ComponentTest t;
  t.swap = "moe_grouped_gemm";
  t.compares = "grouped vs sequential GEMM";
  t.shape = shape;
  t.bound = 1e-3;
  t.worst_error = 1e-3;
  t.passed = true;
  EXPECT_EQ(component_test_problem(t, shape), "");  // worst == bound still counts
  t.shape.erase("num_experts");
  EXPECT_EQ(component_test_problem(t, shape),
            "its component test ran at another layer shape: num_experts missing (model 256)");
  EXPECT_NE(component_test_problem(t, {}), "");
}

TEST(ComponentRunner, the_built_in_runner_is_data_component_test_py) {
  EXPECT_EQ(builtin_runner_sha256(), sha256_hex(read_file(testing::source_dir() / "data/component_test.py")));
}

}  // namespace
}  // namespace openrecipes::checks
