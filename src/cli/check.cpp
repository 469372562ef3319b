// `openrecipes check config|convergence`: one check alone (SPEC §4.1, §4.3). Exit 0 when it passes, 1 when it
// fails, 2 for bad input.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
#include "registry/model.h"

namespace openrecipes::cli {
namespace {

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
    std::cout << fmt::format("configuration check: {} ({} changed argument(s))\n",
                             r.eligible ? "eligible" : "ineligible", r.changes.size());
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

const bool registered = register_command(
    {"check", "Run one correctness check: config (argument diff) or convergence (20-step loss curves)",
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
       return [o, config, conv, rules_option]() -> int {
         o->rules_given = rules_option->count() > 0;
         if (config->parsed()) return run_config(*o);
         if (conv->parsed()) return run_convergence(*o);
         return 2;
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
