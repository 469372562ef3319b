// The argument classes of the configuration check (SPEC §4.1), loaded from registry/rules/arguments.yaml:
// structural (placement, packing, overlap, recompute/offload), same-math swap (allowlisted kernel or
// implementation swaps), run bookkeeping (paths, logging, profiling, world size: ignored), math (all else).
#pragma once

#include <filesystem>
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

/// How one argument was classed: the class, the rule's reason and where the rule is (file:line).
struct Classification {
  ArgClass cls = ArgClass::unclassified;
  std::string why;
  std::string rule;  ///< "registry/rules/arguments.yaml:42" or empty when unclassified
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
  Classification classify(const std::string& argument) const;
  const std::vector<ObjectiveConvention>& objective_conventions() const { return conventions_; }

 private:
  struct Rule {
    ArgClass cls;
    std::string why, where;
    std::vector<std::string> patterns;
  };
  std::vector<Rule> rules_;
  std::vector<std::pair<std::string, std::size_t>> names_;  // sorted by name -> rule index
  std::vector<ObjectiveConvention> conventions_;
};

/// Glob match used by the rules ('*' and '?').
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace openrecipes::checks
