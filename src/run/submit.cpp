// submit: run directory -> recipe folder with claims computed by the build's own evaluation (run/submit.h).
#include "run/submit.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <regex>

#include "checks/command_check.h"
#include "checks/command_policy.h"
#include "checks/component_check.h"
#include "checks/stack.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/sha256.h"
#include "core/text.h"
#include "evidence/launch.h"
#include "evidence/megatron_args.h"
#include "evidence/scheduler_times.h"
#include "evidence/step_log.h"
#include "evidence/tune_search.h"
#include "evidence/versions.h"
#include "registry/folder_writer.h"
#include "registry/recipe.h"
#include "registry/registry.h"
#include "run/capture.h"
#include "run/component_plan.h"
#include "run/model_args.h"
#include "run/tune_candidates.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;

const char* const kAsLeft = "submit the run directory as openrecipes run left it";
// Where a tuned recipe keeps its search (submit --search), and so its trials' logs (evidence::trial_log_path).
const char* const kSearchFile = "evidence/search.json";

// The versions the probe saw for `name` (any spelling), preferring a build-tagged one (torch's own "2.11.0+cu130"
// over pip's "2.11.0"); "unknown" when it saw none.
std::string seen(const evidence::VersionDump& d, const std::string& name) {
  const auto& v = d.of(name);
  if (v.empty()) return "unknown";
  for (const auto& x : v)
    if (x.find('+') != std::string::npos) return x;
  return *v.rbegin();
}

// The submitted recipe as the registry evaluates it (its entry pointer cleared: the registry read here is gone).
registry::RecipeResult evaluate_one(const fs::path& registry_root, const std::string& id) {
  auto r = registry::evaluate_recipe(registry::load_registry(registry_root), id);
  r.entry = nullptr;
  return r;
}

// The run ended well: completed, exit 0 on every node and in the record, a convergence arm.
void require_completed(const fs::path& run_dir, const RunRecord& rec) {
  const std::string where = (run_dir / "run.json").string();
  if (rec.status != "completed")
    throw InputError(where,
                     fmt::format("the run {}: {}", rec.status, rec.reason.empty() ? "no reason given" : rec.reason),
                     "only a completed run can be submitted: fix what stopped it and run the recipe again");
  if (!rec.convergence_arm)
    throw InputError(where, "a --profile run or a tuning trial is not a convergence arm (it is cut short)",
                     "submit a run of the recipe's own length (openrecipes run without --profile; tune's winner/)");
  for (const auto& f : rec.files)  // every node's own exit status, as its task wrote it
    if (f.path.starts_with("nodes/") && f.path.ends_with("/exit.txt") && trim(read_file(run_dir / f.path, 64)) != "0")
      throw InputError((run_dir / f.path).string(), "a node's exit status is not 0",
                       "only a run that exited 0 on every node can be submitted: run the recipe again");
  if (rec.exit_code != 0)
    throw InputError(where, fmt::format("the run is marked completed but its exit status is {}", rec.exit_code),
                     "only a run that exited 0 can be submitted: run the recipe again");
  // The evidence formats and the job id are the ones run writes (they are written into recipe.yaml).
  const auto& log_formats = evidence::step_log_formats();
  if (std::find(log_formats.begin(), log_formats.end(), rec.log.format) == log_formats.end() ||
      rec.arguments.format != "megatron-args" || rec.versions.format != "versions" ||
      !(rec.times.format == "launcher" || rec.times.format == "sacct" || rec.times.format == "scontrol") ||
      !std::regex_match(rec.times.key, std::regex(rec.times.format == "launcher" ? "run" : "[0-9][0-9_.]{0,40}")))
    throw InputError(where, "the evidence formats or the job id are not ones openrecipes run writes", kAsLeft);
}

struct SourceRecipe {
  registry::Recipe recipe;
  PlannedCommand planned;  ///< its command and layout on the run's GPUs, as run planned them
};

