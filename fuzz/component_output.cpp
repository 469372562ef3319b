// Fuzz target: a component test's raw output (the runner's JSON, kept as a recipe's evidence; SPEC §4.2;
// checks/component_check.h), parsed, its verdict recomputed, and checked as build checks it against the bundled
// tulu3-cefusion's context (the Qwen3-0.6B layer shape, L 512, micro-batch 4, its stack and its two argument dumps).
#include <cmath>

#include "checks/component_check.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  std::optional<checks::ComponentOutput> raw;
  fuzz::expect_input_error_or_success([&] { raw = checks::parse_component_output(fuzz::text(data, size), "x.json"); });
  if (!raw) return 0;
  const auto v = checks::recompute_verdict(*raw, 0.016);
  if ((v.verdict == "no effect") == raw->changed) fuzz::finding("no effect is not exactly 'nothing changed'");
  for (const auto& t : raw->tensors)
    if (checks::tensor_error(t) > v.worst_error) fuzz::finding("a tensor's error is above the worst error");
  if (v.verdict == "passed" && !(v.worst_error <= 0.016)) fuzz::finding("passed above the bound");
  static const auto rules = checks::ComponentRules::load(std::filesystem::path(OPENRECIPES_SOURCE_DIR) /
                                                         "registry/rules/component_tests.yaml");
  static const std::map<std::string, std::string> recipe{{"cross_entropy_loss_fusion", "True"}};
  static const std::map<std::string, std::string> reference{{"cross_entropy_loss_fusion", "False"}};
  checks::ComponentContext c;
  c.rules = &rules;
  c.model_shape = {{"hidden_size", 1024},
                   {"ffn_hidden_size", 3072},
                   {"num_attention_heads", 16},
                   {"num_query_groups", 8},
                   {"kv_channels", 128}};
  c.row_length = 512;
  c.micro_batch = 4;
  c.torch_version = "2.11.0+cu130";
  c.transformer_engine = "none";
  c.megatron_commit = "d98e8a64ddf34856e74b24714e3bedb2f5a39553";
  c.gpu_names = {"NVIDIA H200"};
  c.gpu_type = "H200";
  c.recipe_args = &recipe;
  c.reference_args = &reference;
  checks::ComponentTest t;
  t.swap = raw->test;
  t.compares = raw->compares;
  t.bound = raw->bound;
  t.worst_error = v.worst_error;
  t.passed = v.verdict == "passed";
  t.output = "x.json";
  t.raw = raw;
  fuzz::expect_input_error_or_success([&] { checks::check_component_evidence(t, c); });
  return 0;
}
