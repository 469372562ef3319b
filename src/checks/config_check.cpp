// Configuration check and objective conventions (SPEC §4.1; PROTOCOL.md "Objective conventions").
#include "checks/config_check.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "checks/run_length.h"
#include "core/text.h"

namespace openrecipes::checks {

std::optional<std::vector<double>> argument_numbers(const std::string& value) {
  std::string_view v = trim(value);
  std::vector<double> out;
  if (!v.empty() && v.front() == '[' && v.back() == ']') {
    v = v.substr(1, v.size() - 2);
    if (trim(v).empty()) return std::nullopt;
    for (auto part : split(v, ',')) {
      auto d = parse_double(part);
      if (!d) return std::nullopt;
      out.push_back(*d);
    }
    return out;
  }
  auto d = parse_double(v);
  if (!d) return std::nullopt;
  out.push_back(*d);
  return out;
}

namespace {

std::string show(const std::optional<std::string>& v) {
  if (!v) return "(absent)";
  return v->empty() ? "''" : *v;
}

void check_conventions(const std::map<std::string, std::string>& args, const std::string& whose,
                       const ArgumentRules& rules, const ModelFacts& model, std::vector<std::string>& problems) {
  for (const auto& c : rules.objective_conventions()) {
    if (std::find(c.families.begin(), c.families.end(), model.family) == c.families.end()) continue;
    auto it = args.find(c.argument);
    if (it == args.end()) {
      problems.push_back(
          fmt::format("objective convention: the {} does not record {} ({} models must train with "
                      "{} = {}: {})",
                      whose, c.argument, model.family, c.argument, format_double(c.equals), c.why));
      continue;
    }
    auto nums = argument_numbers(it->second);
    bool ok = nums && std::all_of(nums->begin(), nums->end(), [&](double x) { return x == c.equals; });
    if (!ok)
      problems.push_back(fmt::format("objective convention: the {} trains with {} = {}; {} models must use {} ({})",
                                     whose, c.argument, show(it->second), model.family, format_double(c.equals),
                                     c.why));
  }
}

}  // namespace

ConfigCheck check_configuration(const std::map<std::string, std::string>& recipe,
                                const std::optional<std::map<std::string, std::string>>& reference,
                                const ArgumentRules& rules, const std::vector<ComponentTest>& component_tests,
                                const ModelFacts& model, const ConfigCheckOptions& options) {
  ConfigCheck out;
  if (reference) {
    // Classes one change and decides whether it is accepted (structural, bookkeeping, a tested same-math swap).
    auto judge = [&](ArgumentChange& ch) {
      switch (ch.classification.cls) {
        case ArgClass::structural:
          ch.accepted = true;
          ch.note = "structural: " + ch.classification.why;
          break;
        case ArgClass::bookkeeping:
          ch.accepted = true;
          ch.note = "bookkeeping (ignored): " + ch.classification.why;
          break;
        case ArgClass::same_math_swap: {
          std::string why_not = "no component test records this swap";
          for (const auto& t : component_tests) {
            if (t.swap != ch.name && std::find(t.covers.begin(), t.covers.end(), ch.name) == t.covers.end()) continue;
            why_not = component_test_problem(t, model.layer_shape);
            if (why_not.empty()) {
              ch.accepted = true;
              ch.note = fmt::format("same-math swap with a passed component test ({}; worst error {} <= bound {})",
                                    t.compares, format_double(t.worst_error), format_double(t.bound));
              break;
            }
          }
          if (!ch.accepted) ch.note = "same-math swap, but " + why_not;
          break;
        }
        case ArgClass::math:
          ch.note = "math: " + ch.classification.why;
          break;
        case ArgClass::unclassified:
          ch.note = ch.name.starts_with("$")
                        ? "unclassified: registry/rules/command.yaml does not list this environment variable"
                        : "unclassified: no rule in registry/rules/arguments.yaml classes this argument";
          break;
      }
      if (!ch.accepted)
        out.problems.push_back(fmt::format("{} changed from {} to {} — {}", ch.name, show(ch.reference_value),
                                           show(ch.recipe_value), ch.note));
      out.changes.push_back(std::move(ch));
    };
    auto diff = [&](const std::map<std::string, std::string>& mine, const std::map<std::string, std::string>& theirs,
                    const std::string& prefix, const auto& classify) {
      std::set<std::string> names;
      for (const auto& kv : mine) names.insert(kv.first);
      for (const auto& kv : theirs) names.insert(kv.first);
      for (const auto& name : names) {
        auto a = mine.find(name);
        auto b = theirs.find(name);
        std::optional<std::string> av = a == mine.end() ? std::nullopt : std::optional<std::string>(a->second);
        std::optional<std::string> bv = b == theirs.end() ? std::nullopt : std::optional<std::string>(b->second);
        if (av == bv) continue;
        ArgumentChange ch;
        ch.name = prefix + name;
        ch.recipe_value = av;
        ch.reference_value = bv;
        ch.classification = classify(name);
        judge(ch);
      }
    };
    diff(recipe, *reference, "", [&](const std::string& name) {
      if (options.run_length_is_bookkeeping && is_run_length_change(name, recipe, *reference))
        return Classification{ArgClass::bookkeeping, "run length: " + options.run_length_why, "", std::nullopt};
      return rules.classify_in(name, recipe, *reference);
    });
    diff(options.recipe_env, options.reference_env, "$", [&](const std::string& name) {
      auto c = options.environment ? options.environment(name) : std::nullopt;
      return c ? *c : Classification{};
    });
    std::sort(out.changes.begin(), out.changes.end(),
              [](const ArgumentChange& x, const ArgumentChange& y) { return x.name < y.name; });
    check_conventions(*reference, "reference recipe", rules, model, out.problems);
  }
  check_conventions(recipe, "recipe", rules, model, out.problems);
  out.eligible = out.problems.empty();
  return out;
}

}  // namespace openrecipes::checks
