// A recipe's component-test records judged against their raw outputs (SPEC §4.2): the one home of that judgement,
// which the evaluation (registry/evaluate.h) and tune's choice of same-math swaps (run/tune_candidates.h) both ask.
#pragma once

#include <string>
#include <vector>

#include "checks/component_check.h"
#include "evidence/megatron_args.h"
#include "registry/registry.h"

namespace openrecipes::registry {

/// `r`'s component-test records, each with its raw output read (resolved inside the recipe's folder) and checked
/// against the recipe, its model's layer shape `model_shape`, its stack, the registry's rules/component_tests.yaml and
/// the two runs' argument dumps (`recipe_args`, `reference_args`; nullptr when absent):
/// checks::check_component_evidence's verdict in each record's evidence_problem ("" when the evidence backs it), and
/// what it covers. Never throws: a raw output that does not read is its evidence_problem.
std::vector<checks::ComponentTest> judge_component_tests(const Registry& reg, const Recipe& r,
                                                         const evidence::ArgumentDump* recipe_args,
                                                         const evidence::ArgumentDump* reference_args,
                                                         const checks::LayerShape& model_shape);

/// A component test that counts in the registry (SPEC §4.2): its evidence backs it, it passed, at the model's shape.
struct PassedComponentTest {
  checks::ComponentTest test;  ///< the judged record, its raw output read
  std::string recipe;          ///< the recipe whose record it is
};

/// Every component test that counts for `model` in `reg`: the records of its recipes that have a reference, judged
/// with judge_component_tests against their own and their reference's argument dumps (read from the evidence), that
/// passed at the model's layer shape. Reads only those recipes' dumps and raw outputs, not the whole registry's
/// evidence. Never throws: a recipe whose evidence does not read gives none.
std::vector<PassedComponentTest> passed_component_tests(const Registry& reg, const std::string& model);

}  // namespace openrecipes::registry
