// `openrecipes relayout <recipe> --gpus G [--row-length L] [--tp ...] [--draft DIR]`: the recipe's layout on G GPUs
// (docs/running.md "Relayout"), each rule it breaks with the nearest GPU counts that fit and the changes that would,
// the command with the framework's flags rewritten, and with --draft that relayout as a recipe draft run takes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "checks/command_policy.h"
#include "cli/command.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "core/utf8.h"
#include "layout/layout_json.h"
#include "layout/planner.h"
#include "layout/relayout.h"
#include "registry/folder_writer.h"
#include "registry/gpus.h"
#include "registry/recipe.h"
#include "registry/recipe_memory.h"
#include "run/tune_candidates.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct RelayoutOptions {
  std::string recipe;
  std::int64_t gpus = 0;
  std::int64_t gpus_per_node = 8;
  std::optional<std::int64_t> row_length, tp, pp, cp, ep, etp, micro_batch;
  std::string recompute;
  std::string draft;  ///< --draft DIR: the recipe draft's folder, <model>/<gpu>/<name>
  bool draft_given = false;
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

// The relayout command as the user gave it (the recipe as they named it, their options) on `gpus` GPUs, less each
// option that `changes` (relayout flags, " --tp 2 --micro-batch 4") sets anew.
std::vector<std::string> relayout_words(const RelayoutOptions& o, std::int64_t gpus, const std::string& changes) {
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
  return words;
}

// The relayout command that gives suggestion `x`, to run as printed: the options the user gave, and the suggestion's
// changes in place of any they set.
std::string suggestion_command(const RelayoutOptions& o, std::int64_t gpus, const layout::Suggestion& x,
                               const layout::Layout& from, const layout::TrainingSetup& setup) {
  const std::string changes = suggestion_flags(x, from, setup);
  return display_command(relayout_words(o, gpus, changes)) + changes;
}

// A name for the draft of a relayout to `gpus` GPUs: "<recipe>-<G>gpu" and the knobs it changes ("-tp2-mbs4"), at
// most 80 characters (a registry name).
std::string draft_name(const registry::Recipe& recipe, std::int64_t gpus, const std::string& tag) {
  std::string name = fmt::format("{}-{}gpu{}", recipe.name, gpus, tag);
  if (name.size() > 80) name = fmt::format("{}-{}gpu", recipe.name.substr(0, 70), gpus);
  return name;
}

// --draft DIR: the relayout `r` of `recipe` written as a recipe draft at DIR (registry::write_recipe_draft), which
// `openrecipes run DIR` takes as it is (its GPU count and command are the relayout's). DIR must end in
// <model>/<gpu>/<name> (the folder names are the draft's id) and not exist.
fs::path write_draft(const RelayoutOptions& o, const registry::Recipe& recipe, const layout::RelayoutResult& r,
                     const std::string& changes, const std::string& suggested_path) {
  const fs::path dir = without_trailing_separator(fs::path(o.draft).lexically_normal());
  const fs::path named = without_trailing_separator(fs::absolute(dir).lexically_normal());
  if (r.row_length != recipe.workload.row_length)
    throw InputError("--draft",
                     "a new row length changes the rows, so a draft would not train on the recipe's workload",
                     "write the draft without --row-length; a recipe on other rows declares its own workload "
                     "(docs/protocol.md \"The workload\")");
  const std::string model = named.parent_path().parent_path().filename().string();
  const std::string gpu = named.parent_path().filename().string();
  if (const auto root = registry::registry_root(named))
    throw InputError(o.draft,
                     "is inside the registry " + root->string() +
                         ", whose build would read the draft as a recipe without evidence or claims",
                     "write the draft outside the registry: give --draft " + suggested_path);
  if (model != recipe.model || gpu != recipe.gpu)
    throw InputError(o.draft,
                     fmt::format("a recipe draft's folder is <model>/<gpu>/<name> and this one is under '{}/{}', not "
                                 "'{}/{}'",
                                 model, gpu, recipe.model, recipe.gpu),
                     "give --draft " + suggested_path);
  if (!registry::is_registry_name(named.filename().string()))
    throw InputError(o.draft,
                     "the draft's name (the folder's last part) must be lowercase letters, digits, '.', '_' or "
                     "'-', at most 80",
                     "give --draft " + suggested_path);
  registry::Recipe d = recipe;
  d.name = named.filename().string();
  d.id = recipe.model + "/" + recipe.gpu + "/" + d.name;
  d.gpus = r.gpus;
  d.layout = r.layout;
  d.command = r.command;
  d.reference = recipe.id;
  d.stack.gpus_per_node = std::min(r.gpus, r.gpus_per_node);
  // The recipe's network was its own run's; the draft's run records its own (submit writes it from the evidence).
  if (r.gpus != recipe.gpus) d.stack.network = "not yet known: openrecipes run records it";
  registry::write_recipe_draft(
      d, dir,
      fmt::format("A draft of openrecipes relayout from {}: on {} (the recipe ran on {}){}.\nRun it with openrecipes "
                  "run; the run's evidence is what openrecipes submit takes.",
                  recipe.id, counted(r.gpus, "GPU"), recipe.gpus, changes.empty() ? "" : ", " + changes),
      false);
  return dir;
}

