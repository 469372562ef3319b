// recipe.yaml loader and validator (docs/recipe-format.md).
#include "registry/recipe.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "core/calendar.h"
#include "core/error.h"
#include "core/files.h"
#include "core/protocol.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/yaml.h"
#include "evidence/step_log.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;
namespace {

const std::regex kName("[a-z0-9][a-z0-9._-]{0,79}");
const std::regex kDate("20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])");
const std::regex kHandle("[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}");
const std::regex kCommit("[0-9a-f]{7,40}");

std::string name_field(const YamlField& f, const char* what) {
  std::string s = f.as_string(80);
  if (!std::regex_match(s, kName))
    throw InputError(f.where(), fmt::format("{} '{}' must be lowercase letters, digits, '.', '_' or '-'", what, s));
  return s;
}

EvidenceFile evidence_file(const YamlField& f, const fs::path& dir, const std::vector<std::string>& formats,
                           bool needs_run) {
  f.reject_unknown_keys({"path", "format", "run", "job"});
  EvidenceFile e;
  e.relative = f.require("path").as_string(400);
  e.path = resolve_inside(dir, e.relative, f["path"].where());
  std::error_code ec;
  if (fs::exists(e.path, ec) && !fs::is_regular_file(e.path, ec))
    throw InputError(f["path"].where(),
                     "evidence file '" + e.relative + "' is not a regular file (a folder, a device or a pipe)",
                     "give the path of the file itself");
  if (!fs::is_regular_file(e.path, ec))
    throw InputError(f["path"].where(), "evidence file '" + e.relative + "' does not exist",
                     "add the file to the recipe's evidence/ folder or fix the path");
  e.format = f.require("format").as_string(40);
  if (std::find(formats.begin(), formats.end(), e.format) == formats.end()) {
    std::string list;
    for (const auto& x : formats) list += (list.empty() ? "" : ", ") + x;
    throw InputError(f["format"].where(), "unknown evidence format '" + e.format + "'", "use one of: " + list);
  }
  if (needs_run) {
    if (e.format == "launcher")
      e.run = f.require("run").as_string(80);
    else
      e.run = f.require("job").as_string(80);
  }
  return e;
}

std::int64_t parallel_size(const YamlField& f) { return f.as_int(1, 1 << 20); }

}  // namespace

