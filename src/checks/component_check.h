// Component tests of same-math swaps (SPEC §4.2): the rules that say how each swap is tested and its bound
// (registry/rules/component_tests.yaml), the record a recipe keeps {swap, compares, shape, bound, worst_error, passed,
// output}, and the raw output of the runner that produced it (data/component_test.py), from which `build` recomputes
// the worst error and the verdict. The record is evidence, not a claim: it counts only when its raw output is there,
// agrees with it, ran the configuration diff's swap at the model's layer shape, the recipe's row length and
// micro-batch, on the recipe's stack and GPU type, and changed something.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::checks {

/// The layer shape of a model, as component tests state it (e.g. hidden_size, ffn_hidden_size,
/// num_attention_heads, num_query_groups, kv_channels, num_experts, moe_ffn_hidden_size, top_k).
using LayerShape = std::map<std::string, std::int64_t>;

/// How one family of same-math swaps is tested (one entry of component_tests.yaml).
struct ComponentRule {
  std::vector<std::string> names;  ///< the arguments (argument-dump names); those changed together are tested together
  std::string unit;                ///< "model": the runner builds the model cut to `layers` layers; "none": it cannot
  std::int64_t layers = 0;
  std::vector<std::string> needs;  ///< what must be importable ("a|b": either)
  std::string why;                 ///< unit none: why the runner cannot build it
  std::string compares, source;
  double bound = 0;   ///< the largest worst error that passes (BF16)
  std::string where;  ///< "registry/rules/component_tests.yaml:42"
};

/// component_tests.yaml: one rule per swap family, each argument in one rule.
class ComponentRules {
 public:
  /// Loads and validates the file. Throws InputError (file:line: field) for malformed YAML, an unknown key, a unit
  /// other than model or none, a model rule without layers (1..64), a bound outside [0, 1], an empty source or
  /// compares, an argument listed twice, or an accepted runner that is not 64 lowercase hex digits.
  static ComponentRules load(const std::filesystem::path& file);
  /// The rule listing `argument`, or nullptr.
  const ComponentRule* find(std::string_view argument) const;
  const std::vector<ComponentRule>& rules() const { return rules_; }
  /// The precision the bounds are for ("bf16").
  const std::string& precision() const { return precision_; }
  /// sha256 of earlier runners whose raw outputs the registry still accepts (the built-in runner's always is).
  const std::vector<std::string>& accepted_runners() const { return accepted_runners_; }
  std::string file;

 private:
  std::vector<ComponentRule> rules_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::string precision_;
  std::vector<std::string> accepted_runners_;
};

/// The runner compiled into this openrecipes (data/component_test.py at build time) and its sha256.
std::string_view builtin_runner();
const std::string& builtin_runner_sha256();

/// One tensor the runner compared.
struct ComponentTensor {
  std::string name, kind;  ///< "loss" / "grad:<parameter>"; "output" or "gradient"
  std::vector<std::int64_t> shape;
  std::string dtype;
  double max_abs_error = 0;      ///< max |recipe - reference|
  double reference_max_abs = 0;  ///< max |reference|
  double error = 0;              ///< as the runner wrote it (recomputed by the build)
  bool operator==(const ComponentTensor&) const = default;
};

/// One argument the test swapped, with its value in each setting (as Megatron-LM prints it in the argument dump).
struct SwappedArgument {
  std::string argument, reference, recipe;
  bool operator==(const SwappedArgument&) const = default;
};

/// The runner's raw output (format openrecipes-component-test, format_version 1; docs/component-tests.md).
struct ComponentOutput {
  std::string file;  ///< for messages
  std::string runner_sha256, recipe, reference, test, compares, precision, gpu, verdict, worst_tensor;
  std::vector<SwappedArgument> swap;
  double bound = 0, worst_error = 0, repeat_max_abs_diff = 0;
  std::map<std::string, std::int64_t> shape;
  std::int64_t seed = 0;
  bool deterministic = false;                   ///< deterministic_algorithms: the runner's deterministic kernels
  std::map<std::string, std::string> versions;  ///< torch, cuda, transformer_engine ("none"), megatron_lm_commit, ...
  bool changed = false;                         ///< effect.changed: module types or the traced code path differ
  std::int64_t modules_differ = 0, code_differ = 0;
  std::vector<std::string> code_reference_only, code_recipe_only, modules_reference_only, modules_recipe_only;
  std::vector<ComponentTensor> tensors;
  bool operator==(const ComponentOutput&) const = default;
};

/// The most tensors a raw output may compare (a 2-layer cut of a 256-expert model compares about 3,100).
inline constexpr std::size_t kMaxComponentTensors = 20000;

