// The run plan: relayout, --profile, variables, MODEL_ARGS and patches resolved into one argument vector
// (PROTOCOL.md "Running a recipe", SPEC §6), and plan.json, the file every node task reads.
#include "run/run_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>

#include "checks/command_policy.h"
#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/utf8.h"
#include "layout/command.h"
#include "layout/layout_json.h"
#include "layout/relayout.h"
#include "registry/recipe.h"
#include "run/model_args.h"
#include "run/preflight.h"

namespace openrecipes::run {

std::string step_log_file(LaunchMode mode, std::int64_t nodes) {
  return "nodes/" + std::to_string(mode == LaunchMode::megatron ? nodes - 1 : 0) + "/train.log";
}
namespace {
namespace fs = std::filesystem;

bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 64 || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::map<std::string, std::string> parse_vars(const std::vector<std::string>& given) {
  std::map<std::string, std::string> out;
  for (const auto& v : given) {
    const auto eq = v.find('=');
    const std::string name = v.substr(0, eq);
    const std::string where = "--var " + quote_for_message(v);
    if (eq == std::string::npos || !is_name(name))
      throw InputError(where, "not NAME=VALUE",
                       "give a variable as --var NAME=VALUE, e.g. --var HF_CKPT=/models/qwen3");
    const std::string value = v.substr(eq + 1);
    if (value.empty())
      throw InputError(where, fmt::format("${} has no value", name), fmt::format("give it: --var {}=VALUE", name));
    if (!is_valid_utf8(value))
      throw InputError(where, "the value is not UTF-8", "give the path as the file system shows it in UTF-8");
    if (std::any_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
      throw InputError(where, "the value holds a control character (a line break, a tab)", "give a plain path or word");
    if (!out.emplace(name, value).second)
      throw InputError(where, fmt::format("${} is given twice", name), "give each variable once");
  }
  return out;
}

// The program policy (checks/command_policy.h) on the recipe's command: its shape, or an InputError listing every way
// it breaks the policy (a recipe is a stranger's: nothing it names may reach a program or a loader unchecked).
checks::CommandShape policy_shape(const std::vector<layout::CommandWord>& words, const registry::Recipe& recipe,
                                  const std::string& where) {
  auto check =
      checks::CommandPolicy::bundled().check(words, recipe.stack.framework, "", registry::patch_modules(recipe));
  if (check.shape) return *check.shape;
  std::string what;
  for (const auto& p : check.problems) what += (what.empty() ? "" : "; ") + p.message;
  throw InputError(where, what, check.problems.front().fix);
}

// The rendered entry script must lie inside the framework checkout (symbolic links resolved), so a variable cannot
// move it elsewhere.
void check_script_inside_checkout(const std::string& script, const std::string& checkout, const std::string& where) {
  std::error_code ec;
  const fs::path path = fs::weakly_canonical(fs::absolute(script), ec);
  const fs::path root = fs::weakly_canonical(checkout, ec);
  const auto rel = path.lexically_relative(root);
  if (!checkout.empty() && !rel.empty() && *rel.begin() != ".." && rel != ".") return;
  throw InputError(where, "the training script " + quote_for_message(script) + " is not inside the framework checkout",
                   "use the checkout's own script through its variable ($MEGATRON_LM/pretrain_gpt.py, <slime entry "
                   "module>), and give the checkout with --var");
}

int random_port(std::mt19937& rng) { return std::uniform_int_distribution<int>(20000, 29999)(rng); }

}  // namespace

namespace {

// RUN_DIR, absolute: a new or empty folder with a plain name.
std::string checked_run_dir(const fs::path& run_dir) {
  const std::string dir = fs::absolute(run_dir).lexically_normal().string();
  if (!is_valid_utf8(dir) ||
      std::any_of(dir.begin(), dir.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    throw InputError("-o " + quote_for_message(dir),
                     "the run directory's name holds a control character or is not UTF-8", "give a plain folder name");
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    throw InputError(dir, "the run directory exists and is not empty", "give a new folder with -o RUN_DIR");
  return dir;
}

// The pre-flight of what the trainer reads (SPEC §6): every file or folder a read argument names exists, and a
// Megatron-LM dataset prefix has its .bin and .idx, before anything launches (Megatron-LM would start from random
// weights on a --load that is not there, and fail minutes later on a missing dataset).
void check_read_paths(const std::vector<checks::PathArgument>& paths, const std::map<std::string, std::string>& vars,
                      const std::string& where) {
  for (const auto& a : paths) {
    if (a.access != checks::PathArgument::Access::read) continue;
    auto it = vars.find(a.variable);
    if (it == vars.end()) continue;  // named with the other missing variables
    const fs::path path = it->second + a.suffix;
    const std::string what =
        fmt::format("{} ${}{} is {}", a.flag, a.variable, a.suffix, quote_for_message(path.string()));
    std::error_code ec;
    if (a.dataset) {
      if (fs::is_regular_file(path.string() + ".bin", ec) && fs::is_regular_file(path.string() + ".idx", ec)) continue;
      if (path.extension() == ".parquet" && fs::is_regular_file(path, ec))
        throw InputError(where,
                         what +
                             ", a rows.parquet, where Megatron-LM reads a dataset PREFIX (PREFIX.bin and "
                             "PREFIX.idx)",
                         fmt::format("export it: openrecipes rows export {} --format megatron -o PREFIX, then --var "
                                     "{}=PREFIX",
                                     path.string(), a.variable));
      throw InputError(where,
                       what + fmt::format(": {}.bin and {}.idx are not both there", path.filename().string(),
                                          path.filename().string()),
                       fmt::format("give the PREFIX of a Megatron-LM dataset (openrecipes rows export ... -o PREFIX) "
                                   "as --var {}=PREFIX",
                                   a.variable));
    }
    if (!fs::exists(path, ec))
      throw InputError(where, what + ", which does not exist",
                       fmt::format("give the {} the recipe reads there: --var {}=PATH (docs/running.md)",
                                   a.flag == "--load" ? "checkpoint" : "file or folder", a.variable));
  }
}

}  // namespace

bool is_launcher_variable(const std::string& name) {
  static const std::set<std::string> launcher = {"MEGATRON_LM", "SLIME", "MILES", "PYTHON"};
  return launcher.count(name) > 0;
}

layout::RelayoutRequest relayout_request(const registry::Recipe& recipe, std::int64_t gpus, std::int64_t nodes) {
  layout::RelayoutRequest rq;
  rq.layout = recipe.layout;
  rq.global_batch = recipe.workload.global_batch;
  rq.row_length = recipe.workload.row_length;
  rq.launch = recipe.stack.framework == "megatron-lm" ? layout::Launch::megatron : layout::Launch::slime;
  rq.gpus = gpus;
  // One node holds all G GPUs: the nearest counts are searched on nodes of at least 8.
  rq.gpus_per_node = nodes == 1 ? std::max<std::int64_t>(gpus, 8) : gpus / nodes;
  return rq;
}

PlannedCommand plan_command(const registry::Recipe& recipe, std::int64_t gpus, std::int64_t nodes, bool profile,
                            std::int64_t trial_iters) {
  const std::string where = recipe.file.string() + ": command";
  PlannedCommand out;
  const bool megatron = recipe.stack.framework == "megatron-lm";
  // Relayout (a no-op on the recipe's own GPU count): the layout rules and the framework's GPU flags.
  const auto r = layout::relayout(relayout_request(recipe, gpus, nodes), recipe.command, where);
  if (!r.violations.empty()) {
    std::string list;
    for (const auto& v : r.violations) list += (list.empty() ? "" : "; ") + v.what;
    auto count = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("none"); };
    throw InputError(
        fmt::format("{} on {} GPUs", recipe.id, gpus), "the layout does not fit: " + list,
        fmt::format("use another GPU count (nearest that fit: {} below, {} above), or another layout: "
                    "{} names the changes that fit, and with --draft DIR writes one as a recipe draft "
                    "that run takes",
                    count(r.nearest_below), count(r.nearest_above),
                    display_command({"openrecipes", "relayout", recipe.dir.string(), "--gpus", std::to_string(gpus)})));
  }
  out.layout = r.layout;
  out.command = r.command;
  for (const auto& c : r.changes) out.edits.push_back("relayout: " + c.str());
  for (const auto& n : r.notes) out.edits.push_back("relayout: " + n);

  // --profile: to step 24 (SPEC §2: a profiler run of 21..25 steps is measured over steps 5-19).
  const std::string length_flag = megatron ? "--train-iters" : "--num-rollout";
  // A tuning trial: to its own length (openrecipes tune measures it over its steps after warm-up).
  if (profile || trial_iters > 0) {
    const std::string why = profile ? "--profile" : "a tuning trial";
    std::vector<layout::FlagChange> changes;
    layout::CommandEditor ed(out.command, where, &changes);
    if (!ed.has({length_flag}))
      throw InputError(where, "the command sets no " + length_flag + ", so " + why + " cannot set the run's length",
                       "add " + length_flag + " 20 to the recipe's command");
    ed.set({length_flag}, profile ? "24" : std::to_string(trial_iters), false);
    out.command = ed.result();
    for (const auto& c : changes) out.edits.push_back(fmt::format("{}: {} {} -> {}", why, c.flag, c.from, c.to));
  }
  if (auto v = layout::flag_value(layout::split_command(out.command, where), {length_flag}))
    out.train_iters = parse_int(*v).value_or(0);
  return out;
}

namespace {

// The values of the command's variables (--var NAME=VALUE): every one the command uses needs a value, a given one it
// does not use is a typo, $RUN_DIR is the run folder's (set here: every file the run writes lies inside it); paths
// made absolute, the reads checked (q.check_reads), and p's run folder, checkouts and Python set from them.
std::map<std::string, std::string> resolve_variables(const RunRequest& q, const registry::Recipe& recipe,
                                                     const std::vector<std::string>& used,
                                                     const checks::CommandShape& shape, const std::string& where,
                                                     RunPlan& p) {
  const std::string fw_var = checks::CommandPolicy::bundled().framework_variable(p.framework);
  // Variables: every one the command uses needs a value; a given one the command does not use is a typo. RUN_DIR is
  // the run folder's, set here: every file the run writes lies inside it.
  p.run_dir = checked_run_dir(q.run_dir);
  auto given = parse_vars(q.vars);
  if (given.count(checks::kRunDirVariable))
    throw InputError(std::string("--var ") + checks::kRunDirVariable,
                     "run sets $RUN_DIR itself, to the run folder it creates (-o RUN_DIR)",
                     "leave it out; give the run folder with -o");
  for (const auto& [name, value] : given)
    if (!is_launcher_variable(name) && std::find(used.begin(), used.end(), name) == used.end()) {
      std::string list;
      for (const auto& u : used)
        if (u != "MODEL_ARGS" && u != "<slime entry module>") list += (list.empty() ? "$" : ", $") + u;
      throw InputError("--var " + name,
                       fmt::format("unknown variable: the command of {} does not use ${}", recipe.id, name),
                       "the command uses " + (list.empty() ? std::string("no variables") : list) +
                           " (and the launcher reads MEGATRON_LM, SLIME, MILES, PYTHON)");
    }
  // Every variable the command uses needs a value: all that lack one are named at once.
  std::vector<std::string> missing;
  for (const auto& name : used)
    if (name != "MODEL_ARGS" && name != "<slime entry module>" && name != checks::kRunDirVariable && !given.count(name))
      missing.push_back(name);
  if (!missing.empty()) {
    std::string names, fix;
    for (const auto& m : missing) names += (names.empty() ? "$" : ", $") + m, fix += " --var " + m + "=VALUE";
    throw InputError(where, fmt::format("{} {} no value", names, missing.size() == 1 ? "has" : "have"),
                     "give " + std::string(missing.size() == 1 ? "it" : "them") + ":" + fix);
  }
  // Paths are made absolute here, so plan.json holds what every node reads from any folder (a Slurm node starts in
  // another one, and the trainer runs in its node's folder).
  for (auto& entry : given) {
    const std::string& name = entry.first;
    if (name == fw_var || name == "MEGATRON_LM" ||
        std::any_of(shape.paths.begin(), shape.paths.end(), [&](const auto& x) { return x.variable == name; }))
      entry.second = fs::absolute(entry.second).lexically_normal().string();
  }
  given[checks::kRunDirVariable] = p.run_dir;
  if (q.check_reads) check_read_paths(shape.paths, given, where);
  if (auto it = given.find(fw_var); it != given.end()) p.framework_dir = fs::absolute(it->second).lexically_normal();
  if (auto it = given.find("MEGATRON_LM"); it != given.end())
    p.megatron_dir = fs::absolute(it->second).lexically_normal();
  p.python = given.count("PYTHON") ? given.at("PYTHON") : "python3";
  if (p.python.find('/') != std::string::npos) p.python = fs::absolute(p.python).lexically_normal().string();

  return given;
}

// The recipe's patches into p (sha256 checked now, and again just before they are applied; diffs go to the
// framework checkout) and PYTHONPATH: the rows plugin's folder, then patches/ (every file in it pinned by sha256).
void plan_patches(const RunRequest& q, const registry::Recipe& recipe, const std::string& fw_var, RunPlan& p) {
  for (const auto& patch : recipe.patches) {
    if (auto problem = registry::patch_problem(patch))
      throw InputError(recipe.file.string() + ": patches", *problem,
                       "the patch was changed after the recipe was written: restore it, or record its new sha256");
    p.patches.push_back({fs::absolute(patch.path).lexically_normal().string(), patch.sha256});
  }
  if (std::any_of(recipe.patches.begin(), recipe.patches.end(), registry::is_patch_diff) && p.framework_dir.empty())
    throw InputError(recipe.file.string() + ": patches", "the recipe's patches apply to the framework checkout",
                     fmt::format("give it: --var {}=PATH", fw_var));

  p.pythonpath.push_back(fs::absolute(q.data_dir).lexically_normal().string());
  if (const fs::path patches = recipe.dir / "patches"; fs::is_directory(patches)) {
    // patches/ goes on PYTHONPATH, so every file in it must be one the recipe pins by sha256.
    if (auto problems = registry::patch_folder_problems(recipe); !problems.empty())
      throw InputError(recipe.file.string() + ": patches", problems.front(), "keep only the recipe's patches there");
    p.pythonpath.push_back(fs::absolute(patches).lexically_normal().string());
  }
  if (p.mode == LaunchMode::ray && !p.megatron_dir.empty()) p.pythonpath.push_back(p.megatron_dir);
}

}  // namespace

RunPlan make_plan(const RunRequest& q) {
  const auto recipe = registry::load_recipe(registry::recipe_folder(q.recipe), registry::RecipeLoad::draft);
  const std::string where = recipe.file.string() + ": command";
  policy_shape(layout::split_command(recipe.command, where), recipe, where);
  if (q.launcher != "local" && q.launcher != "slurm")
    throw InputError("--launcher " + quote_for_message(q.launcher), "unknown launcher", "use local or slurm");
  RunPlan p;
  p.recipe_id = recipe.id;
  p.recipe_dir = fs::absolute(recipe.dir).lexically_normal().string();
  p.recipe_sha256 = sha256_hex(read_file(recipe.file));
  p.model = recipe.model, p.gpu = recipe.gpu, p.framework = recipe.stack.framework;
  p.mode = p.framework == "megatron-lm" ? LaunchMode::megatron : LaunchMode::ray;
  p.launcher = q.launcher;
  p.gpus = q.gpus.value_or(recipe.gpus);
  p.nodes = q.nodes;
  if (p.gpus < 1 || p.nodes < 1)
    throw InputError("--gpus/--nodes", "GPU and node counts are at least 1", "give positive whole numbers");
  if (p.launcher == "local" && p.nodes > 1)
    throw InputError("--nodes " + std::to_string(p.nodes), "the local launcher runs on this one machine",
                     "use --launcher slurm for several nodes, or --nodes 1");
  if (p.gpus % p.nodes != 0)
    throw InputError(fmt::format("--gpus {} --nodes {}", p.gpus, p.nodes),
                     "the GPUs do not split evenly over the nodes",
                     "give a GPU count that is a multiple of the node count");
  p.gpus_per_node = p.gpus / p.nodes;
  p.profile = q.profile;
  p.trial_iters = q.trial_iters;
  if (p.profile && p.trial_iters > 0)
    throw InputError("--profile", "a run is a profiler run or a tuning trial, not both", "ask for one of them");

  const PlannedCommand planned = plan_command(recipe, p.gpus, p.nodes, p.profile, p.trial_iters);
  p.layout = planned.layout;
  p.command = planned.command;
  p.edits = planned.edits;
  p.train_iters = planned.train_iters;
  const auto words = layout::split_command(p.command, where);
  const checks::CommandShape shape = policy_shape(words, recipe, where);

  const auto used = layout::command_variable_names(words);
  const std::string fw_var = checks::CommandPolicy::bundled().framework_variable(p.framework);
  const auto given = resolve_variables(q, recipe, used, shape, where, p);

  // Pre-flight: the checkouts exist, hold the entry script and are at the commits the recipe pins.
  // The files the recipe's diffs touch: the only changes the framework checkout may show.
  std::vector<std::string> patched;
  for (const auto& patch : recipe.patches)
    if (registry::is_patch_diff(patch)) try {
        for (auto& path : diff_paths(read_file(patch.path))) patched.push_back(std::move(path));
      } catch (const InputError&) {
        // its sha256 check below names it
      }
  if (!p.framework_dir.empty())
    for (auto& w : check_checkout(fw_var, p.framework_dir, shape.script_name,
                                  registry::pinned_version(recipe, p.framework + "_commit"), patched))
      p.warnings.push_back(std::move(w));
  if (p.mode == LaunchMode::ray && !p.megatron_dir.empty())
    for (auto& w : check_checkout("MEGATRON_LM", p.megatron_dir, "", registry::pinned_version(recipe, "megatron_lm")))
      p.warnings.push_back(std::move(w));

  layout::CommandVariables vars;
  vars.values = given;
  for (const auto& name : used) {
    if (name == "MODEL_ARGS") {
      if (p.framework_dir.empty())
        throw InputError(where, "${MODEL_ARGS[@]} comes from the framework's model script, and no checkout is given",
                         fmt::format("give the {} checkout: --var {}=PATH", p.framework, fw_var));
      vars.arrays["MODEL_ARGS"] = read_model_args(find_model_script(p.framework_dir, p.model));
    } else if (name == "<slime entry module>") {
      if (p.framework_dir.empty())
        throw InputError(where, "<slime entry module> is the framework's train.py, and no checkout is given",
                         fmt::format("give the {} checkout: --var {}=PATH", p.framework, fw_var));
      const fs::path entry = fs::path(p.framework_dir) / "train.py";
      if (!fs::is_regular_file(entry))
        throw InputError(entry.string(), "<slime entry module>: no train.py in the framework checkout",
                         "give the checkout's top folder (it holds train.py)");
      vars.entry_module = entry.string();
    }
  }
  for (const auto& [name, value] : given)
    if (name != "PYTHON" &&
        (name != checks::kRunDirVariable || std::find(used.begin(), used.end(), name) != used.end()))
      p.variables[name] = value;
  const auto rendered = layout::render_command(words, vars, where);
  p.env = rendered.env;
  p.argv = rendered.argv;
  p.script_index = shape.script - shape.env_end;
  check_script_inside_checkout(p.argv.at(shape.script - shape.env_end), p.framework_dir, where);

  plan_patches(q, recipe, fw_var, p);

  std::mt19937 rng(std::random_device{}());
  p.master_port = random_port(rng);
  p.ray_port = random_port(rng);
  p.dashboard_port = random_port(rng);
  return p;
}

std::string plan_json(const RunPlan& p) {
  nlohmann::ordered_json j;
  j["format_version"] = 1;
  j["recipe"] = {{"id", p.recipe_id}, {"dir", p.recipe_dir}, {"sha256", p.recipe_sha256}};
  j["model"] = p.model, j["gpu"] = p.gpu, j["framework"] = p.framework;
  j["mode"] = p.mode == LaunchMode::megatron ? "megatron" : "ray";
  j["launcher"] = p.launcher;
  j["gpus"] = p.gpus, j["nodes"] = p.nodes, j["gpus_per_node"] = p.gpus_per_node;
  j["profile"] = p.profile, j["trial_iters"] = p.trial_iters, j["train_iters"] = p.train_iters;
  j["command"] = p.command;
  j["layout"] = layout::layout_to_json(p.layout);
  j["variables"] = p.variables;
  auto env = nlohmann::ordered_json::array();
  for (const auto& [k, v] : p.env) env.push_back({k, v});
  j["env"] = env;
  j["argv"] = p.argv;
  j["pythonpath"] = p.pythonpath;
  j["framework_dir"] = p.framework_dir, j["megatron_dir"] = p.megatron_dir, j["python"] = p.python;
  auto patches = nlohmann::ordered_json::array();
  for (const auto& x : p.patches) patches.push_back({{"path", x.path}, {"sha256", x.sha256}});
  j["patches"] = patches;
  j["run_dir"] = p.run_dir;
  j["ports"] = {{"master", p.master_port}, {"ray", p.ray_port}, {"dashboard", p.dashboard_port}};
  j["edits"] = p.edits;
  j["warnings"] = p.warnings;
  return j.dump(2) + "\n";
}

RunPlan read_plan(const fs::path& file) {
  const std::string text = read_file(file, 16u << 20);
  try {
    const auto j = parse_json_strict(text, file.string(), "make the plan again with this openrecipes");
    if (j.at("format_version") != 1)
      throw InputError(file.string(), "format_version is not 1", "make the plan again with this openrecipes");
    RunPlan p;
    p.recipe_id = j.at("recipe").at("id"), p.recipe_dir = j.at("recipe").at("dir");
    p.recipe_sha256 = j.at("recipe").at("sha256");
    p.model = j.at("model"), p.gpu = j.at("gpu"), p.framework = j.at("framework");
    p.mode = j.at("mode") == "megatron" ? LaunchMode::megatron : LaunchMode::ray;
    p.launcher = j.at("launcher");
    p.gpus = j.at("gpus"), p.nodes = j.at("nodes"), p.gpus_per_node = j.at("gpus_per_node");
    p.profile = j.at("profile"), p.train_iters = j.at("train_iters");
    p.trial_iters = j.contains("trial_iters") ? j.at("trial_iters").get<std::int64_t>() : 0;  // plans before tune
    p.command = j.at("command");
    p.layout = layout::layout_from_json(j.at("layout"));
    p.variables = j.at("variables").get<std::map<std::string, std::string>>();
    for (const auto& e : j.at("env")) p.env.emplace_back(e.at(0), e.at(1));
    p.argv = j.at("argv").get<std::vector<std::string>>();
    p.pythonpath = j.at("pythonpath").get<std::vector<std::string>>();
    p.framework_dir = j.at("framework_dir"), p.megatron_dir = j.at("megatron_dir"), p.python = j.at("python");
    for (const auto& x : j.at("patches")) p.patches.push_back({x.at("path"), x.at("sha256")});
    p.run_dir = j.at("run_dir");
    p.master_port = j.at("ports").at("master"), p.ray_port = j.at("ports").at("ray");
    p.dashboard_port = j.at("ports").at("dashboard");
    p.edits = j.at("edits").get<std::vector<std::string>>();
    p.warnings = j.at("warnings").get<std::vector<std::string>>();
    if (p.argv.empty() || p.nodes < 1 || p.gpus_per_node < 1) throw InputError(file.string(), "an empty plan");
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file.string(), "not a plan.json openrecipes wrote: " + json_error_text(e.what()),
                     "make the plan again with openrecipes run");
  }
}

std::pair<std::vector<std::string>, std::vector<std::pair<std::string, std::string>>> node_command(
    const RunPlan& p, std::int64_t rank, const std::string& head) {
  std::vector<std::string> argv = p.argv;
  if (p.mode == LaunchMode::megatron && p.nodes > 1) {
    if (fs::path(argv[0]).filename() != "torchrun")
      throw InputError(p.recipe_dir + "/recipe.yaml: command",
                       "a Megatron-LM run on several nodes is launched with torchrun, and the command starts with " +
                           quote_for_message(argv[0]),
                       "start the command with torchrun --nproc-per-node G");
    // torchrun's own flags are the words before the training script; the rendezvous ones are replaced.
    const std::set<std::string> rendezvous = {"--nnodes",       "--node-rank",     "--node_rank",     "--master-addr",
                                              "--master_addr",  "--master-port",   "--master_port",   "--rdzv-backend",
                                              "--rdzv_backend", "--rdzv-endpoint", "--rdzv_endpoint", "--standalone"};
    std::vector<std::string> out = {argv[0]};
    std::size_t i = 1;
    for (; i < argv.size(); ++i) {
      const std::string& w = argv[i];
      if (w.empty() || w[0] != '-') break;  // the script
      const std::string name = w.substr(0, w.find('='));
      const bool takes_value = w.find('=') == std::string::npos && name != "--standalone";
      if (rendezvous.count(name)) {
        if (takes_value) ++i;
        continue;
      }
      out.push_back(w);
      if (takes_value && i + 1 < argv.size()) out.push_back(argv[++i]);
    }
    const std::vector<std::string> ours = {
        "--nnodes",      std::to_string(p.nodes),      "--node-rank", std::to_string(rank), "--master-addr", head,
        "--master-port", std::to_string(p.master_port)};
    out.insert(out.begin() + 1, ours.begin(), ours.end());
    out.insert(out.end(), argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
    argv = std::move(out);
  }
  auto env = p.env;
  std::string path;
  for (const auto& d : p.pythonpath) path += (path.empty() ? "" : ":") + d;
  bool merged = false;
  for (auto& [k, v] : env)
    if (k == "PYTHONPATH") v = path + ":" + v, merged = true;
  if (!merged) {
    if (const char* inherited = std::getenv("PYTHONPATH"); inherited && *inherited)
      path += std::string(":") + inherited;
    env.emplace_back("PYTHONPATH", path);
  }
  return {argv, env};
}

}  // namespace openrecipes::run
