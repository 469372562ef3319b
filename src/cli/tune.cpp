// `openrecipes tune <recipe> --gpus G --launcher local|slurm [--budget MIN] [--trial-steps N] [--var ...] [--dry-run]
// -o TUNE_DIR` (docs/tune.md): the fastest structural variant of a recipe by short measured trials (run/tune.h).
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/error.h"
#include "core/text.h"
#include "registry/gpus.h"
#include "registry/recipe.h"
#include "run/tune.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct TuneOptions {
  std::filesystem::path recipe;  ///< the starting recipe's folder or recipe.yaml
  run::TuneRequest request;
  std::string tune_dir;
  bool dry_run = false;
  std::vector<std::string> sbatch_args;
  bool no_gres = false;
};

int tune(TuneOptions& o) {
  auto& q = o.request;
  run::check_tune_request(q);  // the dry run takes what the real one takes
  const auto recipe = registry::load_recipe(registry::recipe_folder(o.recipe));
  q.memory_mib = gpu_memory_mib(recipe.dir, recipe.gpu);
  q.speed = gpu_speed_of(recipe.dir, recipe.gpu, run::tune_gpus_per_node(q.gpus, q.nodes));
  if (o.dry_run) {
    run::check_trial_length(recipe, q);
    const auto cands = run::tune_candidates(recipe, q.gpus, q.nodes, q.memory_mib, q.speed);
    std::cout << fmt::format(
        "tune {} on {}: {}, tried in this order (the start first, then the "
        "planner's order: predicted step time); each trial {} warm-up + {} measured steps, budget {} min\n",
        terminal_safe(recipe.id, false), counted(q.gpus, "GPU"), counted(std::int64_t(cands.size()), "candidate"),
        q.warmup_steps, q.trial_steps, format_double(q.budget_minutes));
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const auto& c = cands[i];
      // The change from the start last, whole (as tune's table): it is what tells two candidates apart.
      std::cout << fmt::format("  {:>3}  predicted peak {:>9} MiB{}, step {}  {}\n", i + 1,
                               run::mib_text(c.memory.peak_mib), c.fits ? "" : " (does not fit)",
                               c.predicted_step_s ? fmt::format("{:.3g} s", *c.predicted_step_s) : "-",
                               terminal_safe(c.knobs, false));
      for (const auto& ch : c.changes) std::cout << "         " << terminal_safe(ch, false) << "\n";
    }
    const auto swaps = run::tune_swaps(recipe);
    if (swaps.empty())
      std::cout
          << "  same-math swaps: none (no passed component test at the model's shape in the registry allows one)\n";
    for (const auto& s : swaps)
      std::cout << fmt::format("  same-math swap {} (its component test passed in {}): tried on each new best\n",
                               terminal_safe(s.test, false), terminal_safe(s.tested_in, false));
    return 0;
  }
  if (q.launcher.empty())
    throw InputError("--launcher", "no launcher given", "give --launcher local (this machine) or --launcher slurm");
  if (o.tune_dir.empty()) throw InputError("-o", "no TUNE_DIR given", "give -o TUNE_DIR, a new folder");
  q.tune_dir = fs::absolute(o.tune_dir).lexically_normal();
  q.data_dir = data_dir();
  q.execute.slurm.self = self_exe();
  q.execute.slurm.sbatch_args = o.sbatch_args;
  q.execute.slurm.gres = !o.no_gres;
  const auto r = run::tune(recipe, q);
  std::cout << "\n" << run::tune_table(recipe, q, r);
  if (!r.best) return static_cast<int>(ExitCode::check_failed);
  const bool start_won = r.candidates[r.trials[*r.best].candidate].start;
  return start_won || r.winner_status == "completed" ? 0 : static_cast<int>(ExitCode::check_failed);
}

const bool registered_tune = register_command(
    {"tune", "Find the fastest structural variant of a recipe by short measured trials (docs/tune.md)",
     [](CLI::App& app) {
       auto o = std::make_shared<TuneOptions>();
       app.add_option("recipe", o->recipe, "the starting recipe's folder or recipe.yaml")->required();
       app.add_option("--gpus", o->request.gpus, "G, the GPUs to tune on")->required();
       app.add_option("--nodes", o->request.nodes, "N, the nodes (default 1)");
       app.add_option("--launcher", o->request.launcher, "local (this machine) or slurm");
       app.add_option("--budget", o->request.budget_minutes,
                      "wall-clock minutes for the whole search, the winner's run included (default 60)");
       app.add_option("--trial-steps", o->request.trial_steps, "measured steps of a trial, after warm-up (default 10)");
       app.add_option("--warmup-steps", o->request.warmup_steps, "steps of a trial not measured (default 3)");
       app.add_option("--max-trials", o->request.max_trials, "at most this many trials (default: the budget decides)");
       app.add_option("--var", o->request.vars, "NAME=VALUE for a variable of the command, as run takes it");
       app.add_flag("--dry-run", o->dry_run, "list the candidates in the order they would be tried, and stop");
       app.add_option("-o,--tune-dir", o->tune_dir, "TUNE_DIR, a new folder for the search");
       add_slurm_options(app, o->sbatch_args, o->no_gres, "every trial");
       app.footer(
           "Exit codes: 0 a winner ran its full length (or the start stayed fastest); 1 nothing was measured or the "
           "winner's run failed; 2 bad input (nothing was run). TUNE_DIR/tune.txt and tune.json hold every trial.");
       return [o]() { return tune(*o); };
     }});

}  // namespace
}  // namespace openrecipes::cli
