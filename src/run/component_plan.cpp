// component-test planning and records (run/component_plan.h).
#include "run/component_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "checks/argument_rules.h"
#include "checks/framework_options.h"
#include "core/error.h"
#include "core/text.h"
#include "run/run_plan.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;

// What each destination of component_tests.yaml's rules the words after the entry script set, as text: a flag's
// constant ("True" for store_true) or its value words joined. Read with the framework's argument table.
std::map<std::string, std::string> swap_settings(const std::vector<std::string>& args, const std::string& framework,
                                                 const checks::ComponentRules& rules) {
  std::vector<layout::CommandWord> words;
  for (const auto& a : args) {
    layout::CommandWord w;
    w.parts.push_back({layout::WordPart::Kind::literal, a, false});
    words.push_back(std::move(w));
  }
  const auto parsed = checks::parse_arguments(words, checks::OptionTable::bundled_or_megatron(framework), {});
  std::map<std::string, std::string> out;
  for (const auto& [dest, p] : parsed.by_dest) {
    if (!rules.find(dest)) continue;
    std::string v = p.constant.value_or("");
    for (const auto& occurrence : p.occurrences)
      for (const auto& w : occurrence) v += (v.empty() ? "" : " ") + w.literal().value_or(w.shown());
    out[dest] = v;
  }
  return out;
}

}  // namespace

ComponentPlan plan_component_tests(const ComponentTestRequest& q) {
  const auto recipe = registry::load_recipe(registry::recipe_folder(q.recipe), registry::RecipeLoad::draft);
  const auto root = registry::registry_root(recipe.dir);
  if (!q.reference && !recipe.reference)
    throw InputError(recipe.file.string() + ": reference",
                     "the recipe is a reference (reference: null): a component test compares a swap against the "
                     "recipe it was tuned from",
                     "give the recipe's reference in recipe.yaml, or --reference DIR");
  fs::path ref_dir;
  if (q.reference) {
    ref_dir = registry::recipe_folder(*q.reference);
  } else {
    if (!root)
      throw InputError(recipe.file.string(), "the recipe is not in a registry folder, so its reference cannot be found",
                       "give --reference DIR");
    ref_dir = *root / "recipes" / *recipe.reference;
  }
  const auto reference = registry::load_recipe(ref_dir, registry::RecipeLoad::draft);
  if (reference.model != recipe.model || reference.stack.framework != recipe.stack.framework)
    throw InputError("reference " + reference.id,
                     fmt::format("the reference is {} on {}, the recipe {} on {}", reference.model,
                                 reference.stack.framework, recipe.model, recipe.stack.framework),
                     "give the recipe's own reference (same model and framework)");
  std::error_code ec;
  if (fs::equivalent(recipe.dir, reference.dir, ec))
    throw InputError("reference " + reference.id, "the recipe is its own reference",
                     "give the recipe it was tuned from");
  if (reference.workload.key != recipe.workload.key || reference.workload.row_length != recipe.workload.row_length ||
      reference.workload.global_batch != recipe.workload.global_batch)
    throw InputError("reference " + reference.id, "the reference ran another workload (key, row length or batch)",
                     "give the recipe it was tuned from, on the same workload");

  ComponentPlan plan;
  plan.rules_file = q.rules ? *q.rules
                    : root  ? *root / "rules" / "component_tests.yaml"
                            : fs::path("registry/rules/component_tests.yaml");
  const auto rules = checks::ComponentRules::load(plan.rules_file);
  for (const auto& s : q.swaps)
    if (!rules.find(s))
      throw InputError("--swap " + quote_for_message(s),
                       "not a same-math swap registry/rules/component_tests.yaml lists",
                       "give an argument as the argument dump names it, e.g. --swap cross_entropy_loss_fusion");
  plan.recipe_id = recipe.id;
  plan.reference_id = reference.id;
  plan.framework = recipe.stack.framework;
  plan.out_dir = fs::absolute(q.out_dir).lexically_normal();

  // Both commands rendered as `run` renders them (its checks included), with the same variables.
  RunRequest rq;
  rq.recipe = recipe.dir;
  rq.launcher = "local";
  rq.vars = q.vars;
  rq.run_dir = plan.out_dir;
  rq.data_dir = plan.out_dir;
  rq.check_reads = false;  // the runner builds one layer: it reads no data and loads no checkpoint
  const RunPlan mine = make_plan(rq);
  RunRequest rr = rq;
  rr.recipe = reference.dir;
  rr.vars.clear();
  {
    const auto ref_words = layout::split_command(reference.command, reference.file.string() + ": command");
    const auto used = layout::command_variable_names(ref_words);
    for (const auto& v : q.vars) {
      const std::string name = v.substr(0, v.find('='));
      if (is_launcher_variable(name) || std::find(used.begin(), used.end(), name) != used.end()) rr.vars.push_back(v);
    }
  }
  const RunPlan theirs = make_plan(rr);
  plan.megatron_dir = mine.framework == "megatron-lm" ? mine.framework_dir : mine.megatron_dir;
  if (plan.megatron_dir.empty())
    throw InputError("--var MEGATRON_LM", "the runner builds the model with Megatron-LM, and no checkout is given",
                     "give it: --var MEGATRON_LM=PATH (a checkout at the commit the recipe pins)");
  plan.pythonpath = {plan.megatron_dir};
  if (mine.framework != "megatron-lm" && !mine.framework_dir.empty()) plan.pythonpath.push_back(mine.framework_dir);
  plan.python = mine.python;
  plan.recipe_argv.assign(mine.argv.begin() + static_cast<std::ptrdiff_t>(mine.script_index) + 1, mine.argv.end());
  plan.reference_argv.assign(theirs.argv.begin() + static_cast<std::ptrdiff_t>(theirs.script_index) + 1,
                             theirs.argv.end());

  // The swaps: every argument of component_tests.yaml the two commands set differently, grouped by rule.
  const auto a = swap_settings(plan.recipe_argv, plan.framework, rules);
  const auto b = swap_settings(plan.reference_argv, plan.framework, rules);
  std::set<std::string> changed;
  for (const auto& [k, v] : a)
    if (!b.count(k) || b.at(k) != v) changed.insert(k);
  for (const auto& [k, v] : b)
    if (!a.count(k)) changed.insert(k);
  for (const auto& s : q.swaps)
    if (!changed.count(s)) {
      throw InputError("--swap " + s,
                       "the recipe does not set " + s + " differently from its reference " + reference.id,
                       changed.empty() ? std::string("it makes no same-math swap: nothing to test")
                                       : fmt::format("the swaps it makes: {}", fmt::join(changed, ", ")));
    }
  for (const auto& rule : rules.rules()) {
    PlannedComponentTest t;
    for (const auto& n : rule.names)
      if (changed.count(n)) t.changed.push_back(n);
    if (t.changed.empty()) continue;
    if (!q.swaps.empty() && std::none_of(rule.names.begin(), rule.names.end(), [&](const std::string& n) {
          return std::find(q.swaps.begin(), q.swaps.end(), n) != q.swaps.end();
        }))
      continue;
    t.id = t.changed.front();
    t.arguments = rule.names;
    t.rule = rule;
    if (rule.unit == "none")
      plan.cannot.push_back(
          fmt::format("{}: the runner cannot build it: {} (needs {})", t.id, rule.why,
                      rule.needs.empty() ? std::string("-") : fmt::format("{}", fmt::join(rule.needs, ", "))));
    else
      plan.tests.push_back(std::move(t));
  }
  return plan;
}

