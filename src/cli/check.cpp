// `openrecipes check config|convergence`: one check alone (SPEC §4.1, §4.3); `openrecipes check recipe <dir>`: every
// check build runs on one recipe of a registry, every problem at once, and the claims block its evidence supports.
// Exit 0 when it passes (recipe: verified), 1 when it fails, 2 for bad input.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checks/check_claims.h"
#include "checks/check_json.h"
#include "checks/config_check.h"
#include "checks/convergence.h"
#include "cli/command.h"
#include "core/error.h"
#include "core/files.h"
#include "core/protocol.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/step_log.h"
#include "measure/claims.h"
#include "registry/evaluate.h"
#include "registry/model.h"
#include "registry/registry.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct CheckOptions {
  std::string recipe, reference, rules = "registry/rules/arguments.yaml", family, format = "megatron", reference_format;
  bool json = false;
  bool rules_given = false;
};

// One arm of the convergence check. A log is read with its own logging interval (from its argument dump, as
// `measure` reads it) and must be a run of exactly 20 steps logged every step (SPEC §4.3, as `build` requires);
// a golden-values file is a reference curve, of which the first 20 steps are compared.
checks::LossCurve arm(const std::string& path, const std::string& format) {
  if (format == "golden-values") return checks::read_golden_values(read_file(path), path);
  evidence::require_step_log_format(format, path);  // before reading, as read_step_log does
  const std::string text = read_file(path);
  std::optional<std::int64_t> interval;
  if (format == "megatron" || format == "megatron-bridge") interval = evidence::own_log_interval(text, path);
  auto log = evidence::parse_step_log(text, format, interval, path);
  checks::require_arm_length(log, 20);
  return checks::loss_curve_from_log(log);
}

// The families --family may name: those of the bundled registry's models and those the rules' objective
// conventions name. An unknown family would silently skip every convention.
void require_known_family(const std::string& family, const checks::ArgumentRules& rules) {
  if (family.empty()) return;
  std::set<std::string> known;
  for (const auto& c : rules.objective_conventions()) known.insert(c.families.begin(), c.families.end());
  std::error_code ec;
  const std::string models = bundled_path("registry/models");
  if (std::filesystem::is_directory(models, ec))
    for (const auto& [id, m] : registry::load_models(models)) known.insert(m.family);
  if (known.count(family)) return;
  std::string list;
  for (const auto& f : known) list += (list.empty() ? "" : ", ") + f;
  throw InputError("--family", fmt::format("unknown model family {}", quote_for_message(family)),
                   "use one of: " + list +
                       " (the families of registry/models/*.yaml and of the objective "
                       "conventions in the rules file)");
}

int run_config(const CheckOptions& o) {
  auto rules = checks::ArgumentRules::load(o.rules_given ? o.rules : bundled_path(o.rules));
  require_known_family(o.family, rules);
  auto a = evidence::parse_megatron_args(read_file(o.recipe), o.recipe);
  auto b = evidence::parse_megatron_args(read_file(o.reference), o.reference);
  auto r = checks::check_configuration(a.values, b.values, rules, {}, {o.family, {}});
  if (o.json) {
    std::cout << checks::to_json(r).dump(2) << "\n";
  } else {
    std::cout << fmt::format("configuration check: {} ({})\n", r.eligible ? "eligible" : "ineligible",
                             counted(std::int64_t(r.changes.size()), "changed argument"));
    for (const auto& c : r.changes)
      std::cout << fmt::format("  {:<40} {} -> {}  [{}{}]\n", c.name, c.reference_value.value_or("(absent)"),
                               c.recipe_value.value_or("(absent)"), checks::to_string(c.classification.cls),
                               c.accepted ? "" : ", not allowed");
    for (const auto& p : r.problems) std::cout << "  problem: " << p << "\n";
  }
  return r.eligible ? 0 : 1;
}

int run_convergence(const CheckOptions& o) {
  auto cur = arm(o.recipe, o.format);
  auto ref = arm(o.reference, o.reference_format.empty() ? o.format : o.reference_format);
  auto r = checks::check_convergence(cur, ref);
  if (o.json) {
    std::cout << checks::to_json(r).dump(2) << "\n";
  } else {
    std::cout << fmt::format("convergence check: {}\n", r.passed ? "pass" : "fail");
    if (r.points)
      std::cout << fmt::format(
          "  points {} (steps {}-{}), correlation {}, final loss difference {:.4f}%, "
          "pointwise failures {}, outliers {}\n",
          r.points, protocol::kConvergenceSteps - r.points, protocol::kConvergenceSteps - 1,
          std::isfinite(r.correlation) ? fmt::format("{:.6f}", r.correlation)
                                       : std::string("undefined (a constant curve)"),
          100 * r.final_loss_rel_diff, r.pointwise_failures, r.outliers);
    for (const auto& d : checks::describe_failures(r)) std::cout << "  failed: " << d << "\n";
    for (const auto& p : r.problems) std::cout << "  problem: " << p << "\n";
  }
  return r.passed ? 0 : 1;
}