// The recipe the run came from, which must be the one it ran: its workload, framework, patches and command are taken
// from it, never from plan.json, which anyone can edit. The command is derived again from it (relayout to the run's
// GPUs, --profile) and must be plan.json's; it must keep the program policy.
SourceRecipe source_recipe(const fs::path& run_dir, const RunPlan& p) {
  const auto source = registry::load_recipe(p.recipe_dir, registry::RecipeLoad::draft);
  if (sha256_hex(read_file(source.file)) != p.recipe_sha256)
    throw InputError(source.file.string(),
                     "the recipe changed after the run (its sha256 is not the one plan.json records)",
                     "run the recipe as it is now, or restore it");
  const std::string plan_file = (run_dir / "plan.json").string();
  if (source.id != p.recipe_id || source.stack.framework != p.framework || source.model != p.model ||
      source.gpu != p.gpu)
    throw InputError(plan_file, "plan.json does not name the recipe it ran (its id, model, GPU or framework differ)",
                     kAsLeft);
  if (source.patches.size() != p.patches.size())
    throw InputError(plan_file, "plan.json's patches are not the recipe's", kAsLeft);
  for (std::size_t i = 0; i < source.patches.size(); ++i) {
    if (p.patches[i].sha256 != source.patches[i].sha256)
      throw InputError(plan_file, "plan.json's patches are not the recipe's", kAsLeft);
    if (auto problem = registry::patch_problem(source.patches[i]))
      throw InputError(source.file.string() + ": patches", *problem + " (the patch changed after the run)",
                       "restore the patch the run applied");
  }
  const PlannedCommand derived = plan_command(source, p.gpus, p.nodes, p.profile, p.trial_iters);
  if (derived.command != p.command || !(derived.layout == p.layout) || derived.train_iters != p.train_iters)
    throw InputError(plan_file,
                     fmt::format("plan.json's command is not the one {} gives on {}: the plan was edited", source.id,
                                 counted(p.gpus, "GPU")),
                     kAsLeft);
  const std::string where = source.file.string() + ": command";
  const auto words = layout::split_command(derived.command, where);
  auto policy =
      checks::CommandPolicy::bundled().check(words, source.stack.framework, where, registry::patch_modules(source));
  if (!policy.shape) throw InputError(where, policy.problems.front().message, policy.problems.front().fix);
  // What the run started (plan.json's env and argv, which become evidence/launch.json) must be that command rendered
  // with the run's own variables, and ${MODEL_ARGS[@]} the framework's model script when the checkout is still there.
  const auto m = checks::match_launch(words, *policy.shape, {plan_file, p.env, p.argv});
  if (m.problem)
    throw InputError(plan_file,
                     "plan.json's argv is not its command rendered (" + *m.problem + "): the plan was edited", kAsLeft);
  for (const auto& [name, value] : m.bindings)
    if (auto it = p.variables.find(name); it == p.variables.end() || it->second != value)
      throw InputError(
          plan_file,
          fmt::format("plan.json's argv has ${} = {}, not the value the run was given", name, quote_for_message(value)),
          kAsLeft);
  if (m.array && !p.framework_dir.empty() && fs::is_directory(p.framework_dir)) {
    const auto expected = read_model_args(find_model_script(p.framework_dir, source.model));
    const std::vector<std::string> got(p.argv.begin() + static_cast<std::ptrdiff_t>(m.array->first),
                                       p.argv.begin() + static_cast<std::ptrdiff_t>(m.array->second));
    if (got != expected)
      throw InputError(plan_file,
                       "plan.json's argv is not the framework's model script where the command has ${MODEL_ARGS[@]}",
                       kAsLeft);
  }
  return {source, derived};
}

// The run's framework commit must be the one its recipe pins (the run's pre-flight checked it; the probe shows it).
void require_pinned_commit(const registry::Recipe& source, const evidence::VersionDump& versions,
                           const std::string& versions_file) {
  for (const auto& v : source.stack.versions) {
    if (v.component != source.stack.framework + "_commit" && v.component != "megatron_lm") continue;
    const std::string probe = v.component == "megatron_lm"              ? "megatron_lm_commit"
                              : source.stack.framework == "megatron-lm" ? "megatron_lm_commit"
                                                                        : source.stack.framework + "_commit";
    const std::string got = seen(versions, probe);
    if (!checks::commits_agree(got, v.version))
      throw InputError(versions_file,
                       fmt::format("the run's probe shows {} {}, and the recipe pins {}", probe, got, v.version),
                       "run the recipe on a checkout at its commit");
  }
}