// A path as a word of a printed command: "./-x/..." for a relative path that would read as an option.
std::string shown_path(const fs::path& p) { return p.string().starts_with('-') ? "./" + p.string() : p.string(); }

std::string count_or_none(const std::optional<std::int64_t>& v) { return v ? fmt::format("{} GPUs", *v) : "none"; }

// A predicted step and the tokens/s/GPU it gives the workload's rows on its GPUs (docs/step-time-model.md).
struct Predicted {
  double step_s, tokens_per_s_per_gpu;
};

// Everything relayout prints: the recipe, the request, its result, the first suggestion applied, the predicted change
// of speed, and the draft (the command that writes it, or where --draft wrote it).
struct Outcome {
  registry::Recipe recipe;
  layout::RelayoutRequest q;
  layout::RelayoutResult r;
  std::optional<layout::RelayoutResult> suggested;
  std::optional<std::pair<Predicted, Predicted>> speed_change;
  bool fits = false, draftable = false;
  std::vector<std::string> draft_words;
  std::optional<fs::path> written;
};

Outcome relayout_outcome(const RelayoutOptions& o) {
  Outcome out;
  fs::path p(o.recipe);
  out.recipe = registry::load_recipe(registry::recipe_folder(p));
  const registry::Recipe& recipe = out.recipe;
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
  layout::RelayoutRequest& q = out.q;
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
  out.r = layout::relayout(q, recipe.command, recipe.file.string() + ": command");
  const layout::RelayoutResult& r = out.r;
  // The first suggestion, applied: its command.
  if (!r.suggestions.empty()) {
    layout::RelayoutRequest s = q;
    const auto& t = r.suggestions.front().setup;
    s.tp = t.layout.tp, s.pp = t.layout.pp, s.cp = t.layout.cp, s.ep = t.layout.ep;
    // slime and miles set the micro-batch themselves (their suggestions keep it); recompute is Megatron-LM's flags.
    if (q.launch == layout::Launch::megatron && t.layout.micro_batch != r.layout.micro_batch)
      s.micro_batch = t.layout.micro_batch;
    if (t.recompute != q.setup.recompute) s.recompute = t.recompute;
    auto again = layout::relayout(s, recipe.command, recipe.file.string() + ": command");
    if (again.violations.empty()) out.suggested = std::move(again);
  }
  out.fits = r.violations.empty();
  // The draft of this relayout: its name, the knobs it changes, and the relayout command that writes it (offered when
  // it fits on the recipe's rows).
  const auto [tag, changed] = r.setup ? run::setup_changes(*r.setup, rm.setup) : std::pair<std::string, std::string>{};
  const std::string suggested_path =
      (fs::path("drafts") / recipe.model / recipe.gpu / draft_name(recipe, r.gpus, tag)).string();
  // A draft of the recipe as it is (its own GPU count, nothing changed) would be the recipe again: none offered.
  const bool changes_nothing = r.gpus == recipe.gpus && r.changes.empty() && r.row_length == recipe.workload.row_length;
  out.draftable = out.fits && r.row_length == recipe.workload.row_length && !changes_nothing;
  out.draft_words = relayout_words(o, r.gpus, "");
  out.draft_words.insert(out.draft_words.end(), {"--draft", suggested_path});
  if (o.draft_given && o.draft.empty())
    throw InputError("--draft", "an empty folder name", "give --draft " + suggested_path);
  if (!o.draft.empty() && out.fits && changes_nothing)
    throw InputError("--draft", "the relayout changes nothing: the draft would be the recipe itself",
                     "give another GPU count or layout, or run the recipe as it is");
  if (!o.draft.empty() && out.fits) out.written = write_draft(o, recipe, r, tag.empty() ? "" : changed, suggested_path);
  // The predicted change of speed: the recipe's own run, and the relayout's.
  if (const auto speed = gpu_speed_of(recipe.dir, recipe.gpu, q.gpus_per_node); speed && r.setup && out.fits) {
    layout::TrainingSetup to = *r.setup;
    // Megatron-LM feeds rows of L tokens; slime and miles keep their packed bins (the setup's row length).
    if (q.launch == layout::Launch::megatron) to.row_length = r.row_length;
    auto predicted = [&](const layout::TrainingSetup& t, std::int64_t gpus, std::int64_t row_length) {
      const double step = layout::predict_step_time(rm.shape, t, *speed, layout::Precision::bf16).step_time_s;
      return Predicted{step, layout::tokens_per_s_per_gpu(recipe.workload.global_batch, row_length, step, gpus)};
    };
    out.speed_change.emplace(predicted(rm.setup, recipe.gpus, recipe.workload.row_length),
                             predicted(to, r.gpus, r.row_length));
  }
  return out;
}