namespace {

// recipe.yaml itself: a symbolic link is followed only when it stays inside the recipe's folder.
void resolve_recipe_file(const fs::path& dir, Recipe& r) {
  if (fs::is_symlink(r.file)) {
    // Never read a recipe.yaml that lives outside its recipe folder (its content would reach the messages).
    try {
      r.file = resolve_inside(dir, "recipe.yaml", r.file.string());
    } catch (const InputError&) {
      std::error_code ec;
      auto target = fs::read_symlink(dir / "recipe.yaml", ec);
      throw InputError((dir / "recipe.yaml").string(),
                       "recipe.yaml is a symbolic link to '" + (ec ? std::string("?") : target.string()) +
                           "', outside the recipe's folder; it is not read",
                       "make recipe.yaml a regular file inside the recipe's folder");
    }
  }
}

// id, model, gpu (each must match the folder), gpus, author, date and reference.
// Reads one part of a recipe.yaml and keeps its problem (load_recipe's), so a problem hides none in the parts after it.
using Part = std::function<void(const std::function<void()>&)>;

void read_identity(const YamlField& y, const fs::path& dir, Recipe& r, const Part& part) {
  auto folder_must_match = [&](const char* field, const std::string& folder) {
    std::string v = y.require(field).as_string(80);
    if (v != folder)
      throw InputError(y[field].where(),
                       fmt::format("{} '{}' does not match the recipe's folder '{}'", field, v, folder),
                       "recipes live in registry/recipes/<model>/<gpu>/<id>/");
  };
  part([&] {
    if (!std::regex_match(r.name, kName))
      throw InputError(dir.string(), "recipe folder name must be lowercase letters, digits, '.', '_' or '-'");
    // The model and GPU folders are names too (they reach file names, pages and scripts): the same alphabet as ids.
    static const std::regex model_name("[a-z0-9][a-z0-9._-]{0,79}"), gpu_name("[A-Za-z0-9][A-Za-z0-9_.-]{0,31}");
    if (!std::regex_match(r.model, model_name))
      throw InputError(dir.string(), "the model folder name must be lowercase letters, digits, '.', '_' or '-'",
                       "name the folder after registry/models/<model>.yaml");
    if (!std::regex_match(r.gpu, gpu_name))
      throw InputError(dir.string(), "the GPU folder name must be letters, digits, '.', '_' or '-' (at most 32)",
                       "name the folder after a key of registry/gpus.yaml");
  });
  part([&] { folder_must_match("id", r.name); });
  part([&] { folder_must_match("model", r.model); });
  part([&] { folder_must_match("gpu", r.gpu); });
  part([&] { r.gpus = y.require("gpus").as_int(1, 100000); });
  part([&] {
    auto author = y.require("author");
    author.reject_unknown_keys({"github", "name", "link"});
    if (author["github"].defined()) {
      r.author = author["github"].as_string(39);
      if (!std::regex_match(r.author, kHandle)) throw InputError(author["github"].where(), "not a GitHub handle");
      r.author_link = "https://github.com/" + r.author;
    } else {
      r.author = author.require("name").as_string(100);
      r.author_link = author.require("link").as_string(300);
      if (r.author_link.rfind("https://", 0) != 0 || r.author_link.find_first_of(" \"'<>") != std::string::npos)
        throw InputError(author["link"].where(), "the link must be an https:// URL");
    }
  });
  part([&] {
    r.date = y.require("date").as_string(10);
    if (!std::regex_match(r.date, kDate) || !is_calendar_date(r.date))
      throw InputError(y["date"].where(), "'" + r.date + "' is not a calendar date YYYY-MM-DD",
                       "give the day the run was measured, e.g. 2026-02-28");
  });
  part([&] {
    if (auto ref = y["reference"].string_or_null(200)) {
      static const std::regex full(
          "([a-z0-9][a-z0-9._-]{0,79})/([A-Za-z0-9][A-Za-z0-9_.-]{0,31})/([a-z0-9][a-z0-9._-]{0,79})");
      if (std::regex_match(*ref, kName))
        r.reference = r.model + "/" + r.gpu + "/" + *ref;
      else if (std::regex_match(*ref, full))
        r.reference = *ref;
      else
        throw InputError(y["reference"].where(), "reference must be a recipe id ('<id>' or '<model>/<gpu>/<id>')");
      if (*r.reference == r.id)
        throw InputError(y["reference"].where(), "a recipe cannot be its own reference",
                         "write reference: null for a reference recipe");
    }
  });
}

// workload.rows: {count, sha256}, the rows the run trained on (SPEC §1.8).
void read_rows(const YamlField& rows, Workload& w) {
  rows.reject_unknown_keys({"count", "sha256"});
  w.rows_count = rows.require("count").as_int(1, std::int64_t{1} << 40);
  w.rows_sha256 = rows.require("sha256").as_string(64);
  if (!is_sha256_hex(w.rows_sha256))
    throw InputError(rows["sha256"].where(), "expected 64 lowercase hex digits",
                     "copy rows_sha256 from the build's manifest");
}

// workload: the standard Tulu 3 rows (dataset, tokenizer, seed, rows count and sha256) or a declared one (which may
// record its rows too).
void read_workload(const YamlField& y, Recipe& r) {
  auto w = y.require("workload");
  std::string kind = w.require("kind").as_string(20);
  if (kind == "standard") {
    w.reject_unknown_keys({"kind", "dataset", "revision", "tokenizer", "tokenizer_revision", "seed", "row_length",
                           "global_batch", "rows"});
    r.workload.standard = true;
    r.workload.key = "tulu3-sft";
    r.workload.dataset = w.require("dataset").as_string(200);
    r.workload.revision = w.require("revision").as_string(40);
    if (!std::regex_match(r.workload.revision, std::regex("[0-9a-f]{40}")))
      throw InputError(w["revision"].where(), "expected the dataset's 40-hex-digit revision");
    r.workload.tokenizer = w.require("tokenizer").as_string(200);
    r.workload.tokenizer_revision = w["tokenizer_revision"].string_or_null(40).value_or("");
    r.workload.seed = w.require("seed").as_int(0, INT64_MAX);
    read_rows(w.require("rows"), r.workload);
    r.workload.description = "Tulu 3 SFT mixture, packed rows";
  } else if (kind == "non-standard") {
    w.reject_unknown_keys({"kind", "key", "description", "row_length", "global_batch", "rows"});
    if (w["rows"].defined()) read_rows(w["rows"], r.workload);
    r.workload.key = name_field(w.require("key"), "workload key");
    if (r.workload.key == "tulu3-sft")
      throw InputError(w["key"].where(), "'tulu3-sft' is the standard workload's key",
                       "give the non-standard workload a key of its own (it forms its own pair)");
    r.workload.description = w.require("description").as_string(1000);
  } else {
    throw InputError(w["kind"].where(), "unknown workload kind '" + kind + "'", "use standard or non-standard");
  }
  r.workload.row_length = w.require("row_length").as_int(1, protocol::kMaxRowLength);
  r.workload.global_batch = w.require("global_batch").as_int(1, 1 << 24);
}

// steps_per_run and the optional declared window.
void read_run_length(const YamlField& y, Recipe& r, const Part& part) {
  part([&] { r.steps_per_run = y.require("steps_per_run").as_int(1, 100000); });
  if (y["window"].defined())
    part([&] {
      auto win = y["window"];
      win.reject_unknown_keys({"first", "last"});
      r.window = measure::Window{win.require("first").as_int(0, measure::kMaxWindowSteps),
                                 win.require("last").as_int(0, measure::kMaxWindowSteps)};
    });
}

// evidence: the step log, argument dump, versions, scheduler times, convergence arm, launched command and the search
// that found it, each inside the folder.
void read_evidence(const YamlField& y, const fs::path& dir, Recipe& r) {
  auto ev = y.require("evidence");
  ev.reject_unknown_keys({"log", "arguments", "versions", "times", "convergence_arm", "launch", "search"});
  r.log = evidence_file(ev.require("log"), dir, evidence::step_log_formats(), false);
  if (ev["arguments"].defined()) r.arguments = evidence_file(ev["arguments"], dir, {"megatron-args"}, false);
  if (ev["versions"].defined()) r.versions = evidence_file(ev["versions"], dir, {"versions"}, false);
  if (ev["times"].defined()) r.times = evidence_file(ev["times"], dir, {"launcher", "sacct", "scontrol"}, true);
  if (ev["convergence_arm"].defined())
    r.convergence_arm = evidence_file(ev["convergence_arm"], dir, evidence::step_log_formats(), false);
  if (ev["launch"].defined()) r.launch = evidence_file(ev["launch"], dir, {"launch"}, false);
  if (ev["search"].defined()) r.search = evidence_file(ev["search"], dir, {"openrecipes-tune"}, false);
}

// layout: the parallel sizes, checked against the GPU count and the global batch (layout::violations).
void read_layout(const YamlField& y, Recipe& r) {
  auto l = y.require("layout");
  l.reject_unknown_keys({"tp", "pp", "cp", "ep", "etp", "dp", "vpp", "micro_batch", "max_tokens_per_gpu"});
  r.layout.tp = parallel_size(l.require("tp"));
  r.layout.pp = parallel_size(l.require("pp"));
  r.layout.cp = parallel_size(l.require("cp"));
  r.layout.ep = parallel_size(l.require("ep"));
  r.layout.etp = parallel_size(l.require("etp"));
  r.layout.dp = parallel_size(l.require("dp"));
  if (l["vpp"].defined()) r.layout.vpp = parallel_size(l["vpp"]);
  r.layout.micro_batch = l.require("micro_batch").as_int(1, 1 << 20);
  if (l["max_tokens_per_gpu"].defined()) r.layout.max_tokens_per_gpu = l["max_tokens_per_gpu"].as_int(1, 1 << 30);
  // Against the GPU count and global batch only when their own sections were read (else their problem is said there).
  if (r.gpus < 1 || r.workload.global_batch < 1) return;
  if (auto broken = layout::violations(r.layout, r.gpus, r.workload.global_batch); !broken.empty())
    throw InputError(l.where(), broken.front().what, broken.front().fix);
}

// stack: framework and commit, Megatron-LM, Transformer Engine, PyTorch, CUDA, NCCL, communication libraries.
void read_stack(const YamlField& y, Recipe& r, bool draft) {
  auto s = y.require("stack");
  s.reject_unknown_keys({"framework", "megatron_lm", "transformer_engine", "pytorch", "cuda", "nccl", "comm_libraries",
                         "gpus_per_node", "network"});
  auto fw = s.require("framework");
  fw.reject_unknown_keys({"name", "commit"});
  r.stack.framework = fw.require("name").as_string(40);
  if (r.stack.framework != "slime" && r.stack.framework != "miles" && r.stack.framework != "megatron-lm")
    throw InputError(fw["name"].where(), "unknown framework '" + r.stack.framework + "'",
                     "use slime, miles or megatron-lm");
  // A version is printed to terminals, pages and `git checkout` lines: one word of the characters versions use; a
  // commit is 7 to 40 lowercase hex digits (never text a shell or a terminal would act on).
  static const std::regex version_word("[A-Za-z0-9][A-Za-z0-9._+:~-]{0,99}");
  auto version_of = [&](const YamlField& f, const std::string& component) {
    std::string v = f.as_string(100);
    if (!std::regex_match(v, version_word))
      throw InputError(f.where(),
                       "a version is one word of letters, digits and . _ + : ~ - (e.g. 2.11.0+cu130, or "
                       "'none' when not used)");
    const bool commit = component.ends_with("_commit") || component == "megatron_lm";
    if (commit && !std::regex_match(v, kCommit))
      throw InputError(f.where(), "a commit is 7 to 40 lowercase hex digits, not " + quote_for_message(v),
                       "give the checkout's git rev-parse HEAD");
    r.stack.versions.push_back({component, v});
  };
  // A draft (not yet run) need only name its framework: the run's probe finds the versions.
  auto field = [&](const char* key) -> std::optional<YamlField> {
    if (draft && !s[key].defined()) return std::nullopt;
    return s.require(key);
  };
  if (!draft || fw["commit"].defined()) version_of(fw.require("commit"), r.stack.framework + "_commit");
  if (r.stack.framework != "megatron-lm") {
    if (auto f = field("megatron_lm")) version_of(*f, "megatron_lm");
  } else if (s["megatron_lm"].defined()) {
    throw InputError(s["megatron_lm"].where(),
                     "the framework is Megatron-LM itself; give its commit once, as framework.commit");
  }
  for (const char* c : {"transformer_engine", "pytorch", "cuda", "nccl"})
    if (auto f = field(c)) version_of(*f, c);
  if (s["comm_libraries"].defined())
    for (const auto& k : s["comm_libraries"].keys()) version_of(s["comm_libraries"][k], k);
  if (auto f = field("gpus_per_node")) r.stack.gpus_per_node = f->as_int(1, 1024);
  if (auto f = field("network")) r.stack.network = f->as_string(200);
}

// patches (each inside the folder, with its sha256) and component tests.
void read_patches_and_component_tests(const YamlField& y, const fs::path& dir, Recipe& r) {
  if (y["patches"].defined()) {
    // resolve_inside gives resolved paths: the folder is compared resolved too (it may be relative or via a link).
    const fs::path resolved_dir = fs::weakly_canonical(dir);
    for (const auto& p : y["patches"].items()) {
      p.reject_unknown_keys({"path", "sha256"});
      Patch patch;
      patch.relative = p.require("path").as_string(400);
      patch.path = resolve_inside(dir, patch.relative, p["path"].where());
      // A recipe's patches are the files of its patches/ folder (the one run puts on PYTHONPATH and applies from).
      if (const auto rel = patch.path.lexically_relative(resolved_dir); rel.empty() || *rel.begin() != "patches")
        throw InputError(p["path"].where(), quote_for_message(patch.relative) + " is not in the recipe's patches/",
                         "keep every patch in patches/ and list it as patches/<file>");
      patch.sha256 = p.require("sha256").as_string(64);
      if (!is_sha256_hex(patch.sha256)) throw InputError(p["sha256"].where(), "expected 64 lowercase hex digits");
      r.patches.push_back(patch);
    }
  }
  if (y["component_tests"].defined()) {
    for (const auto& c : y["component_tests"].items()) {
      c.reject_unknown_keys({"swap", "compares", "shape", "bound", "worst_error", "passed", "output"});
      checks::ComponentTest t;
      t.swap = c.require("swap").as_string(200);
      t.compares = c.require("compares").as_string(1000);
      for (const auto& k : c.require("shape").keys()) t.shape[k] = c["shape"][k].as_int(0, std::int64_t{1} << 40);
      t.bound = c.require("bound").as_double(0, 1e30);
      t.worst_error = c.require("worst_error").as_double(0, 1e30);
      t.passed = c.require("passed").as_bool();
      if (c["output"].defined()) {  // the runner's raw output: a file of the recipe's folder
        t.output = c["output"].as_string(400);
        resolve_inside(dir, t.output, c["output"].where());
      }
      t.where = c.where();
      for (const auto& other : r.component_tests) {
        if (other.swap == t.swap)
          throw InputError(c["swap"].where(),
                           "a second component test of " + t.swap + " (first at " + other.where + ")",
                           "keep one record per swap");
        if (!t.output.empty() && other.output == t.output)
          throw InputError(c["output"].where(), "a second record of the raw output " + t.output,
                           "each record has its own raw output");
      }
      if (r.component_tests.size() >= 64)
        throw InputError(c.where(), "more than 64 component tests", "one record per same-math swap the recipe makes");
      r.component_tests.push_back(std::move(t));
    }
  }
}

// claims: what the recipe says it measured and what its checks concluded.
void read_claims(const YamlField& y, Recipe& r) {
  auto cl = y.require("claims");
  cl.reject_unknown_keys({"tokens_per_s_per_gpu", "cv", "gpu_hours", "configuration", "convergence"});
  r.claims.tokens_per_s_per_gpu = cl.require("tokens_per_s_per_gpu").as_double(0, 1e12);
  r.claims.cv = cl.require("cv").as_double(0, 100);
  r.claims.gpu_hours = cl.require("gpu_hours").as_double(0, 1e9);
  r.claims.configuration = cl.require("configuration").as_string(20);
  if (r.claims.configuration != "eligible" && r.claims.configuration != "ineligible")
    throw InputError(cl["configuration"].where(), "expected eligible or ineligible");
  auto conv = cl.require("convergence");
  conv.reject_unknown_keys({"verdict", "correlation", "final_loss_rel_diff", "pointwise_failures"});
  r.claims.convergence = conv.require("verdict").as_string(10);
  if (r.claims.convergence != "pass" && r.claims.convergence != "fail")
    throw InputError(conv["verdict"].where(), "expected pass or fail");
  if (conv["correlation"].defined()) r.claims.correlation = conv["correlation"].as_double(-1, 1);
  if (conv["final_loss_rel_diff"].defined())
    r.claims.final_loss_rel_diff = conv["final_loss_rel_diff"].as_double(0, 1e30);
  if (conv["pointwise_failures"].defined()) r.claims.pointwise_failures = conv["pointwise_failures"].as_int(0, 1000000);
}

}  // namespace