// The `claims:` block of recipe_yaml for `recipe` (the writer submit uses), to paste.
std::string claims_block(const registry::Recipe& recipe) {
  const std::string yaml = registry::recipe_yaml(recipe);
  const std::size_t at = yaml.find("\nclaims:");
  if (at == std::string::npos) return "";
  std::size_t end = at + 1;
  while (true) {  // to the next top-level key
    end = yaml.find('\n', end);
    if (end == std::string::npos || end + 1 >= yaml.size() || (yaml[end + 1] != ' ' && yaml[end + 1] != '#')) break;
    ++end;
  }
  return yaml.substr(at + 1, end == std::string::npos ? std::string::npos : end - at);
}

// Each of `claimed` the evidence contradicts (the build's own claim checks: measure/claims.h, checks/check_claims.h,
// one sentence each with both values), and each the build could not recompute (its evidence gives no number to hold it
// to). Empty when every claim was recomputed and agrees.
std::vector<std::string> claims_differences(const registry::Claims& claimed, const registry::RecipeResult& r) {
  std::vector<std::string> out;
  if (r.throughput) {
    for (auto& s : measure::throughput_claim_problems(claimed.tokens_per_s_per_gpu, claimed.cv, *r.throughput))
      out.push_back(std::move(s));
  } else {
    out.push_back("tokens_per_s_per_gpu and cv: not recomputed (the run does not measure: see the problems above)");
  }
  if (r.gpu_hours) {
    if (auto s = measure::gpu_hours_claim_problem(claimed.gpu_hours, *r.gpu_hours)) out.push_back(*s);
  } else {
    out.push_back("gpu_hours: not recomputed (no scheduler times to compute it from)");
  }
  for (auto& s : checks::check_claim_problems({claimed.configuration, claimed.convergence, claimed.correlation,
                                               claimed.final_loss_rel_diff, claimed.pointwise_failures},
                                              r.configuration ? &*r.configuration : nullptr,
                                              r.convergence ? &*r.convergence : nullptr, r.is_reference))
    out.push_back(std::move(s));
  if (!r.is_reference && !r.configuration)
    out.push_back("configuration: not recomputed (the configuration check did not run: see the problems above)");
  if (!r.is_reference && !r.convergence)
    out.push_back("convergence: not recomputed (the convergence check did not run: see the problems above)");
  // A number the check ran and could not give (a loss curve with no variation has no correlation).
  if (r.convergence && claimed.correlation && !std::isfinite(r.convergence->correlation))
    out.push_back("correlation: not recomputed (a 20-step loss curve does not vary, so the check gives none)");
  if (r.convergence && claimed.final_loss_rel_diff && !std::isfinite(r.convergence->final_loss_rel_diff))
    out.push_back("final_loss_rel_diff: not recomputed (the check gives none for these curves)");
  return out;
}