// The UTC day the scheduler says the run finished (when it was measured); refuses a run the scheduler says failed.
std::string measured_day(const fs::path& run_dir, const RunRecord& rec) {
  const auto t =
      evidence::parse_run_times(read_file(run_dir / rec.times.path), rec.times.path, rec.times.format, rec.times.key);
  if (t.exit_code != 0 || (!t.state.empty() && t.state != "COMPLETED"))
    throw InputError(
        rec.times.path,
        fmt::format("the scheduler says the run exited {}{}", t.exit_code, t.state.empty() ? "" : " (" + t.state + ")"),
        "only a run that exited 0 can be submitted: run the recipe again");
  const std::time_t end = static_cast<std::time_t>(t.finished_s);
  std::tm tm{};
  gmtime_r(&end, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

// The same evidence twice would rank twice: refuse a log the registry already holds.
void require_new_log(const registry::Registry& reg, const std::string& log_sha, const std::string& log_path) {
  std::error_code ec;
  for (const auto& e : reg.recipes) {
    if (!e.recipe) continue;
    std::vector<const registry::EvidenceFile*> logs = {&e.recipe->log};
    if (e.recipe->convergence_arm) logs.push_back(&*e.recipe->convergence_arm);
    for (const auto* f : logs)
      if (fs::is_regular_file(f->path, ec) && fs::file_size(f->path, ec) <= kMaxTextFileBytes &&
          sha256_hex(read_file(f->path)) == log_sha)
        throw InputError(log_path, "this log is already the evidence of " + e.id,
                         "a run is submitted once: run the recipe again for another recipe");
  }
}

// The stack the run's probe saw, in the recipe's schema.
registry::Stack probed_stack(const registry::Recipe& source, const RunPlan& p, const RunRecord& rec,
                             const evidence::VersionDump& versions, const std::optional<evidence::ArgumentDump>& args) {
  registry::Stack s;
  s.framework = source.stack.framework;
  s.versions.push_back({s.framework + "_commit",
                        seen(versions, p.framework == "megatron-lm" ? "megatron_lm_commit" : p.framework + "_commit")});
  if (p.framework != "megatron-lm") s.versions.push_back({"megatron_lm", seen(versions, "megatron_lm_commit")});
  std::string te = seen(versions, "transformer_engine");
  if (te == "unknown" && args && args->values.count("transformer_impl") &&
      args->values.at("transformer_impl") == "local")
    te = "none";
  s.versions.push_back({"transformer_engine", te});
  s.versions.push_back({"pytorch", seen(versions, "torch")});
  s.versions.push_back({"cuda", seen(versions, "cuda")});
  s.versions.push_back({"nccl", seen(versions, "nccl")});
  if (!versions.of("deep_ep").empty()) s.versions.push_back({"deep_ep", seen(versions, "deep_ep")});
  s.gpus_per_node = p.gpus_per_node;
  s.network = rec.network;
  return s;
}

// The raw outputs of `openrecipes component-test` in `dirs`, by test: each read as build reads it, run for the recipe
// the run ran (`recipe_id`), each test once.
std::map<std::string, std::pair<fs::path, checks::ComponentOutput>> component_outputs(const std::vector<fs::path>& dirs,
                                                                                      const std::string& recipe_id) {
  std::map<std::string, std::pair<fs::path, checks::ComponentOutput>> out;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      throw InputError("--component-tests " + dir.string(), "not a folder",
                       "give the folder openrecipes component-test wrote (-o DIR)");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".json" && e.path().filename() != "plan.json" &&
          !e.path().filename().string().starts_with("."))
        files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw InputError(dir.string(), "no raw output of a component test (<swap>.json) in the folder",
                       "give the folder openrecipes component-test wrote, after its tests ran");
    for (const auto& f : files) {
      auto raw = checks::parse_component_output(read_file(f, std::size_t{16} << 20), f.string());
      if (raw.recipe != recipe_id)
        throw InputError(f.string(), fmt::format("this component test was run for {}, not {}", raw.recipe, recipe_id),
                         "run openrecipes component-test on the recipe the run ran");
      if (!registry::is_registry_name(raw.test) || f.stem() != raw.test)
        throw InputError(f.string(), "the file is not named after its test", kAsLeft);
      if (out.count(raw.test))
        throw InputError(f.string(),
                         "a second raw output of test " + raw.test + " (" + out.at(raw.test).first.string() + ")",
                         "give one folder per test, or one component-test run");
      std::string test = raw.test;
      out.emplace(std::move(test), std::make_pair(f, std::move(raw)));
    }
  }
  return out;
}