std::optional<std::string> patch_problem(const Patch& patch) {
  try {
    const std::string got = sha256_hex(read_file(patch.path));
    if (got == patch.sha256) return std::nullopt;
    return fmt::format("{}: the file's sha256 is {}, the recipe records {}", patch.relative, got, patch.sha256);
  } catch (const InputError& e) {
    return patch.relative + ": " + e.problem();
  }
}

bool has_import_suffix(std::string_view file_name) {
  // Source, bytecode, an extension module (name.so, name.cpython-311-x86_64-linux-gnu.so, name.abi3.so).
  static constexpr std::string_view kSuffixes[] = {".py", ".pyc", ".pyo", ".pyw", ".pyd", ".so"};
  return std::any_of(std::begin(kSuffixes), std::end(kSuffixes),
                     [&](std::string_view s) { return file_name.ends_with(s); });
}

std::optional<std::string> patch_import_name(const std::string& entry, bool is_directory) {
  std::string name = entry;
  if (!is_directory) {
    // A file is a module when its name ends in a suffix the interpreter imports; the module's name is what comes
    // before the first dot.
    if (!has_import_suffix(entry)) return std::nullopt;
    name = entry.substr(0, entry.find('.'));
  }
  // Only an identifier can be imported by an import statement, and only an identifier names a distribution's module
  // (a folder without __init__.py is importable too: a namespace package).
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ||
      !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
      }))
    return std::nullopt;
  return name;
}