std::string component_plan_json(const ComponentPlan& p) {
  nlohmann::ordered_json j;
  j["format_version"] = 1;
  j["recipe"] = p.recipe_id;
  j["reference"] = p.reference_id;
  j["framework"] = p.framework;
  j["megatron_dir"] = p.megatron_dir;
  j["recipe_argv"] = p.recipe_argv;
  j["reference_argv"] = p.reference_argv;
  j["output_dir"] = p.out_dir.string();
  auto tests = nlohmann::ordered_json::array();
  for (const auto& t : p.tests)
    tests.push_back({{"id", t.id},
                     {"arguments", t.arguments},
                     {"changed", t.changed},
                     {"layers", t.rule.layers},
                     {"needs", t.rule.needs},
                     {"compares", t.rule.compares},
                     {"bound", t.rule.bound}});
  j["tests"] = tests;
  return j.dump(1) + "\n";
}

checks::ComponentTest component_record(const checks::ComponentOutput& raw, const checks::LayerShape& model_shape,
                                       const std::string& output) {
  checks::ComponentTest t;
  t.swap = raw.test;
  t.compares = raw.compares;
  for (const auto& [k, v] : raw.shape)
    if (model_shape.count(k)) t.shape[k] = v;
  t.bound = raw.bound;
  const auto v = checks::recompute_verdict(raw, raw.bound);
  t.worst_error = checks::recorded_error(v.worst_error);
  t.passed = v.verdict == "passed";
  t.output = output;
  return t;
}

}  // namespace openrecipes::run
