// submit: run directory -> recipe folder with claims computed by the build's own evaluation (run/submit.h).
#include "run/submit.h"

#include <fmt/format.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/sha256.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/scheduler_times.h"
#include "evidence/step_log.h"
#include "evidence/versions.h"
#include "registry/recipe.h"
#include "registry/registry.h"
#include "run/capture.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;

// A YAML scalar for any string: a double-quoted JSON string is valid YAML and escapes every control character.
std::string q(const std::string& s) { return nlohmann::json(s).dump(); }

// The command as a literal block when it is plain printable lines, else one quoted string.
std::string command_yaml(const std::string& c) {
  const bool plain = !c.empty() && c[0] != ' ' && c[0] != '\n' && std::none_of(c.begin(), c.end(), [](char ch) {
    return (static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7f;
  });
  if (!plain) return "command: " + q(c) + "\n";
  std::string body = c;
  std::string chomp = "-";
  if (body.ends_with("\n")) {
    body.pop_back();
    chomp = body.ends_with("\n") ? "+" : "";
    if (chomp == "+") body = c.substr(0, c.size() - 1);
  }
  std::string out = "command: |" + chomp + "\n";
  for (auto line : split(body, '\n')) out += line.empty() ? "\n" : "  " + std::string(line) + "\n";
  return out;
}

// The versions the probe saw for `name` (any spelling), preferring a build-tagged one (torch's own "2.11.0+cu130"
// over pip's "2.11.0"); "unknown" when it saw none.
std::string seen(const evidence::VersionDump& d, const std::string& name) {
  const auto& v = d.of(name);
  if (v.empty()) return "unknown";
  for (const auto& x : v)
    if (x.find('+') != std::string::npos) return x;
  return *v.rbegin();
}

std::string number(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string claims_yaml(const registry::RecipeResult* r) {
  if (!r || !r->throughput)
    return "claims:\n  tokens_per_s_per_gpu: 0\n  cv: 0\n  gpu_hours: 0\n  configuration: ineligible\n"
           "  convergence: {verdict: fail}\n";
  std::string s = "claims:\n";
  s += "  tokens_per_s_per_gpu: " + number(r->throughput->tokens_per_s_per_gpu, 2) + "\n";
  s += "  cv: " + number(r->throughput->cv, 5) + "\n";
  s += "  gpu_hours: " + (r->gpu_hours ? fmt::format("{:.6g}", *r->gpu_hours) : std::string("0")) + "\n";
  s += std::string("  configuration: ") + (r->configuration && r->configuration->eligible ? "eligible" : "ineligible") +
       "\n";
  if (r->convergence) {
    const auto& c = *r->convergence;
    s += fmt::format("  convergence: {{verdict: {}", c.passed ? "pass" : "fail");
    if (std::isfinite(c.correlation)) s += ", correlation: " + number(c.correlation, 4);
    if (std::isfinite(c.final_loss_rel_diff)) s += fmt::format(", final_loss_rel_diff: {:.3g}", c.final_loss_rel_diff);
    s += fmt::format(", pointwise_failures: {}}}\n", c.pointwise_failures);
  } else {
    s += std::string("  convergence: {verdict: ") + (r->is_reference ? "pass" : "fail") + "}\n";
  }
  return s;
}

registry::RecipeResult evaluate_one(const fs::path& registry_root, const std::string& id) {
  const auto reg = registry::load_registry(registry_root);
  for (auto& r : registry::evaluate_registry(reg))
    if (r.id == id) {
      r.entry = nullptr;
      return r;
    }
  throw InputError(registry_root.string(), "the submitted recipe " + id + " is not in the registry after writing it");
}

}  // namespace

SubmitResult submit_run(const SubmitRequest& req) {
  const CheckedRun run = read_run_dir(req.run_dir);
  const RunPlan& p = run.plan;
  const RunRecord& rec = run.record;
  const std::string where = (req.run_dir / "run.json").string();
  if (rec.status != "completed")
    throw InputError(where,
                     fmt::format("the run {}: {}", rec.status, rec.reason.empty() ? "no reason given" : rec.reason),
                     "only a completed run can be submitted: fix what stopped it and run the recipe again");
  if (!rec.convergence_arm)
    throw InputError(where, "a --profile run is not a convergence arm (it runs to step 24)",
                     "submit a run of the recipe's own length (openrecipes run without --profile)");
  if (!registry::is_github_handle(req.author))
    throw InputError("--author " + quote_for_message(req.author), "not a GitHub handle", "give your GitHub user name");

  for (const auto& f : rec.files)  // every node's own exit status, as its task wrote it
    if (f.path.starts_with("nodes/") && f.path.ends_with("/exit.txt") &&
        trim(read_file(req.run_dir / f.path, 64)) != "0")
      throw InputError((req.run_dir / f.path).string(), "a node's exit status is not 0",
                       "only a run that exited 0 on every node can be submitted: run the recipe again");
  if (rec.exit_code != 0)
    throw InputError(where, fmt::format("the run is marked completed but its exit status is {}", rec.exit_code),
                     "only a run that exited 0 can be submitted: run the recipe again");

  // The recipe the run came from must be the one it ran (its workload, framework and patches are taken from it, never
  // from plan.json, which anyone can edit).
  const auto source = registry::load_recipe(p.recipe_dir, registry::RecipeLoad::draft);
  if (sha256_hex(read_file(source.file)) != p.recipe_sha256)
    throw InputError(source.file.string(),
                     "the recipe changed after the run (its sha256 is not the one plan.json records)",
                     "run the recipe as it is now, or restore it");
  const std::string plan_file = (req.run_dir / "plan.json").string();
  const char* as_left = "submit the run directory as openrecipes run left it";
  if (source.id != p.recipe_id || source.stack.framework != p.framework || source.model != p.model ||
      source.gpu != p.gpu)
    throw InputError(plan_file, "plan.json does not name the recipe it ran (its id, model, GPU or framework differ)",
                     as_left);
  if (source.patches.size() != p.patches.size())
    throw InputError(plan_file, "plan.json's patches are not the recipe's", as_left);
  for (std::size_t i = 0; i < source.patches.size(); ++i) {
    const auto& patch = source.patches[i];
    if (p.patches[i].sha256 != patch.sha256)
      throw InputError(plan_file, "plan.json's patches are not the recipe's", as_left);
    if (sha256_hex(read_file(patch.path)) != patch.sha256)
      throw InputError(patch.path.string(), "the patch changed after the run (its sha256 is not the recipe's)",
                       "restore the patch the run applied");
  }
  // The evidence formats and the job id are the ones run writes (they are written into recipe.yaml).
  const auto& log_formats = evidence::step_log_formats();
  if (std::find(log_formats.begin(), log_formats.end(), rec.log.format) == log_formats.end() ||
      rec.arguments.format != "megatron-args" || rec.versions.format != "versions" ||
      !(rec.times.format == "launcher" || rec.times.format == "sacct" || rec.times.format == "scontrol") ||
      !std::regex_match(rec.times.key, std::regex(rec.times.format == "launcher" ? "run" : "[0-9][0-9_.]{0,40}")))
    throw InputError(where, "the evidence formats or the job id are not ones openrecipes run writes", as_left);
  // `--reference none`: the recipe is the reference of a new pair (it passes both checks trivially, SPEC §4).
  const bool is_root = req.reference == "none";
  const fs::path ref_dir = req.reference.filename() == "recipe.yaml" ? req.reference.parent_path() : req.reference;
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

  const auto log_sha = [&] {
    for (const auto& f : rec.files)
      if (f.path == rec.log.path) return f.sha256;
    return std::string(64, '0');
  }();
  std::string name = req.name;
  if (name.empty()) {
    std::string author;
    for (char c : req.author) author += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    name = fs::path(p.recipe_dir).filename().string() + "-" + author + "-" + log_sha.substr(0, 8);
    if (name.size() > 80) name = name.substr(name.size() - 80);
  }
  if (!registry::is_recipe_name(name))
    throw InputError("--name " + quote_for_message(name), "not a recipe id",
                     "use lowercase letters, digits, '.', '_' and '-' (at most 80)");
  const fs::path target = fs::path(req.registry) / "recipes" / p.model / p.gpu / name;
  std::error_code ec;
  if (fs::exists(target, ec))
    throw InputError(target.string(), "a recipe folder of that name exists", "give another --name");

  // Evidence: the step log, the argument dump (when it is another node's log), the versions, the scheduler times.
  const fs::path run_dir = req.run_dir;
  std::vector<std::pair<std::string, std::string>> copies;  // run-dir path -> evidence/ name
  copies.push_back({rec.log.path, "evidence/train.log"});
  const bool args_apart = rec.arguments.path != rec.log.path;
  if (args_apart) copies.push_back({rec.arguments.path, "evidence/arguments.log"});
  copies.push_back({rec.versions.path, "evidence/versions.txt"});
  const std::string times_name = rec.times.format == "launcher" ? "evidence/times.txt"
                                 : rec.times.format == "sacct"  ? "evidence/sacct.txt"
                                                                : "evidence/scontrol.txt";
  copies.push_back({rec.times.path, times_name});

  const std::string versions_text = read_file(run_dir / rec.versions.path);
  const auto versions = evidence::parse_versions(versions_text, rec.versions.path);
  const std::string args_text = read_file(run_dir / rec.arguments.path);
  const auto args = evidence::find_megatron_args(args_text, rec.arguments.path);

  // When it was measured: the UTC day the scheduler says the run finished.
  const std::string times_text = read_file(run_dir / rec.times.path);
  const auto t = evidence::parse_run_times(times_text, rec.times.path, rec.times.format, rec.times.key);
  if (t.exit_code != 0 || (!t.state.empty() && t.state != "COMPLETED"))
    throw InputError(
        rec.times.path,
        fmt::format("the scheduler says the run exited {}{}", t.exit_code, t.state.empty() ? "" : " (" + t.state + ")"),
        "only a run that exited 0 can be submitted: run the recipe again");
  // The same evidence twice would rank twice: refuse a log the registry already holds.
  for (const auto& e : reg.recipes) {
    if (!e.recipe) continue;
    std::vector<const registry::EvidenceFile*> logs = {&e.recipe->log};
    if (e.recipe->convergence_arm) logs.push_back(&*e.recipe->convergence_arm);
    for (const auto* f : logs)
      if (fs::is_regular_file(f->path, ec) && fs::file_size(f->path, ec) <= kMaxTextFileBytes &&
          sha256_hex(read_file(f->path)) == log_sha)
        throw InputError(rec.log.path, "this log is already the evidence of " + e.id,
                         "a run is submitted once: run the recipe again for another recipe");
  }
  for (const auto& [from, to] : copies) {
    const fs::path src = run_dir / from;
    if (fs::file_size(src, ec) > kMaxTextFileBytes)
      throw InputError(src.string(),
                       fmt::format("over the registry's limit of {} bytes for one evidence file", kMaxTextFileBytes),
                       "keep the run's output smaller (a log of --log-interval 1 is far below it)");
  }
  const std::time_t end = static_cast<std::time_t>(t.finished_s);
  std::tm tm{};
  gmtime_r(&end, &tm);
  const std::string date = fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);

  std::string y;
  y += fmt::format(
      "# Submitted by openrecipes submit from a run of {} ({} launcher{}); every claim below was\n"
      "# computed from evidence/ by the build's own evaluation.\n",
      source.id, p.launcher == "slurm" ? "slurm" : "local",
      rec.times.format == "launcher" ? "" : ", Slurm job " + rec.times.key);
  y += "id: " + name + "\nmodel: " + source.model + "\ngpu: " + q(source.gpu) + "\n";
  y += fmt::format("gpus: {}\n", p.gpus);
  y += "author:\n  github: " + req.author + "\n";
  y += "date: " + date + "\n";
  y += "reference: " + (is_root ? std::string("null") : reference.name) + "\n";
  const auto& w = source.workload;
  y += "workload:\n";
  if (w.standard) {
    y += "  kind: standard\n";
    y += "  dataset: " + q(w.dataset) + "\n  revision: " + q(w.revision) + "\n  tokenizer: " + q(w.tokenizer) +
         "\n  tokenizer_revision: " + q(w.tokenizer_revision) + fmt::format("\n  seed: {}\n", w.seed);
    y += fmt::format("  rows: {{count: {}, sha256: {}}}\n", w.rows_count, w.rows_sha256);
  } else {
    y += "  kind: non-standard\n  key: " + q(w.key) + "\n  description: " + q(w.description) + "\n";
  }
  y += fmt::format("  row_length: {}\n  global_batch: {}\n", w.row_length, w.global_batch);
  y += fmt::format("steps_per_run: {}\n", p.train_iters > 0 ? p.train_iters : source.steps_per_run);
  if (source.window && p.train_iters == source.steps_per_run)
    y += fmt::format("window: {{first: {}, last: {}}}\n", source.window->first, source.window->last);
  y += "evidence:\n";
  y += fmt::format("  log: {{path: evidence/train.log, format: {}}}\n", rec.log.format);
  y += fmt::format("  arguments: {{path: {}, format: megatron-args}}\n",
                   args_apart ? "evidence/arguments.log" : "evidence/train.log");
  y += "  versions: {path: evidence/versions.txt, format: versions}\n";
  y += fmt::format("  times: {{path: {}, format: {}, {}: {}}}\n", times_name, rec.times.format,
                   rec.times.format == "launcher" ? "run" : "job", q(rec.times.key));
  y += command_yaml(p.command);
  const auto& l = p.layout;
  y += fmt::format("layout: {{tp: {}, pp: {}, cp: {}, ep: {}, etp: {}, dp: {}, micro_batch: {}", l.tp, l.pp, l.cp, l.ep,
                   l.etp, l.dp, l.micro_batch);
  if (l.vpp) y += fmt::format(", vpp: {}", *l.vpp);
  if (l.max_tokens_per_gpu) y += fmt::format(", max_tokens_per_gpu: {}", *l.max_tokens_per_gpu);
  y += "}\n";
  y += "stack:\n";
  const std::string fw_commit =
      seen(versions, p.framework == "megatron-lm" ? "megatron_lm_commit" : p.framework + "_commit");
  y += "  framework: {name: " + source.stack.framework + ", commit: " + q(fw_commit) + "}\n";
  if (p.framework != "megatron-lm") y += "  megatron_lm: " + q(seen(versions, "megatron_lm_commit")) + "\n";
  std::string te = seen(versions, "transformer_engine");
  if (te == "unknown" && args && args->values.count("transformer_impl") &&
      args->values.at("transformer_impl") == "local")
    te = "none";
  y += "  transformer_engine: " + q(te) + "\n";
  y += "  pytorch: " + q(seen(versions, "torch")) + "\n  cuda: " + q(seen(versions, "cuda")) +
       "\n  nccl: " + q(seen(versions, "nccl")) + "\n";
  if (!versions.of("deep_ep").empty()) y += "  comm_libraries: {deep_ep: " + q(seen(versions, "deep_ep")) + "}\n";
  y += fmt::format("  gpus_per_node: {}\n", p.gpus_per_node);
  y += "  network: " + q(rec.network) + "\n";
  std::vector<std::pair<fs::path, std::string>> patch_copies;  // the recipe's own patch files, by their paths
  if (!source.patches.empty()) {
    y += "patches:\n";
    for (const auto& patch : source.patches) {
      patch_copies.push_back({patch.path, patch.relative});
      y += "  - {path: " + q(patch.relative) + ", sha256: " + patch.sha256 + "}\n";
    }
  }
  if (!source.component_tests.empty()) {
    y += "component_tests:\n";
    for (const auto& c : source.component_tests) {
      y += "  - swap: " + q(c.swap) + "\n    compares: " + q(c.compares) + "\n    shape: {";
      bool first = true;
      for (const auto& [k, v] : c.shape) y += fmt::format("{}{}: {}", first ? "" : ", ", k, v), first = false;
      y += fmt::format("}}\n    bound: {}\n    worst_error: {}\n    passed: {}\n", format_double(c.bound),
                       format_double(c.worst_error), c.passed ? "true" : "false");
    }
  }

  // Written into a temp folder beside the target, then renamed: the registry never holds half a recipe.
  const fs::path parent = target.parent_path();
  fs::create_directories(parent);
  // <parent>/.<name>.submit.tmp/<model>/<gpu>/<name>: the recipe loads there exactly as it will at its place.
  const fs::path outer = parent / ("." + name + ".submit.tmp");
  fs::remove_all(outer, ec);
  const fs::path temp = outer / source.model / source.gpu / name;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code e;
      if (!dir.empty()) fs::remove_all(dir, e);
    }
  } cleanup{outer};
  fs::create_directories(temp / "evidence");
  for (const auto& [from, to] : copies) fs::copy_file(run_dir / from, temp / to);
  for (const auto& [from, to] : patch_copies) {
    const fs::path dest = resolve_inside(temp, to, "patches");
    fs::create_directories(dest.parent_path());
    fs::copy_file(from, dest);
  }
  write_file_atomic(temp / "recipe.yaml", y + claims_yaml(nullptr));
  // What the registry will load: checked in the temp folder, so a recipe that does not load is never written.
  try {
    registry::load_recipe(temp);
  } catch (const InputError& e) {
    throw InputError(e.where(), "the recipe submit would write does not load: " + e.problem(), as_left);
  }
  fs::rename(temp, target);
  fs::remove_all(outer, ec);
  cleanup.dir = target;  // removed again if anything below fails

  // Claims: evaluated once with placeholders, written from what the build computed, and evaluated again.
  const std::string id = source.model + "/" + source.gpu + "/" + name;
  const auto first = evaluate_one(req.registry, id);
  write_file_atomic(target / "recipe.yaml", y + claims_yaml(&first));
  SubmitResult out;
  out.id = id;
  out.dir = target;
  out.evaluation = evaluate_one(req.registry, id);

  cleanup.dir.clear();
  return out;
}

}  // namespace openrecipes::run