std::vector<std::string> patch_folder_problems(const Recipe& recipe) {
  std::vector<std::string> out;
  const fs::path patches = recipe.dir / "patches";
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(patches, ec))) {
    out.push_back("patches/ is a symbolic link: the folder run puts on PYTHONPATH must be the recipe's own");
    return out;
  }
  if (!fs::is_directory(patches, ec)) return out;
  std::set<fs::path> listed;
  for (const auto& patch : recipe.patches) listed.insert(fs::weakly_canonical(patch.path, ec));
  for (auto it = fs::recursive_directory_iterator(patches, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(recipe.dir).string();
    const bool top = it.depth() == 0;
    const auto name = top ? patch_import_name(it->path().filename().string(), it->is_directory(ec)) : std::nullopt;
    if (name && !name->starts_with(kPatchModulePrefix))
      out.push_back(fmt::format(
          "{} in patches/ is importable as '{}', a name Python, the launcher, the framework or a library could import "
          "by itself (patches/ goes on PYTHONPATH, ahead of them): name a recipe's own module or package {}<name>, "
          "which only the command's import-path arguments reach",
          rel, *name, kPatchModulePrefix));
    else if (it->is_symlink(ec))
      out.push_back(rel + " in patches/ is a symbolic link; keep the patch files themselves in patches/");
    else if (!it->is_directory(ec) && !listed.count(fs::weakly_canonical(it->path(), ec)))
      out.push_back(rel +
                    " is in patches/ (which goes on PYTHONPATH) but not among the recipe's patches: list it "
                    "with its sha256 under patches:, or remove it");
    if (out.size() >= 20) break;
  }
  return out;
}

