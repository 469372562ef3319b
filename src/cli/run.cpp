// `openrecipes run <recipe> --gpus G [--nodes N] --launcher local|slurm [--var NAME=VALUE ...] [--dry-run]
// [--profile] [-o RUN_DIR]` (PROTOCOL.md "Running a recipe", SPEC §6) and `openrecipes run-node`, the task Slurm
// starts on every node of a run.
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/text.h"
#include "registry/model.h"
#include "registry/reproduce.h"
#include "run/capture.h"
#include "run/execute.h"
#include "run/node.h"
#include "run/patches.h"
#include "run/run_plan.h"
#include "run/slurm.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct RunOptions {
  run::RunRequest request;
  std::optional<std::int64_t> gpus;
  bool dry_run = false;
  std::string run_dir;
  std::vector<std::string> sbatch_args;
  bool no_gres = false;
  bool list_vars = false;
};

std::string default_run_dir(const std::string& recipe_id) {
  std::string name;
  for (char c : recipe_id) name += c == '/' ? '-' : c;
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("runs/{}-{:04}{:02}{:02}T{:02}{:02}{:02}Z", name, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void print_plan(const run::RunPlan& p, const run::SlurmOptions& so) {
  std::cout << fmt::format("run {} ({}) on {}: {} x {}, launcher {}, {} launch{}\n", p.recipe_id, p.framework,
                           counted(p.gpus, "GPU"), counted(p.nodes, "node"), p.gpus_per_node, p.launcher,
                           p.mode == run::LaunchMode::megatron ? "Megatron-LM (torchrun)" : "Ray",
                           p.profile ? ", profiler run (not a convergence arm)" : "");
  for (const auto& e : p.edits) std::cout << "  " << e << "\n";
  for (const auto& w : p.warnings) std::cout << "  warning: " << w << "\n";
  std::cout << "  run directory " << p.run_dir << "\n";
  std::cout << "  would write   plan.json (the plan below)" << (p.launcher == "slurm" ? ", sbatch.sh" : "")
            << ", nodes/<rank>/{versions.txt,train.log,exit.txt}, "
            << (p.launcher == "slurm" ? "scontrol.txt or sacct.txt" : "times.txt") << ", run.json\n";
  std::cout << run::apply_patches(p, true);
  auto [argv, env] = run::node_command(p, 0, p.nodes > 1 ? "<head address>" : "127.0.0.1");
  std::cout << "  version probe " << run::display_command({p.python, "-c", "<probe script>"})
            << ", git rev-parse HEAD in the checkouts, nvidia-smi, ibv_devinfo -l\n";
  if (p.mode == run::LaunchMode::megatron) {
    for (std::int64_t rank = 0; rank < p.nodes; ++rank) {
      auto [a, e] = run::node_command(p, rank, p.nodes > 1 ? "<head address>" : "127.0.0.1");
      std::cout << fmt::format("  node {} runs  ", rank);
      for (const auto& [k, v] : e) std::cout << run::display_word(k + "=" + v) << " ";
      std::cout << run::display_command(a) << "\n";
    }
  } else {
    std::cout << fmt::format(
        "  node 0 runs   ray start --head --block --node-ip-address <head> --port {} --dashboard-port {} "
        "--num-gpus {} --disable-usage-stats --temp-dir /tmp/openrecipes-ray-{}\n",
        p.ray_port, p.dashboard_port, p.gpus_per_node, p.ray_port);
    for (std::int64_t rank = 1; rank < p.nodes; ++rank)
      std::cout << fmt::format("  node {} runs  ray start --address <head>:{} --num-gpus {} --block\n", rank,
                               p.ray_port, p.gpus_per_node);
    std::cout << fmt::format("  node 0 waits  until ray status shows {}.0 GPU, then runs\n", p.gpus);
    std::string vars;
    for (const auto& [k, v] : env) vars += k + "=" + v + " ";
    std::cout << fmt::format(
        "                ray job submit --address http://127.0.0.1:{} --submission-id "
        "openrecipes-{}-{} --runtime-env-json <env_vars: {}RAY_DEDUP_LOGS=0 PYTHONUNBUFFERED=1> "
        "-- {}\n",
        p.dashboard_port, p.ray_port, p.dashboard_port, vars, run::display_command(argv));
  }
  if (p.launcher == "slurm") {
    std::cout << "  would submit  " << run::display_command(run::sbatch_argv(p, so, p.run_dir + "/sbatch.sh"))
              << "\n  sbatch.sh:\n";
    const std::string script = run::sbatch_script(p, so);
    for (auto line : split(script, '\n'))
      if (!line.empty()) std::cout << "    " << line << "\n";
  }
}

// `run --list-vars`: every variable the recipe's command uses (and the launcher reads for it), what each must point
// at, whether run needs it, and the run line (registry/reproduce.h, the site's Reproduce box says the same).
int list_vars(const RunOptions& o) {
  const fs::path dir = registry::recipe_folder(o.request.recipe);
  const registry::Recipe recipe = registry::load_recipe(dir, registry::RecipeLoad::draft);
  std::optional<registry::ModelInfo> model;
  if (const auto root = registry::registry_root(recipe.dir)) try {  // its model file, when the registry has one
      auto all = registry::load_models(*root / "models");
      if (auto it = all.find(recipe.model); it != all.end()) model = it->second;
    } catch (const InputError&) {
    }
  const registry::Reproduction r = registry::reproduction(recipe, model ? &*model : nullptr, recipe.dir.string());
  // Every field comes from a stranger's recipe: shown terminal-safe (no escape sequence or bidi control reaches it).
  auto safe = [](const std::string& text) { return terminal_safe(text, true); };
  std::cout << "variables of " << safe(recipe.id) << " (" << safe(recipe.file.string()) << "):\n";
  for (const auto& v : r.variables) {
    const char* need = v.needs_value ? "needed" : v.launcher_only ? "read by the launcher when given" : "filled by run";
    std::cout << "  " << safe(v.shown) << "  (" << need << ")\n";
    for (const auto& line : wrap_words(safe(v.points_at), 110)) std::cout << "      " << line << "\n";
  }
  if (r.variables.empty()) std::cout << "  (none)\n";
  if (!r.placeholders.empty()) {
    std::cout << "data-prep words to replace (the rows' commands in the site's Reproduce box):\n";
    for (const auto& p : r.placeholders) {
      std::cout << "  " << safe(p.name) << "\n";
      for (const auto& line : wrap_words(safe(p.points_at), 110)) std::cout << "      " << line << "\n";
    }
  }
  std::cout << "run it with (values as in the site's Reproduce box):\n  " << safe(r.run_line) << "\n";
  return 0;
}

int run(RunOptions& o) {
  if (o.list_vars) return list_vars(o);
  if (o.request.launcher.empty())
    throw InputError("--launcher", "no launcher given", "give --launcher local (this machine) or --launcher slurm");
  o.request.gpus = o.gpus;
  o.request.data_dir = data_dir();
  // The default RUN_DIR needs the recipe's id: plan once to learn it (nothing is written by planning).
  if (o.run_dir.empty()) {
    o.request.run_dir = "/nonexistent/openrecipes-plan";
    o.run_dir = default_run_dir(run::make_plan(o.request).recipe_id);
  }
  o.request.run_dir = o.run_dir;
  const run::RunPlan plan = run::make_plan(o.request);
  run::SlurmOptions so;
  so.self = self_exe();
  so.sbatch_args = o.sbatch_args;
  so.gres = !o.no_gres;
  for (const auto& a : so.sbatch_args)
    if (!a.starts_with("--") || a.find_first_of(" \t\n\r") != std::string::npos)
      throw InputError("--sbatch-arg " + quote_for_message(a), "not one sbatch option (--name=value, no spaces)",
                       "give each option with its value as one word after '=', e.g. --sbatch-arg=--partition=gpu "
                       "(--sbatch-arg --partition gpu passes 'gpu' alone)");
  if (o.dry_run) {
    print_plan(plan, so);
    return 0;
  }
  for (const auto& w : plan.warnings) std::cerr << "openrecipes run: warning: " << w << "\n";
  run::ExecuteOptions eo;
  eo.slurm = so;
  const run::RunRecord record = run::execute_run(plan, eo);
  std::cout << fmt::format("\nrun {}: {}{}\n  evidence in {} (run.json lists {} files with their sha256)\n",
                           plan.recipe_id, record.status, record.reason.empty() ? "" : " (" + record.reason + ")",
                           plan.run_dir, record.files.size());
  if (record.status == "completed")
    std::cout << fmt::format("  next: openrecipes submit {} --reference <recipe> --author <handle>\n", plan.run_dir);
  return record.status == "completed" ? 0 : static_cast<int>(ExitCode::check_failed);
}

const bool registered_run = register_command(
    {"run", "Run a recipe on this machine or a Slurm cluster and capture its evidence (docs/running.md)",
     [](CLI::App& app) {
       auto o = std::make_shared<RunOptions>();
       app.add_option("recipe", o->request.recipe, "the recipe's folder or recipe.yaml")->required();
       app.add_option("--gpus", o->gpus, "G, the GPUs to run on (default: the recipe's); the layout is relaid out");
       app.add_option("--nodes", o->request.nodes, "N, the nodes (G / N GPUs each; default 1)");
       app.add_option("--launcher", o->request.launcher, "local (this machine) or slurm (required to run)");
       app.add_flag("--list-vars", o->list_vars,
                    "list the variables the recipe's command uses, what each must point at, and stop");
       app.add_option("--var", o->request.vars,
                      "NAME=VALUE for a variable of the command ($HF_CKPT, $TORCH_DIST, $SFT_DATA, ...) or of the "
                      "launcher: MEGATRON_LM, SLIME, MILES (checkouts), PYTHON (the probe's interpreter)");
       app.add_flag("--dry-run", o->dry_run, "print every command and file the run would run or write, and stop");
       app.add_flag("--profile", o->request.profile, "a profiler run: to step 24, not a convergence arm");
       app.add_option("-o,--run-dir", o->run_dir, "RUN_DIR, a new folder for the evidence (default runs/<id>-<time>)");
       add_slurm_options(app, o->sbatch_args, o->no_gres, "the job");
       app.footer(
           "Exit codes: 0 the run completed (its evidence is in RUN_DIR); 1 it failed or was cancelled (the evidence "
           "so far is kept and run.json says why); 2 bad input (nothing was run).");
       return [o]() {
         try {
           return run(*o);
         } catch (const std::filesystem::filesystem_error& e) {
           throw InputError(e.path1().string(), e.code().message(), "give a run directory you can write (-o RUN_DIR)");
         }
       };
     }});

struct NodeOptions {
  std::string run_dir, head = "127.0.0.1";
  std::optional<std::int64_t> rank;
};

int run_node(const NodeOptions& o) {
  const run::RunPlan plan = run::read_plan(fs::path(o.run_dir) / "plan.json");
  std::int64_t rank = 0;
  if (o.rank) {
    rank = *o.rank;
  } else if (const char* id = std::getenv("SLURM_PROCID")) {
    rank = parse_int(id).value_or(-1);
  }
  if (rank < 0 || rank >= plan.nodes)
    throw InputError("run-node", fmt::format("node rank {} is not one of the plan's {} nodes", rank, plan.nodes),
                     "start one task per node (srun --ntasks-per-node=1)");
  run::install_stop_handlers();
  return run::run_node(plan, rank, o.head, false);
}

const bool registered_node =
    register_command({"run-node", "One node's task of a Slurm run (started by the batch script openrecipes run writes)",
                      [](CLI::App& app) {
                        auto o = std::make_shared<NodeOptions>();
                        app.add_option("run_dir", o->run_dir, "the run directory (holds plan.json)")->required();
                        app.add_option("--head", o->head, "the head node's address");
                        app.add_option("--rank", o->rank, "this node's rank (default: $SLURM_PROCID)");
                        app.footer("Exit code: the trainer's.");
                        return [o]() { return run_node(*o); };
                      }});

}  // namespace
}  // namespace openrecipes::cli
