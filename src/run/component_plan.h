// `openrecipes component-test` (SPEC §4.2): which same-math swaps a recipe changes against its reference, the plan the
// runner (data/component_test.py, compiled into openrecipes) reads, and the records its raw outputs give. The runner
// runs in the training image on one GPU; openrecipes plans, starts it, and reads back what it wrote.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checks/component_check.h"
#include "registry/recipe.h"

namespace openrecipes::run {

struct ComponentTestRequest {
  std::filesystem::path recipe;                    ///< the recipe's folder or recipe.yaml (a draft is enough)
  std::optional<std::filesystem::path> reference;  ///< its reference (default: the registry's recipe it names)
  std::optional<std::filesystem::path> rules;      ///< component_tests.yaml (default: the recipe's registry's)
  std::vector<std::string> swaps;                  ///< --swap: only the tests of these arguments
  std::vector<std::string> vars;                   ///< NAME=VALUE, as `run` takes them
  std::filesystem::path out_dir;                   ///< -o DIR, new or empty
};

/// One test to run: a rule of component_tests.yaml and the arguments of it the two commands set differently.
struct PlannedComponentTest {
  std::string id;                      ///< the rule's first changed argument: the record's `swap`, the file's name
  std::vector<std::string> arguments;  ///< every argument of the rule (the runner resolves which differ)
  std::vector<std::string> changed;    ///< those the two commands set differently
  checks::ComponentRule rule;
};

struct ComponentPlan {
  std::string recipe_id, reference_id, framework;
  std::string megatron_dir;  ///< the Megatron-LM checkout the runner imports (put first on PYTHONPATH)
  std::vector<std::string> pythonpath;
  std::string python;
  std::vector<std::string> recipe_argv, reference_argv;  ///< the words after each entry script, rendered
  std::vector<PlannedComponentTest> tests;               ///< to run
  std::vector<std::string> cannot;                       ///< swaps the runner cannot build here, one sentence each
  std::filesystem::path out_dir;                         ///< absolute
  std::filesystem::path rules_file;
};

/// Plans the component tests of `request`. Throws InputError (naming the file, option or variable, with the fix)
/// for: a recipe or reference that does not load, a recipe without a reference, a reference of another model or
/// framework, commands `run` would refuse (checks/command_policy.h, variables, checkouts: run::make_plan), no
/// Megatron-LM checkout (--var MEGATRON_LM, or the framework's for megatron-lm), a --swap that is not a same-math swap
/// of component_tests.yaml, and an output folder that exists and is not empty. Swaps whose rule's unit is none are
/// listed in `cannot` with the rule's why.
ComponentPlan plan_component_tests(const ComponentTestRequest& request);

/// The runner's plan file (format_version 1), as data/component_test.py reads it.
std::string component_plan_json(const ComponentPlan& plan);

/// The record a raw output gives (SPEC §4.2), for recipe.yaml: swap (the test), compares, shape (the model's layer
/// shape fields of the raw output), bound, worst_error and passed recomputed (checks::recompute_verdict), and
/// `output` the path given.
checks::ComponentTest component_record(const checks::ComponentOutput& raw, const checks::LayerShape& model_shape,
                                       const std::string& output);

}  // namespace openrecipes::run