std::vector<std::string> patch_modules(const Recipe& recipe) {
  std::vector<std::string> out;
  for (const auto& p : recipe.patches) {
    if (!is_patch_module(p)) continue;
    std::error_code ec;
    const fs::path rel = p.path.lexically_relative(fs::weakly_canonical(recipe.dir, ec));  // patches/<top>[/...]
    auto it = rel.begin();
    if (it == rel.end() || *it != "patches" || ++it == rel.end()) continue;
    const auto name = patch_import_name(it->string(), std::next(it) != rel.end());
    if (name && name->starts_with(kPatchModulePrefix) && std::find(out.begin(), out.end(), *name) == out.end())
      out.push_back(*name);
  }
  return out;
}

bool is_patch_diff(const Patch& patch) {
  const std::string name = fs::path(patch.relative).filename().string();
  return name.ends_with(".patch") || name.ends_with(".diff");
}

bool is_patch_module(const Patch& patch) { return !is_patch_diff(patch); }

bool is_registry_name(const std::string& s) { return std::regex_match(s, kName); }
bool is_github_handle(const std::string& s) { return std::regex_match(s, kHandle); }

Recipe load_recipe(const fs::path& dir_given, RecipeLoad mode) {
  const bool draft = mode == RecipeLoad::draft;
  // The folder as the user wrote it, less a trailing slash ("ref/", what tab completion gives); its names (id, GPU
  // type, model) from the absolute path, so "." or "ref" from inside the registry name the same recipe.
  const fs::path dir = without_trailing_separator(dir_given.lexically_normal());
  const fs::path named = without_trailing_separator(fs::absolute(dir).lexically_normal());
  Recipe r;
  r.dir = dir;
  r.file = dir / "recipe.yaml";
  resolve_recipe_file(dir, r);
  r.name = named.filename().string();
  r.gpu = named.parent_path().filename().string();
  r.model = named.parent_path().parent_path().filename().string();
  r.id = r.model + "/" + r.gpu + "/" + r.name;
  auto y = load_yaml_file(r.file);
  const std::vector<std::string> fields = {
      "id",     "model",    "gpu",     "gpus",   "author", "date",    "reference",       "workload", "steps_per_run",
      "window", "evidence", "command", "layout", "stack",  "patches", "component_tests", "claims"};
  // Every section is read even when one before it has a problem, so all of the file's problems come in one round. A
  // misspelt field is said once: the field it likely means is then missing, which is the same problem.
  std::set<std::string> meant;
  for (const auto& k : y.keys())
    if (std::find(fields.begin(), fields.end(), k) == fields.end()) meant.insert(nearest_name(k, fields));
  std::vector<InputError> problems;
  const Part section = [&](const std::function<void()>& read) {
    try {
      read();
    } catch (const MissingFieldError& e) {
      if (!(e.path().empty() && meant.count(e.field()))) problems.push_back(e);
    } catch (const InputError& e) {
      problems.push_back(e);
    }
  };
  section([&] { y.reject_unknown_keys(fields); });
  section([&] { read_identity(y, dir, r, section); });
  section([&] { read_workload(y, r); });
  section([&] { read_run_length(y, r, section); });
  if (!draft) section([&] { read_evidence(y, dir, r); });
  section([&] { r.command = y.require("command").as_string(64 << 10); });
  section([&] { read_layout(y, r); });
  section([&] { read_stack(y, r, draft); });
  section([&] { read_patches_and_component_tests(y, dir, r); });
  if (mode == RecipeLoad::full || (mode == RecipeLoad::unclaimed && y["claims"].defined()))
    section([&] { read_claims(y, r); });
  if (problems.size() == 1) throw problems.front();
  if (!problems.empty()) throw InputErrors(r.file.string(), std::move(problems));
  return r;
}

std::optional<fs::path> registry_root(const fs::path& recipe_dir) {
  const fs::path root =
      fs::absolute(recipe_dir).lexically_normal().parent_path().parent_path().parent_path().parent_path();
  std::error_code ec;
  if (fs::is_directory(root / "recipes", ec) && fs::is_directory(root / "rules", ec)) return root;
  return std::nullopt;
}

std::optional<std::string> pinned_version(const Recipe& recipe, const std::string& component) {
  for (const auto& v : recipe.stack.versions)
    if (v.component == component && v.version != "unknown") return v.version;
  return std::nullopt;
}

}  // namespace openrecipes::registry