int run_recipe(const CheckOptions& o) {
  const fs::path dir = registry::recipe_folder(o.recipe);
  std::error_code ec;
  if (!fs::is_regular_file(dir / "recipe.yaml", ec))
    throw InputError(o.recipe, "no recipe.yaml there",
                     "give a recipe's folder (registry/recipes/<model>/<gpu>/<name>)");
  const auto root = registry::registry_root(without_trailing_separator(fs::absolute(dir).lexically_normal()));
  if (!root)
    throw InputError(dir.string(), "not inside a registry: a recipe lives at <registry>/recipes/<model>/<gpu>/<name>",
                     "put the folder in a copy of the bundled registry (cp -r registry my-registry) under "
                     "recipes/<model>/<gpu>/");
  // The file's own problems before the registry's, every one of them in this one run (load_recipe reads each section).
  registry::Recipe own = registry::load_recipe(dir, registry::RecipeLoad::unclaimed);
  registry::Registry reg = registry::load_registry(*root);
  const std::string id = own.id;
  bool has_claims = true;
  for (auto& e : reg.recipes) {
    if (e.id != id) continue;
    if (!e.recipe) {  // a recipe written by hand may have no claims yet: this command computes them (read above)
      e.recipe = own;
      e.load_error.clear(), e.load_fix.clear();
    }
    has_claims = !e.recipe->claims.configuration.empty();
  }
  if (std::none_of(reg.recipes.begin(), reg.recipes.end(), [&](const auto& e) { return e.id == id; }))
    throw InputError(dir.string(), "the registry holds no recipe " + id, "check the folder's place in the registry");
  const registry::RecipeResult r = registry::evaluate_recipe(reg, id);
  // A disagreement with the recipe's own claims: with no claims yet it is no problem (the block is printed below).
  auto about_claims = [](const Reason& why) { return why.rule == "measurement.claim" || why.rule == "claims.checks"; };
  Reasons reasons;
  for (const auto& why : r.reasons)
    if (has_claims || !about_claims(why)) reasons.push_back(why);
  const bool verified = reasons.empty() && has_claims;
  std::cout << fmt::format("check recipe {}: {}\n", id,
                           verified          ? "verified"
                           : reasons.empty() ? "verified once its claims block is pasted"
                                             : "not verified, " + counted(std::int64_t(reasons.size()), "problem"));
  for (const auto& why : reasons) {
    const auto lines = wrap_words(terminal_safe(why.text_with_fix(), true), 114);  // a stranger's text, made inert
    for (std::size_t i = 0; i < lines.size(); ++i) std::cout << (i ? "      " : "  - ") << lines[i] << "\n";
  }
  if (r.entry && r.entry->recipe) {
    registry::Recipe computed = *r.entry->recipe;
    computed.claims = registry::computed_claims(r);
    // Its claims hold only when every one was recomputed and each agrees (within the build's tolerances).
    const auto differ = claims_differences(r.entry->recipe->claims, r);
    if (has_claims && differ.empty()) {
      std::cout << "its claims agree with its evidence; the block submit would write:\n";
    } else {
      if (has_claims) {
        std::cout << "its claims do not agree with its evidence:\n";
        for (const auto& d : differ) {
          const auto lines = wrap_words(terminal_safe(d, true), 114);
          for (std::size_t i = 0; i < lines.size(); ++i) std::cout << (i ? "      " : "  - ") << lines[i] << "\n";
        }
      }
      std::cout << "the claims block its evidence supports (paste it into recipe.yaml in place of its own):\n";
    }
    std::cout << terminal_safe(claims_block(computed), false);
  }
  return verified ? 0 : static_cast<int>(ExitCode::check_failed);
}

const bool registered_check = register_command(
    {"check",
     "Run one correctness check: config (argument diff), convergence (20-step loss curves), or every check of one "
     "recipe",
     [](CLI::App& app) {
       auto o = std::make_shared<CheckOptions>();
       app.require_subcommand(1);
       auto* config = app.add_subcommand("config", "Diff and class the resolved arguments of two Megatron logs");
       config->add_option("recipe", o->recipe, "Log (or dump) of the recipe's run")->required();
       config->add_option("reference", o->reference, "Log (or dump) of the reference recipe's run")->required();
       auto* rules_option =
           config->add_option("--rules", o->rules, "Argument classes (default: the bundled registry's)")
               ->capture_default_str();
       config->add_option("--family", o->family, "Model family, for objective conventions (e.g. qwen3.5)");
       config->add_flag("--json", o->json, "Machine-readable output");
       auto* conv = app.add_subcommand("convergence", "Compare the per-step loss of two 20-step arms");
       conv->add_option("recipe", o->recipe, "The recipe's 20-step arm")->required();
       conv->add_option("reference", o->reference, "The reference arm")->required();
       conv->add_option("--format", o->format,
                        "Format of the arms: megatron, megatron-bridge, slime, miles, steps-jsonl, golden-values")
           ->capture_default_str();
       conv->add_option("--reference-format", o->reference_format, "Format of the reference arm, when it differs");
       conv->add_flag("--json", o->json, "Machine-readable output");
       auto* recipe = app.add_subcommand(
           "recipe", "Every check build runs on one recipe of a registry: all its problems and its claims block");
       recipe->add_option("recipe", o->recipe, "The recipe's folder (or its recipe.yaml) inside a registry")
           ->required();
       return [o, config, conv, recipe, rules_option]() -> int {
         o->rules_given = rules_option->count() > 0;
         if (config->parsed()) return run_config(*o);
         if (conv->parsed()) return run_convergence(*o);
         if (recipe->parsed()) return run_recipe(*o);
         return 2;
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
