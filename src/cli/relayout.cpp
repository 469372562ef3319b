// `openrecipes relayout <recipe> --gpus G [--row-length L]`: the recipe's layout on G GPUs (SPEC §6), each rule it
// breaks with the nearest GPU counts that fit, and the command with the framework's flags rewritten.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "checks/command_policy.h"
#include "cli/command.h"
#include "core/error.h"
#include "core/utf8.h"
#include "layout/layout_json.h"
#include "layout/planner.h"
#include "layout/relayout.h"
#include "registry/gpus.h"
#include "registry/recipe.h"
#include "registry/recipe_memory.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct RelayoutOptions {
  std::string recipe;
  std::int64_t gpus = 0;
  std::int64_t gpus_per_node = 8;
  std::optional<std::int64_t> row_length, tp, pp, cp, ep, etp, micro_batch;
  std::string recompute;
  bool json = false;
};

std::string sizes(const layout::Layout& l) {
  return fmt::format("TP {} · PP {} · CP {} · EP {} · ETP {} · DP {}", l.tp, l.pp, l.cp, l.ep, l.etp, l.dp);
}

// The relayout options that give suggestion `x` from layout `from`.
std::string suggestion_flags(const layout::Suggestion& x, const layout::Layout& from,
                             const layout::TrainingSetup& setup) {
  std::string out;
  if (x.setup.layout.tp != from.tp) out += fmt::format(" --tp {}", x.setup.layout.tp);
  if (x.setup.layout.pp != from.pp) out += fmt::format(" --pp {}", x.setup.layout.pp);
  if (x.setup.layout.cp != from.cp) out += fmt::format(" --cp {}", x.setup.layout.cp);
  if (x.setup.layout.ep != from.ep) out += fmt::format(" --ep {}", x.setup.layout.ep);
  if (x.setup.layout.micro_batch != from.micro_batch)
    out += fmt::format(" --micro-batch {}", x.setup.layout.micro_batch);
  if (x.setup.recompute != setup.recompute) out += " --recompute " + layout::recompute_name(x.setup.recompute);
  return out;
}

// The relayout command that gives suggestion `x`, to run as printed: the recipe as the user named it, the options they
// gave, and the suggestion's changes in place of any they set.
std::string suggestion_command(const RelayoutOptions& o, std::int64_t gpus, const layout::Suggestion& x,
                               const layout::Layout& from, const layout::TrainingSetup& setup) {
  const std::string changes = suggestion_flags(x, from, setup);
  std::vector<std::string> words = {"openrecipes", "relayout", o.recipe, "--gpus", std::to_string(gpus)};
  auto keep = [&](const char* flag, const std::optional<std::int64_t>& v) {
    if (v && changes.find(std::string(flag) + " ") == std::string::npos)
      words.insert(words.end(), {flag, std::to_string(*v)});
  };
  if (o.gpus_per_node != 8) words.insert(words.end(), {"--gpus-per-node", std::to_string(o.gpus_per_node)});
  keep("--row-length", o.row_length);
  keep("--tp", o.tp), keep("--pp", o.pp), keep("--cp", o.cp), keep("--ep", o.ep), keep("--etp", o.etp);
  keep("--micro-batch", o.micro_batch);
  if (!o.recompute.empty() && changes.find("--recompute ") == std::string::npos)
    words.insert(words.end(), {"--recompute", o.recompute});
  return display_command(words) + changes;
}

std::string count_or_none(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "none"; }

