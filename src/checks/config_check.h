// The configuration check (SPEC §4.1): diff a recipe's resolved arguments against its reference recipe's,
// class every changed argument, and decide eligibility; plus the objective conventions (PROTOCOL.md).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/argument_rules.h"
#include "checks/component_check.h"

namespace openrecipes::checks {

/// An argument that was added, removed or changed between the reference and the recipe.
struct ArgumentChange {
  std::string name;
  std::optional<std::string> reference_value;  ///< nullopt: not in the reference's dump
  std::optional<std::string> recipe_value;     ///< nullopt: not in the recipe's dump
  Classification classification;
  bool accepted = false;  ///< structural, bookkeeping, or a same-math swap with a passed component test
  std::string note;       ///< why it is or is not accepted
};

/// What the model contributes to the check: its family (for objective conventions) and layer shape.
struct ModelFacts {
  std::string family;
  LayerShape layer_shape;
};

struct ConfigCheck {
  bool eligible = false;
  std::vector<ArgumentChange> changes;  ///< sorted by argument name
  std::vector<std::string> problems;    ///< one sentence per offending argument or convention, in name order
};

/// How the check treats run length (checks/run_length.h). By default a changed train_iters is math: the run length
/// sets the learning-rate schedule, so a longer measured run is not the reference's math. When the recipe's
/// convergence evidence is a separate 20-step arm whose arguments equal the reference's in every math argument,
/// the caller sets `run_length_is_bookkeeping` with the reason shown for each such change.
struct ConfigCheckOptions {
  bool run_length_is_bookkeeping = false;
  std::string run_length_why;
  /// The environment variables the recipe's and the reference's commands set (NAME -> value as the command writes
  /// it): arguments too (SPEC §4.1), each changed one classed by `environment` (the program policy's class; nullopt:
  /// unclassified) and reported as "$NAME".
  std::map<std::string, std::string> recipe_env, reference_env;
  std::function<std::optional<Classification>(const std::string&)> environment;
};

/// Runs the check. `reference` is nullopt for a recipe that is its own reference (it passes trivially, but
/// the objective conventions still apply to it). Never throws on content: problems are reported in the
/// result.
ConfigCheck check_configuration(const std::map<std::string, std::string>& recipe,
                                const std::optional<std::map<std::string, std::string>>& reference,
                                const ArgumentRules& rules, const std::vector<ComponentTest>& component_tests,
                                const ModelFacts& model, const ConfigCheckOptions& options = {});

/// Reads an argument value as numbers: "0", "0.0", "1e-05", "[0.0, 0.0]" give their numbers; "None", text and
/// empty lists give nullopt.
std::optional<std::vector<double>> argument_numbers(const std::string& value);

}  // namespace openrecipes::checks
