// The argument classes of the configuration check (SPEC §4.1), loaded from registry/rules/arguments.yaml:
// structural (placement, packing, overlap, recompute/offload), same-math swap (allowlisted kernel or
// implementation swaps), run bookkeeping (paths, logging, profiling, world size: ignored), math (all else).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace openrecipes::checks {

enum class ArgClass { structural, same_math_swap, bookkeeping, math, unclassified };

/// "structural", "same-math swap", "bookkeeping", "math", "unclassified".
std::string to_string(ArgClass c);

/// A rules file's `class:` value ("structural", "same_math_swap", "bookkeeping", "math"), as arguments.yaml and
/// command.yaml write it. Throws InputError naming `where` and the classes for anything else.
ArgClass parse_arg_class(const std::string& text, const std::string& where);

/// A rule's condition (`when:` in arguments.yaml): the rule's class holds only when `argument` prints as `equals` in
/// both runs' argument dumps; otherwise the argument is `otherwise` (e.g. slime's rollout settings are unused only when
/// the run is --debug-train-only, and math when it generates).
struct RuleCondition {
  std::string argument, equals;
  ArgClass otherwise = ArgClass::math;
};

/// How one argument was classed: the class, the rule's reason and where the rule is (file:line).
struct Classification {
  ArgClass cls = ArgClass::unclassified;
  std::string why;
  std::string rule;                        ///< "registry/rules/arguments.yaml:42" or empty when unclassified
  std::optional<RuleCondition> condition;  ///< the rule holds only under this condition (see classify_in)
};

/// An objective convention (PROTOCOL.md "Objective conventions"): for models of the listed families, the
/// recipe and its reference must run with `argument` numerically equal to `equals`.
struct ObjectiveConvention {
  std::vector<std::string> families;
  std::string argument;
  double equals = 0;
  std::string why;
  std::string rule;
};

/// Rules in file order. Exact names are looked up first (a name may appear in one rule only); then the
/// glob patterns ('*' any run of characters, '?' one character) in file order, first match wins.
class ArgumentRules {
 public:
  /// Loads and validates the rules file. Throws InputError (file:line: field) on malformed YAML, an unknown
  /// class, a rule without a reason, a name listed twice, or an empty pattern; a file that does not parse as
  /// YAML or has no top-level 'rules' list is "not an argument-rules file" (fix: registry/rules/arguments.yaml).
  static ArgumentRules load(const std::filesystem::path& file);
  /// The rule for `argument`, its condition (if any) not yet applied.
  Classification classify(const std::string& argument) const;
  /// The class of `argument` changed between two argument dumps (name -> printed value): classify's, with a rule's
  /// condition applied. A condition that does not hold in both dumps gives the rule's `otherwise` class, its why
  /// saying which dump breaks it ("... ; but debug_train_only is False in the recipe's run").
  Classification classify_in(const std::string& argument, const std::map<std::string, std::string>& recipe,
                             const std::map<std::string, std::string>& reference) const;
  const std::vector<ObjectiveConvention>& objective_conventions() const { return conventions_; }
  /// Where each rule that could class `argument` is ("file:line"): the one rule naming it, else every rule with a
  /// pattern that matches it (classify takes the first). More than one means the file classes it twice.
  std::vector<std::string> rules_for(const std::string& argument) const;

 private:
  struct Rule {
    ArgClass cls;
    std::string why, where;
    std::vector<std::string> patterns;
    std::optional<RuleCondition> condition;
  };
  const Rule* naming(const std::string& argument) const;  ///< the one rule that lists `argument` by name, if any
  std::vector<Rule> rules_;
  std::vector<std::pair<std::string, std::size_t>> names_;  // sorted by name -> rule index
  std::vector<ObjectiveConvention> conventions_;
};

/// Glob match used by the rules ('*' and '?').
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace openrecipes::checks