int run(const RelayoutOptions& o) {
  fs::path p(o.recipe);
  const auto recipe = registry::load_recipe(registry::recipe_folder(p));
  {  // the program policy: relayout never prints a command that openrecipes run would refuse
    const std::string where = recipe.file.string() + ": command";
    auto policy = checks::CommandPolicy::bundled().check(layout::split_command(recipe.command, where),
                                                         recipe.stack.framework, "", registry::patch_modules(recipe));
    if (!policy.shape) {
      std::string what;
      for (const auto& x : policy.problems) what += (what.empty() ? "" : "; ") + x.message;
      throw InputError(where, what, policy.problems.front().fix);
    }
  }
  layout::RelayoutRequest q;
  q.layout = recipe.layout;
  q.global_batch = recipe.workload.global_batch;
  q.row_length = recipe.workload.row_length;
  q.launch = recipe.stack.framework == "megatron-lm" ? layout::Launch::megatron : layout::Launch::slime;
  q.gpus = o.gpus;
  q.gpus_per_node = o.gpus_per_node;
  q.new_row_length = o.row_length;
  q.tp = o.tp, q.pp = o.pp, q.cp = o.cp, q.ep = o.ep, q.etp = o.etp;
  q.micro_batch = o.micro_batch;
  if (!o.recompute.empty()) q.recompute = layout::require_recompute(o.recompute, "--recompute");
  // The model and the run's setup (its argument dump), and the GPU's memory: the model's rules and the peak.
  const auto rm = registry::recipe_memory(recipe);
  q.model = rm.shape;
  q.setup = rm.setup;
  q.memory_mib = gpu_memory_mib(recipe.dir, recipe.gpu);
  const auto r = layout::relayout(q, recipe.command, recipe.file.string() + ": command");
  // The first suggestion, applied: its command.
  std::optional<layout::RelayoutResult> suggested;
  if (!r.suggestions.empty()) {
    layout::RelayoutRequest s = q;
    const auto& t = r.suggestions.front().setup;
    s.tp = t.layout.tp, s.pp = t.layout.pp, s.cp = t.layout.cp, s.ep = t.layout.ep;
    // slime and miles set the micro-batch themselves (their suggestions keep it); recompute is Megatron-LM's flags.
    if (q.launch == layout::Launch::megatron && t.layout.micro_batch != r.layout.micro_batch)
      s.micro_batch = t.layout.micro_batch;
    if (t.recompute != q.setup.recompute) s.recompute = t.recompute;
    auto again = layout::relayout(s, recipe.command, recipe.file.string() + ": command");
    if (again.violations.empty()) suggested = std::move(again);
  }
  const bool fits = r.violations.empty();
  // The predicted change of speed (docs/step-time-model.md): the recipe's own run, and the relayout's, each step with
  // the tokens/s/GPU it gives the workload's rows on its GPUs.
  struct Predicted {
    double step_s, tokens_per_s_per_gpu;
  };
  std::optional<std::pair<Predicted, Predicted>> speed_change;
  if (const auto speed = gpu_speed_of(recipe.dir, recipe.gpu, q.gpus_per_node); speed && r.setup && fits) {
    layout::TrainingSetup to = *r.setup;
    // Megatron-LM feeds rows of L tokens; slime and miles keep their packed bins (the setup's row length).
    if (q.launch == layout::Launch::megatron) to.row_length = r.row_length;
    auto predicted = [&](const layout::TrainingSetup& t, std::int64_t gpus, std::int64_t row_length) {
      const double step = layout::predict_step_time(rm.shape, t, *speed, layout::Precision::bf16).step_time_s;
      return Predicted{step, layout::tokens_per_s_per_gpu(recipe.workload.global_batch, row_length, step, gpus)};
    };
    speed_change.emplace(predicted(rm.setup, recipe.gpus, recipe.workload.row_length),
                         predicted(to, r.gpus, r.row_length));
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["recipe"] = recipe.id;
    j["framework"] = recipe.stack.framework;
    j["from"] = {{"gpus", recipe.gpus},
                 {"row_length", recipe.workload.row_length},
                 {"layout", layout::layout_to_json(recipe.layout)}};
    j["to"] = {{"gpus", r.gpus},
               {"nodes", r.nodes},
               {"gpus_per_node", r.gpus <= r.gpus_per_node ? r.gpus : r.gpus_per_node},
               {"row_length", r.row_length},
               {"layout", layout::layout_to_json(r.layout)}};
    j["fits"] = fits;
    j["peak_memory_mib"] = r.memory ? nlohmann::ordered_json(std::round(r.memory->peak_mib)) : nullptr;
    j["memory_mib"] = q.memory_mib;
    j["warnings"] = r.warnings;
    if (speed_change) {
      const auto& [a, b] = *speed_change;
      j["predicted_step_time_s"] = {{"from", layout::round_step_time(a.step_s)},
                                    {"to", layout::round_step_time(b.step_s)}};
      j["predicted_tokens_per_s_per_gpu"] = {{"from", std::round(a.tokens_per_s_per_gpu)},
                                             {"to", std::round(b.tokens_per_s_per_gpu)}};
    }
    auto sug = nlohmann::ordered_json::array();
    for (const auto& x : r.suggestions)
      sug.push_back({{"change", x.what},
                     {"layout", layout::layout_to_json(x.setup.layout)},
                     {"micro_batch", x.setup.layout.micro_batch},
                     {"recompute", layout::recompute_name(x.setup.recompute)},
                     {"peak_memory_mib", std::round(x.memory.peak_mib)}});
    j["suggestions"] = std::move(sug);
    j["suggested_command"] = suggested ? nlohmann::ordered_json(suggested->command) : nullptr;
    auto v = nlohmann::ordered_json::array();
    for (const auto& x : r.violations) v.push_back({{"what", x.what}, {"fix", x.fix}});
    j["violations"] = std::move(v);
    j["nearest_below"] = r.nearest_below ? nlohmann::ordered_json(*r.nearest_below) : nullptr;
    j["nearest_above"] = r.nearest_above ? nlohmann::ordered_json(*r.nearest_above) : nullptr;
    auto c = nlohmann::ordered_json::array();
    for (const auto& x : r.changes) c.push_back({{"flag", x.flag}, {"from", x.from}, {"to", x.to}});
    j["changes"] = std::move(c);
    j["notes"] = r.notes;
    j["command"] = fits ? nlohmann::ordered_json(r.command) : nullptr;
    j["remeasure"] = true;
    j["convergence_rerun"] = r.convergence_rerun;
    j["why"] = r.why;
    std::cout << j.dump(2) << "\n";
    return fits ? 0 : static_cast<int>(ExitCode::check_failed);
  }
  std::cout << fmt::format("relayout {} ({}): {} -> {} GPUs", recipe.id, recipe.stack.framework, recipe.gpus, r.gpus);
  if (r.row_length != recipe.workload.row_length)
    std::cout << fmt::format(", rows of {} -> {} tokens", recipe.workload.row_length, r.row_length);
  std::cout << "\n";
  std::cout << fmt::format("  from    {}\n", sizes(recipe.layout));
  if (!fits) {
    std::cout << fmt::format("  does not fit on {} GPUs:\n", r.gpus);
    for (const auto& x : r.violations)
      std::cout << "    - " << x.what << (x.fix.empty() ? "" : " (fix: " + x.fix + ")") << "\n";
    std::cout << fmt::format("  nearest GPU counts that fit: {} below, {} above\n", count_or_none(r.nearest_below),
                             count_or_none(r.nearest_above));
    if (r.suggestions.empty())
      std::cout << fmt::format("  no change of TP, PP, the micro-batch or recompute fits on {} GPUs\n", r.gpus);
    if (!r.suggestions.empty()) {
      std::cout << fmt::format("  changes that fit on {} GPUs:\n", r.gpus);
      for (const auto& x : r.suggestions)
        std::cout << fmt::format("    - {}: {}, peak {:.0f} MiB a GPU\n", x.what, sizes(x.setup.layout),
                                 x.memory.peak_mib);
    }
    if (suggested) {
      std::cout << fmt::format("  the first, as a command ({}):\n\n",
                               suggestion_command(o, r.gpus, r.suggestions.front(), r.layout, q.setup));
      std::cout << suggested->command;
      if (!suggested->command.empty() && suggested->command.back() != '\n') std::cout << "\n";
    }
    return static_cast<int>(ExitCode::check_failed);
  }
  std::cout << fmt::format("  to      {}   ({} node{} x {} GPUs)\n", sizes(r.layout), r.nodes, r.nodes == 1 ? "" : "s",
                           r.gpus <= r.gpus_per_node ? r.gpus : r.gpus_per_node);
  for (const auto& x : r.changes) std::cout << "  changed " << x.str() << "\n";
  if (r.memory)
    std::cout << fmt::format("  memory  predicted peak {:.0f} MiB a GPU of {:.0f} (stage {}, at the {})\n",
                             r.memory->peak_mib, q.memory_mib, r.memory->stage, r.memory->moment);
  if (speed_change) {
    const auto& [a, b] = *speed_change;
    std::cout << fmt::format(
        "  speed   predicted step {:.3g} s -> {:.3g} s, tokens/s/GPU {:.0f} -> {:.0f} ({:+.0f}%; "
        "docs/step-time-model.md)\n",
        a.step_s, b.step_s, a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu,
        (b.tokens_per_s_per_gpu / a.tokens_per_s_per_gpu - 1) * 100);
  }
  for (const auto& w : r.warnings) std::cout << "  warning " << w << "\n";
  for (const auto& n : r.notes) std::cout << "  note    " << n << "\n";
  std::cout << "  then    " << r.why << "\n\n" << r.command;
  if (!r.command.empty() && r.command.back() != '\n') std::cout << "\n";
  return 0;
}