// The search whose winner the run is (`submit --search TUNE_DIR`): its tune.json, read as build reads it, must have
// started from the reference and won with the run's own recipe (the candidate's draft in TUNE_DIR) in this run.
struct SearchEvidence {
  std::string text;                                          ///< tune.json
  std::vector<std::pair<fs::path, std::string>> trial_logs;  ///< each trial's log -> evidence path
};

SearchEvidence search_record(const fs::path& tune_dir, const fs::path& run_dir, const RunPlan& p,
                             const std::string& reference) {
  const fs::path file = tune_dir / "tune.json";
  const std::string where = "--search " + tune_dir.string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw InputError(where, "no tune.json in the folder", "give the TUNE_DIR openrecipes tune wrote (-o TUNE_DIR)");
  SearchEvidence out;
  out.text = read_file(file, evidence::kMaxSearchBytes);
  const auto s = evidence::parse_tune_search(out.text, file.string());
  if (s.recipe != reference)
    throw InputError(
        file.string(),
        fmt::format("the search started from {}, not from the reference {}", quote_for_message(s.recipe), reference),
        "give --reference the recipe the search started from");
  if (!s.winner || s.winner->start || s.winner->run_dir.empty())
    throw InputError(file.string(), "the search hands back no run of a variant (no winner, or the start won)",
                     "submit a run of a search that found a faster variant");
  auto same = [&](const fs::path& a, const fs::path& b) {
    std::error_code e1, e2;
    return fs::equivalent(a, b, e1) && !e1 && !e2;
  };
  const fs::path draft = tune_draft_dir(tune_dir, p.model, p.gpu, s.winner->candidate);
  if (!same(tune_dir / s.winner->run_dir, run_dir) || !same(p.recipe_dir, draft))
    throw InputError(where,
                     fmt::format("the run is not the search's winner ({}, a run of {})",
                                 (tune_dir / s.winner->run_dir).string(), s.winner->candidate),
                     "submit the winner's run the search left (TUNE_DIR/" + s.winner->run_dir + ")");
  // Each trial's step log (its last node's, where Megatron prints the steps): build recomputes its numbers from it.
  for (const auto& t : s.trials) {
    if (t.run_dir.empty()) continue;
    const fs::path log = tune_dir / t.run_dir / step_log_file(LaunchMode::megatron, s.nodes);  // tune: Megatron-LM
    if (!fs::is_regular_file(log, ec)) {
      if (t.recomputed())
        throw InputError(log.string(),
                         fmt::format("trial {}'s log is missing, and the search records its numbers", t.trial),
                         "submit the TUNE_DIR as tune left it");
      continue;
    }
    if (fs::file_size(log, ec) > kMaxTextFileBytes)
      throw InputError(log.string(), "over the registry's limit for one evidence file", "keep trials short");
    out.trial_logs.emplace_back(log, evidence::trial_log_path(kSearchFile, t.trial));
  }
  return out;
}

// The recipe's name: --name, else <source folder>-<author>-<the step log's sha256, 8 digits> (at most 80).
std::string recipe_name(const SubmitRequest& req, const RunPlan& p, const std::string& log_sha) {
  if (!req.name.empty()) return req.name;
  std::string author;
  for (char c : req.author) author += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string name = fs::path(p.recipe_dir).filename().string() + "-" + author + "-" + log_sha.substr(0, 8);
  if (name.size() > 80) name = name.substr(name.size() - 80);
  return name;
}

// The run's files that become evidence/: the step log, the argument dump (when it is another node's log), the
// versions and the scheduler times, each within the registry's size limit for one evidence file.
struct EvidenceCopies {
  std::vector<std::pair<std::string, std::string>> copies;  // run-dir path -> evidence/ name
  bool args_apart = false;
  std::string times_name;
};