// relayout --json.
int print_json(const RelayoutOptions& o, const Outcome& x) {
  const registry::Recipe& recipe = x.recipe;
  const layout::RelayoutResult& r = x.r;
  nlohmann::ordered_json j;
  j["recipe"] = recipe.id;
  j["framework"] = recipe.stack.framework;
  j["from"] = {{"gpus", recipe.gpus},
               {"row_length", recipe.workload.row_length},
               {"layout", layout::layout_to_json(recipe.layout)}};
  j["to"] = {{"gpus", r.gpus},
             {"nodes", r.nodes},
             {"gpus_per_node", std::min(r.gpus, r.gpus_per_node)},
             {"row_length", r.row_length},
             {"layout", layout::layout_to_json(r.layout)}};
  j["fits"] = x.fits;
  j["peak_memory_mib"] = r.memory ? nlohmann::ordered_json(std::round(r.memory->peak_mib)) : nullptr;
  j["memory_mib"] = x.q.memory_mib;
  j["warnings"] = r.warnings;
  if (x.speed_change) {
    const auto& [a, b] = *x.speed_change;
    j["predicted_step_time_s"] = {{"from", layout::round_step_time(a.step_s)},
                                  {"to", layout::round_step_time(b.step_s)}};
    j["predicted_tokens_per_s_per_gpu"] = {{"from", std::round(a.tokens_per_s_per_gpu)},
                                           {"to", std::round(b.tokens_per_s_per_gpu)}};
  }
  auto sug = nlohmann::ordered_json::array();
  for (const auto& s : r.suggestions)
    sug.push_back({{"change", s.what},
                   {"layout", layout::layout_to_json(s.setup.layout)},
                   {"micro_batch", s.setup.layout.micro_batch},
                   {"recompute", layout::recompute_name(s.setup.recompute)},
                   {"peak_memory_mib", std::round(s.memory.peak_mib)}});
  j["suggestions"] = std::move(sug);
  j["suggested_command"] = x.suggested ? nlohmann::ordered_json(x.suggested->command) : nullptr;
  j["suggested_relayout"] =
      x.suggested ? nlohmann::ordered_json(suggestion_command(o, r.gpus, r.suggestions.front(), r.layout, x.q.setup))
                  : nullptr;
  auto v = nlohmann::ordered_json::array();
  for (const auto& b : r.violations) v.push_back({{"what", b.what}, {"fix", b.fix}});
  j["violations"] = std::move(v);
  j["nearest_below"] = r.nearest_below ? nlohmann::ordered_json(*r.nearest_below) : nullptr;
  j["nearest_above"] = r.nearest_above ? nlohmann::ordered_json(*r.nearest_above) : nullptr;
  auto c = nlohmann::ordered_json::array();
  for (const auto& f : r.changes) c.push_back({{"flag", f.flag}, {"from", f.from}, {"to", f.to}});
  j["changes"] = std::move(c);
  j["notes"] = r.notes;
  j["command"] = x.fits ? nlohmann::ordered_json(r.command) : nullptr;
  j["remeasure"] = true;
  j["convergence_rerun"] = r.convergence_rerun;
  j["why"] = r.why;
  j["draft_command"] = x.draftable && !x.written ? nlohmann::ordered_json(display_command(x.draft_words)) : nullptr;
  j["draft"] = x.written ? nlohmann::ordered_json(x.written->string()) : nullptr;
  std::cout << j.dump(2) << "\n";
  return x.fits ? 0 : static_cast<int>(ExitCode::check_failed);
}