/// Parses a raw output (at most 16 MiB of JSON). Throws InputError naming `file` for malformed JSON, another format
/// or format_version, a missing or mistyped field, no tensors or more than 1,000,000, a negative or non-finite error
/// field (the runner writes a non-finite value as the string "inf", which only the tensors' numbers and `worst_error`
/// may hold), a swap entry twice or with the same value in both settings, a tensor twice, a worst_tensor that is not
/// one of them, no gradient, `changed` without a listed difference, or a verdict other than passed / failed / no
/// effect.
ComponentOutput parse_component_output(std::string_view json, const std::string& file);

/// What the build recomputes from a raw output: the worst error (the largest max_abs_error / reference_max_abs over
/// every tensor, 0 / 0 = 0 and x / 0 = inf), the tensor it is in, and the verdict (`no effect` when nothing changed,
/// else passed when worst <= bound).
struct ComponentVerdict {
  double worst_error = 0;
  std::string worst_tensor;
  std::string verdict;  ///< "passed", "failed", "no effect"
};
ComponentVerdict recompute_verdict(const ComponentOutput& output, double bound);
/// The precision a run trains in, from its argument dump: fp8 (fp8 set), bf16, fp16, fp32 (neither), "" when the dump
/// shows none of them. The runner names its own the same way.
std::string training_precision(const std::map<std::string, std::string>& dump);

/// One tensor's error: max_abs_error / reference_max_abs (0 / 0 = 0; x / 0, or a non-finite number, = inf).
double tensor_error(const ComponentTensor& tensor);

/// The largest worst error a record can hold (recipe.yaml's numbers stop at 1e30); an infinite one is recorded as it.
inline constexpr double kMaxRecordedError = 1e30;

/// A worst error as a record holds it: 6 significant digits, at most kMaxRecordedError. A record agrees with its raw
/// output when both give the same recorded_error.
double recorded_error(double worst_error);

/// One component test a recipe records for a same-math swap.
struct ComponentTest {
  std::string swap;        ///< the test: the argument it justifies, e.g. "cross_entropy_loss_fusion"
  std::string compares;    ///< what it compares
  LayerShape shape;        ///< the layer shape it ran at
  double bound = 0;        ///< the error bound it was held to (>= 0)
  double worst_error = 0;  ///< the worst error it saw (>= 0)
  bool passed = false;
  std::string output;  ///< the raw output, relative to the recipe folder ("" when the record has none)
  std::string where;   ///< recipe file:line, for messages
  /// Filled by the build from the raw output (not part of recipe.yaml): every argument the test swapped, and why
  /// the evidence does not back the record ("" when it does).
  std::vector<std::string> covers;
  std::string evidence_problem;
  std::optional<ComponentOutput> raw;
  std::optional<double> rule_bound;  ///< the bound of its rule in the registry read (what the build holds it to)
  bool operator==(const ComponentTest&) const = default;
};

/// Why a component test does or does not count for `model_shape` (SPEC §4.2: it counts only if its evidence backs it
/// (`evidence_problem` empty), it passed, worst_error <= bound, and its shape is the model's layer shape). Empty string
/// when it counts.
std::string component_test_problem(const ComponentTest& test, const LayerShape& model_shape);

/// What a raw output is checked against: the recipe, its model and stack, and the two runs' argument dumps.
struct ComponentContext {
  const ComponentRules* rules = nullptr;
  LayerShape model_shape;
  std::int64_t row_length = 0;
  std::optional<std::int64_t> micro_batch;                         ///< the recipe's micro-batch (absent: not compared)
  std::string torch_version, transformer_engine, megatron_commit;  ///< the recipe's stack ("" : not recorded)
  std::vector<std::string> gpu_names;  ///< the names the driver reports for the recipe's GPU type (gpus.yaml)
  std::string gpu_type;
  std::optional<std::int64_t> vocab_size;  ///< the model's vocabulary (config.json); the runner's may be padded up
  std::string recipe_precision;            ///< bf16, fp16, fp8 or fp32, from the recipe's argument dump ("" unknown)
  std::optional<std::int64_t> seed;        ///< the recipe's seed, from its argument dump
  const std::map<std::string, std::string>* recipe_args = nullptr;     ///< the recipe's argument dump
  const std::map<std::string, std::string>* reference_args = nullptr;  ///< its reference's
};

/// Checks `test` (its `raw` output parsed) against its raw output and `context`; returns every problem (empty: the
/// evidence backs the record): a record whose worst_error, passed, bound or compares disagrees with the raw output,
/// a bound that is not the rule's, a raw output of no rule's swap or another test, a runner this registry does not
/// accept, a swap the argument dumps do not show (each argument's two values must be the dumps'), a shape other than
/// the model's layer shape at the recipe's row length and micro-batch, a precision the bounds are not for, versions
/// (torch, Transformer Engine, Megatron-LM commit) other than the recipe's stack, a GPU not of the recipe's type, and
/// the verdict `no effect`.
std::vector<std::string> check_component_evidence(const ComponentTest& test, const ComponentContext& context);

}  // namespace openrecipes::checks
