// Argument classes from registry/rules/arguments.yaml (SPEC §4.1).
#include "checks/argument_rules.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/enum_names.h"
#include "core/error.h"
#include "core/yaml.h"

namespace openrecipes::checks {

// How each class prints, and how arguments.yaml and command.yaml spell it (unclassified is never written there).
constexpr EnumName<ArgClass> kArgClassPrinted[] = {{ArgClass::structural, "structural"},
                                                   {ArgClass::same_math_swap, "same-math swap"},
                                                   {ArgClass::bookkeeping, "bookkeeping"},
                                                   {ArgClass::math, "math"},
                                                   {ArgClass::unclassified, "unclassified"}};
constexpr EnumName<ArgClass> kArgClassSpelled[] = {{ArgClass::structural, "structural"},
                                                   {ArgClass::same_math_swap, "same_math_swap"},
                                                   {ArgClass::bookkeeping, "bookkeeping"},
                                                   {ArgClass::math, "math"}};

std::string to_string(ArgClass c) { return std::string(name_of(kArgClassPrinted, c)); }

ArgClass parse_arg_class(const std::string& cls, const std::string& where) {
  if (const auto c = value_named(kArgClassSpelled, cls)) return *c;
  throw InputError(where, "unknown class '" + cls + "'", "use " + names_listed(kArgClassSpelled));
}

bool glob_match(std::string_view p, std::string_view t) {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi, ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

ArgumentRules ArgumentRules::load(const std::filesystem::path& file) {
  ArgumentRules out;
  // A file that is not YAML, or YAML without the top-level 'rules' list, is not an argument-rules file at all
  // (say, a wrong --rules path): say so, rather than the YAML reader's advice for recipe files.
  const char* not_rules_fix =
      "give an argument-rules file: a YAML map with 'version: 1' and a 'rules' list, like the bundled "
      "registry/rules/arguments.yaml";
  std::optional<YamlField> loaded;
  try {
    loaded = load_yaml_file(file);
  } catch (const InputError& e) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) throw;  // unreadable: the reader's own message says why
    throw InputError(file.string(), "not an argument-rules file (" + e.problem() + ")", not_rules_fix);
  }
  const YamlField& root = *loaded;
  if (!root.is_map() || !root["rules"].defined())
    throw InputError(file.string(), "not an argument-rules file (no top-level 'rules' list)", not_rules_fix);
  root.reject_unknown_keys({"version", "rules", "objective_conventions"});
  if (root.require("version").as_int(1, 1) != 1) throw InputError(root.where(), "unsupported version");
  std::map<std::string, std::string> seen;  // name -> where
  for (const auto& r : root.require("rules").items()) {
    r.reject_unknown_keys({"class", "why", "names", "patterns", "when", "otherwise"});
    Rule rule;
    rule.cls = parse_arg_class(r.require("class").as_string(64), r["class"].where());
    rule.why = r.require("why").as_string(400);
    if (rule.why.empty()) throw InputError(r["why"].where(), "every rule needs a reason");
    if (r["when"].defined() != r["otherwise"].defined())
      throw InputError(r.where(), "a rule with a condition needs both 'when' and 'otherwise'",
                       "give when: {argument: NAME, equals: VALUE} and otherwise: CLASS");
    if (r["when"].defined()) {
      const auto& w = r["when"];
      w.reject_unknown_keys({"argument", "equals"});
      rule.condition = RuleCondition{w.require("argument").as_string(200), w.require("equals").as_string(200),
                                     parse_arg_class(r["otherwise"].as_string(64), r["otherwise"].where())};
    }
    rule.where = r.where();
    std::size_t index = out.rules_.size();
    if (r["names"].defined()) {
      for (const auto& n : r["names"].items()) {
        std::string name = n.as_string(200);
        if (name.empty()) throw InputError(n.where(), "empty argument name");
        auto [it, fresh] = seen.emplace(name, n.where());
        if (!fresh)
          throw InputError(n.where(), "argument '" + name + "' is already classed at " + it->second,
                           "keep each argument in one rule");
        out.names_.emplace_back(name, index);
      }
    }
    if (r["patterns"].defined()) {
      for (const auto& p : r["patterns"].items()) {
        std::string pat = p.as_string(200);
        if (pat.empty() || pat == "*")
          throw InputError(p.where(), "a pattern must not be empty or match everything",
                           "name the arguments the rule is for");
        rule.patterns.push_back(pat);
      }
    }
    if (!r["names"].defined() && !r["patterns"].defined())
      throw InputError(r.where(), "a rule needs names or patterns");
    out.rules_.push_back(std::move(rule));
  }
  std::sort(out.names_.begin(), out.names_.end());
  if (root["objective_conventions"].defined()) {
    for (const auto& c : root["objective_conventions"].items()) {
      c.reject_unknown_keys({"families", "argument", "equals", "why"});
      ObjectiveConvention oc;
      for (const auto& f : c.require("families").items()) oc.families.push_back(f.as_string(64));
      oc.argument = c.require("argument").as_string(200);
      oc.equals = c.require("equals").as_double(-1e30, 1e30);
      oc.why = c.require("why").as_string(400);
      oc.rule = c.where();
      out.conventions_.push_back(std::move(oc));
    }
  }
  return out;
}

const ArgumentRules::Rule* ArgumentRules::naming(const std::string& argument) const {
  auto it = std::lower_bound(names_.begin(), names_.end(), std::make_pair(argument, std::size_t{0}));
  return it != names_.end() && it->first == argument ? &rules_[it->second] : nullptr;
}

Classification ArgumentRules::classify(const std::string& argument) const {
  if (const Rule* r = naming(argument)) return {r->cls, r->why, r->where, r->condition};
  for (const auto& r : rules_)
    for (const auto& p : r.patterns)
      if (glob_match(p, argument)) return {r.cls, r.why, r.where + " (pattern " + p + ")", r.condition};
  return {};
}

std::vector<std::string> ArgumentRules::rules_for(const std::string& argument) const {
  if (const Rule* r = naming(argument)) return {r->where};
  std::vector<std::string> out;
  for (const auto& r : rules_)
    if (std::any_of(r.patterns.begin(), r.patterns.end(),
                    [&](const std::string& p) { return glob_match(p, argument); }))
      out.push_back(r.where);
  return out;
}

Classification ArgumentRules::classify_in(const std::string& argument, const std::map<std::string, std::string>& recipe,
                                          const std::map<std::string, std::string>& reference) const {
  Classification c = classify(argument);
  if (!c.condition) return c;
  const auto& cond = *c.condition;
  for (const auto& [dump, whose] :
       {std::pair{&recipe, "the recipe's run"}, std::pair{&reference, "the reference's run"}}) {
    auto it = dump->find(cond.argument);
    if (it != dump->end() && it->second == cond.equals) continue;
    c.why += fmt::format("; but {} is {} in {}, so the rule does not apply", cond.argument,
                         it == dump->end() ? std::string("absent") : it->second, whose);
    c.cls = cond.otherwise;
    break;
  }
  return c;
}

}  // namespace openrecipes::checks