// relayout's text: the layout, each broken rule and the changes that fit, or the relayout and its command.
int print_text(const RelayoutOptions& o, const Outcome& x) {
  const registry::Recipe& recipe = x.recipe;
  const layout::RelayoutResult& r = x.r;
  std::cout << fmt::format("relayout {} ({}): {} -> {} GPUs", recipe.id, recipe.stack.framework, recipe.gpus, r.gpus);
  if (r.row_length != recipe.workload.row_length)
    std::cout << fmt::format(", rows of {} -> {} tokens", recipe.workload.row_length, r.row_length);
  std::cout << "\n";
  std::cout << fmt::format("  from    {}\n", sizes(recipe.layout));
  if (!x.fits) {
    std::cout << fmt::format("  does not fit on {} GPUs:\n", r.gpus);
    for (const auto& b : r.violations)
      std::cout << "    - " << b.what << (b.fix.empty() ? "" : " (fix: " + b.fix + ")") << "\n";
    std::cout << fmt::format("  nearest GPU counts that fit: {} below, {} above\n", count_or_none(r.nearest_below),
                             count_or_none(r.nearest_above));
    if (r.suggestions.empty())
      std::cout << fmt::format("  no change of TP, PP, the micro-batch or recompute fits on {} GPUs\n", r.gpus);
    if (!r.suggestions.empty()) {
      std::cout << fmt::format("  changes that fit on {} GPUs:\n", r.gpus);
      for (const auto& c : r.suggestions)
        std::cout << fmt::format("    - {}: {}, peak {:.0f} MiB a GPU\n", c.what, sizes(c.setup.layout),
                                 c.memory.peak_mib);
    }
    if (!o.draft.empty()) std::cout << "  draft   not written: the layout does not fit\n";
    if (x.suggested) {
      std::cout << fmt::format("  the first, as a command ({}):\n\n",
                               suggestion_command(o, r.gpus, r.suggestions.front(), r.layout, x.q.setup));
      std::cout << x.suggested->command;
      if (!x.suggested->command.empty() && x.suggested->command.back() != '\n') std::cout << "\n";
    }
    return static_cast<int>(ExitCode::check_failed);
  }
  std::cout << fmt::format("  to      {}   ({} node{} x {} GPUs)\n", sizes(r.layout), r.nodes, r.nodes == 1 ? "" : "s",
                           std::min(r.gpus, r.gpus_per_node));
  for (const auto& f : r.changes) std::cout << "  changed " << f.str() << "\n";
  if (r.memory)
    std::cout << fmt::format("  memory  predicted peak {:.0f} MiB a GPU of {:.0f} (stage {}, at the {})\n",
                             r.memory->peak_mib, x.q.memory_mib, r.memory->stage, r.memory->moment);
  if (x.speed_change) {
    const auto& [a, b] = *x.speed_change;
    std::cout << fmt::format(
        "  speed   predicted step {:.3g} s -> {:.3g} s, tokens/s/GPU {:.0f} -> {:.0f} ({:+.0f}%; "
        "docs/step-time-model.md)\n",
        a.step_s, b.step_s, a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu,
        (b.tokens_per_s_per_gpu / a.tokens_per_s_per_gpu - 1) * 100);
  }
  for (const auto& w : r.warnings) std::cout << "  warning " << w << "\n";
  for (const auto& n : r.notes) std::cout << "  note    " << n << "\n";
  std::cout << "  then    " << r.why << "\n";
  if (x.written) {
    std::cout << "  draft   wrote " << x.written->string() << ", a recipe draft with this layout and command\n"
              << "  next    " << display_command({"openrecipes", "run", shown_path(*x.written), "--list-vars"})
              << " (the variables it needs and the run line, with its nodes), then openrecipes run it\n";
  } else if (x.draftable) {
    std::cout << "  draft   " << display_command(x.draft_words)
              << " writes it as a recipe draft openrecipes run takes\n";
  }
  std::cout << "\n" << r.command;
  if (!r.command.empty() && r.command.back() != '\n') std::cout << "\n";
  return 0;
}

int run(const RelayoutOptions& o) {
  const Outcome x = relayout_outcome(o);
  return o.json ? print_json(o, x) : print_text(o, x);
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
       auto* draft = app.add_option("--draft", o->draft,
                                    "DIR, a new folder <model>/<gpu>/<name> outside the registry: write the relayout "
                                    "there as a recipe draft that openrecipes run takes");
       app.add_flag("--json", o->json, "JSON output");
       app.footer(
           "Exit codes: 0 the layout fits (the command is printed, and with --draft written); 1 it does not (each "
           "broken rule and the "
           "nearest GPU counts that fit); 2 bad input.");
       return [o, draft]() {
         o->draft_given = draft->count() > 0;
         return run(*o);
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