EvidenceCopies evidence_copies(const fs::path& run_dir, const RunRecord& rec) {
  EvidenceCopies ev;
  ev.copies.push_back({rec.log.path, "evidence/train.log"});
  ev.args_apart = rec.arguments.path != rec.log.path;
  if (ev.args_apart) ev.copies.push_back({rec.arguments.path, "evidence/arguments.log"});
  ev.copies.push_back({rec.versions.path, "evidence/versions.txt"});
  ev.times_name = rec.times.format == "launcher" ? "evidence/times.txt"
                  : rec.times.format == "sacct"  ? "evidence/sacct.txt"
                                                 : "evidence/scontrol.txt";
  ev.copies.push_back({rec.times.path, ev.times_name});
  std::error_code ec;
  for (const auto& [from, to] : ev.copies)
    if (fs::file_size(run_dir / from, ec) > kMaxTextFileBytes)
      throw InputError((run_dir / from).string(),
                       fmt::format("over the registry's limit of {} bytes for one evidence file", kMaxTextFileBytes),
                       "keep the run's output smaller (a log of --log-interval 1 is far below it)");
  return ev;
}

}  // namespace

SubmitResult submit_run(const SubmitRequest& req) {
  const CheckedRun run = read_run_dir(req.run_dir);
  const RunPlan& p = run.plan;
  const RunRecord& rec = run.record;
  const fs::path run_dir = req.run_dir;
  require_completed(run_dir, rec);
  if (!registry::is_github_handle(req.author))
    throw InputError("--author " + quote_for_message(req.author), "not a GitHub handle", "give your GitHub user name");
  const SourceRecipe from = source_recipe(run_dir, p);
  const registry::Recipe& source = from.recipe;
  const PlannedCommand& planned = from.planned;

  // `--reference none`: the recipe is the reference of a new pair (it passes both checks trivially, SPEC §4).
  const bool is_root = req.reference == "none";
  const fs::path ref_dir = registry::recipe_folder(req.reference);
  const auto reference = is_root ? source : registry::load_recipe(ref_dir);
  if (!is_root && (reference.model != p.model || reference.gpu != p.gpu))
    throw InputError(
        "--reference " + reference.id,
        fmt::format("the reference is {} on {}, the run is {} on {}", reference.model, reference.gpu, p.model, p.gpu),
        "give a reference recipe of the same model and GPU type");

  const auto reg = registry::load_registry(req.registry);
  if (!reg.models.count(p.model))
    throw InputError(req.registry.string(), "the registry has no model " + p.model,
                     "submit into the registry the recipe came from");
  if (!reg.gpus.count(p.gpu))
    throw InputError(req.registry.string(), "the registry has no GPU type " + p.gpu,
                     "submit into the registry the recipe came from");

  std::string log_sha(64, '0');
  for (const auto& f : rec.files)
    if (f.path == rec.log.path) log_sha = f.sha256;
  const std::string name = recipe_name(req, p, log_sha);
  if (!registry::is_registry_name(name))
    throw InputError("--name " + quote_for_message(name), "not a recipe id",
                     "use lowercase letters, digits, '.', '_' and '-' (at most 80)");
  const fs::path target = fs::path(req.registry) / "recipes" / p.model / p.gpu / name;
  std::error_code ec;
  if (fs::exists(target, ec))
    throw InputError(target.string(), "a recipe folder of that name exists", "give another --name");

  const EvidenceCopies ev = evidence_copies(run_dir, rec);
  const auto& copies = ev.copies;
  const bool args_apart = ev.args_apart;
  const std::string& times_name = ev.times_name;

  const auto component = component_outputs(req.component_tests, source.id);
  if (!req.search.empty() && is_root)
    throw InputError("--search " + req.search.string(), "a search's winner is tuned from the search's start",
                     "give --reference the recipe the search started from");
  const SearchEvidence search =
      req.search.empty() ? SearchEvidence{} : search_record(req.search, run_dir, p, reference.id);
  const auto versions = evidence::parse_versions(read_file(run_dir / rec.versions.path), rec.versions.path);
  require_pinned_commit(source, versions, rec.versions.path);
  const auto args = evidence::find_megatron_args(read_file(run_dir / rec.arguments.path), rec.arguments.path);
  const std::string date = measured_day(run_dir, rec);
  require_new_log(reg, log_sha, rec.log.path);

  // The recipe, in load_recipe's schema (registry::recipe_yaml writes it); its claims are computed below.
  registry::Recipe out = source;
  out.name = name;
  out.gpus = p.gpus;
  out.author = req.author;
  out.author_link = "https://github.com/" + req.author;
  out.date = date;
  out.reference = is_root ? std::nullopt : std::optional<std::string>(reference.id);
  out.steps_per_run = p.train_iters > 0 ? p.train_iters : source.steps_per_run;
  if (!(source.window && p.train_iters == source.steps_per_run)) out.window.reset();
  out.log = {{}, "evidence/train.log", rec.log.format, ""};
  out.arguments =
      registry::EvidenceFile{{}, args_apart ? "evidence/arguments.log" : "evidence/train.log", "megatron-args", ""};
  out.versions = registry::EvidenceFile{{}, "evidence/versions.txt", "versions", ""};
  out.times = registry::EvidenceFile{{}, times_name, rec.times.format, rec.times.key};
  out.convergence_arm.reset();
  out.launch = registry::EvidenceFile{{}, "evidence/launch.json", "launch", ""};
  out.search.reset();
  if (!search.text.empty()) out.search = registry::EvidenceFile{{}, kSearchFile, "openrecipes-tune", ""};
  out.command = planned.command;
  out.layout = planned.layout;
  out.stack = probed_stack(source, p, rec, versions, args);
  out.claims = {0, 0, 0, "ineligible", "fail", std::nullopt, std::nullopt, std::nullopt};
  // Component tests: the records are computed from the raw outputs (never typed), which become evidence.
  out.component_tests.clear();
  for (const auto& [test, file_raw] : component)
    out.component_tests.push_back(component_record(file_raw.second, reg.models.at(p.model).layer_shape,
                                                   "evidence/component-tests/" + test + ".json"));
  const std::string comment = fmt::format(
      "Submitted by openrecipes submit from a run of {} ({} launcher{}); every claim below was\n"
      "computed from evidence/ by the build's own evaluation.{}",
      source.id, p.launcher == "slurm" ? "slurm" : "local",
      rec.times.format == "launcher" ? "" : ", Slurm job " + rec.times.key,
      search.text.empty() ? "" : fmt::format("\nFound by openrecipes tune from {} ({}).", reference.id, kSearchFile));

  // Staged beside the target under <model>/<gpu>/<name>, loaded there exactly as it will load at its place, then
  // swapped in: the registry never holds half a recipe, nor one that does not load.
  auto fill = [&](const fs::path& temp) {
    fs::create_directories(temp / "evidence");
    for (const auto& [from, to] : copies) fs::copy_file(run_dir / from, temp / to);
    write_file_atomic(temp / "evidence/launch.json", evidence::launch_json(p.env, p.argv));
    if (!search.text.empty()) {
      write_file_atomic(temp / kSearchFile, search.text);
      for (const auto& [from, to] : search.trial_logs) {
        fs::create_directories((temp / to).parent_path());
        fs::copy_file(from, temp / to);
      }
    }
    if (!component.empty()) fs::create_directories(temp / "evidence/component-tests");
    for (const auto& [test, file_raw] : component)
      fs::copy_file(file_raw.first, temp / "evidence/component-tests" / (test + ".json"));
    for (const auto& patch : source.patches) {
      const fs::path dest = resolve_inside(temp, patch.relative, "patches");
      fs::create_directories(dest.parent_path());
      fs::copy_file(patch.path, dest);
    }
    write_file_atomic(temp / "recipe.yaml", registry::recipe_yaml(out, comment));
  };
  auto loads = [](const fs::path& temp) {
    try {
      registry::load_recipe(temp);
    } catch (const InputError& e) {
      throw InputError(e.where(), "the recipe submit would write does not load: " + e.problem(), kAsLeft);
    }
  };
  registry::write_folder(target, fs::path(source.model) / source.gpu / name, "submit", false, fill, loads);
  struct RemoveOnFailure {
    fs::path dir;
    ~RemoveOnFailure() {
      std::error_code e;
      if (!dir.empty()) fs::remove_all(dir, e);
    }
  } cleanup{target};  // removed again if anything below fails

  // Claims: evaluated once with placeholders, written from what the build computed, and evaluated again.
  const std::string id = source.model + "/" + source.gpu + "/" + name;
  out.claims = registry::computed_claims(evaluate_one(req.registry, id));
  write_file_atomic(target / "recipe.yaml", registry::recipe_yaml(out, comment));
  SubmitResult result;
  result.id = id;
  result.dir = target;
  result.evaluation = evaluate_one(req.registry, id);
  cleanup.dir.clear();
  return result;
}

}  // namespace openrecipes::run