const bool registered_relayout = register_command(
    {"relayout", "A recipe's layout on another GPU count or row length, and its rewritten command (docs/running.md)",
     [](CLI::App& app) {
       auto o = std::make_shared<RelayoutOptions>();
       app.add_option("recipe", o->recipe, "the recipe's folder or recipe.yaml")->required();
       app.add_option("--gpus", o->gpus, "G, the GPUs to run on")->required();
       app.add_option("--gpus-per-node", o->gpus_per_node, "GPUs of one node on the target cluster (default 8)");
       app.add_option("--row-length", o->row_length, "L', a new row length (the rows change: convergence re-run)");
       app.add_option("--tp", o->tp, "a new tensor-parallel size");
       app.add_option("--pp", o->pp, "a new pipeline-parallel size");
       app.add_option("--cp", o->cp, "a new context-parallel size");
       app.add_option("--ep", o->ep, "a new expert-parallel size");
       app.add_option("--etp", o->etp, "a new expert-tensor-parallel size");
       app.add_option("--micro-batch", o->micro_batch, "a new micro-batch (rows; Megatron-LM recipes)");
       app.add_option("--recompute", o->recompute,
                      "new recompute: selective, full, full:N or block:N (Megatron-LM's flags)");
       app.add_flag("--json", o->json, "JSON output");
       app.footer(
           "Exit codes: 0 the layout fits (the command is printed); 1 it does not (each broken rule and the "
           "nearest GPU counts that fit); 2 bad input.");
       return [o]() { return run(*o); };
     }});

}  // namespace
}  // namespace openrecipes::cli
