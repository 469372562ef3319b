// A recipe: one measured training run of one model on one GPU type, as registry/recipes/<model>/<gpu>/<id>/
// recipe.yaml records it (docs/recipe-format.md; SPEC §0, §2–§6). Every field arrives from a stranger: the
// loader validates types, ranges, lengths and paths, and rejects unknown fields.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/component_check.h"
#include "checks/stack.h"
#include "layout/layout.h"
#include "measure/window.h"

namespace openrecipes::registry {

/// An evidence file: its path inside the recipe's folder (validated, resolved) and its format.
struct EvidenceFile {
  std::filesystem::path path;  ///< resolved, inside the recipe folder
  std::string relative;        ///< as written in recipe.yaml
  std::string format;
  std::string run;  ///< launcher times: the run label; sacct: the job id
  bool operator==(const EvidenceFile&) const = default;
};

struct Workload {
  bool standard = false;  ///< the protocol's Tulu 3 workload; false: a declared non-standard workload
  std::string key;        ///< pair key: "tulu3-sft" for the standard one, the declared key otherwise
  std::string description;
  std::int64_t row_length = 0;
  std::int64_t global_batch = 0;
  // standard workload only
  std::string dataset, revision, tokenizer, tokenizer_revision;
  std::int64_t seed = 0;
  // the rows the run trained on: required for the standard workload, optional for a non-standard one (empty sha256:
  // not recorded)
  std::int64_t rows_count = 0;
  std::string rows_sha256;
  bool operator==(const Workload&) const = default;
};

using Layout = layout::Layout;  // src/layout: the layout and its rules

/// One stack entry: a component and the version the recipe says it ran (checks/stack.h; SPEC §6 "Stack").
using StackEntry = checks::StackEntry;

struct Stack {
  std::string framework;             ///< slime, miles, megatron-lm
  std::vector<StackEntry> versions;  ///< framework commit, megatron_lm, transformer_engine, pytorch, cuda, nccl, ...
  std::int64_t gpus_per_node = 0;
  std::string network;
  bool operator==(const Stack&) const = default;
};

struct Patch {
  std::filesystem::path path;
  std::string relative;
  std::string sha256;
  bool operator==(const Patch&) const = default;
};

/// What a recipe records about its own results; the build recomputes each and reports any disagreement.
struct Claims {
  double tokens_per_s_per_gpu = 0;
  double cv = 0;
  double gpu_hours = 0;
  std::string configuration;  ///< "eligible" or "ineligible"
  std::string convergence;    ///< "pass" or "fail"
  std::optional<double> correlation, final_loss_rel_diff;
  std::optional<std::int64_t> pointwise_failures;
  bool operator==(const Claims&) const = default;
};

struct Recipe {
  std::string id;    ///< "<model>/<gpu>/<name>"
  std::string name;  ///< the folder name
  std::string model, gpu;
  std::int64_t gpus = 0;
  std::string author;                    ///< GitHub handle, or a tool's name
  std::string author_link;               ///< https link for a tool, or https://github.com/<handle>
  std::string date;                      ///< YYYY-MM-DD measured (a real calendar day)
  std::optional<std::string> reference;  ///< full id of the reference recipe; nullopt: it is a reference
  Workload workload;
  std::int64_t steps_per_run = 0;
  std::optional<measure::Window> window;
  EvidenceFile log;
  std::optional<EvidenceFile> arguments, versions, times, convergence_arm;
  std::optional<EvidenceFile> launch;  ///< the command as the run started it, rendered (evidence/launch.json)
  std::optional<EvidenceFile> search;  ///< how it was found: `openrecipes tune`'s tune.json (evidence/search.json)
  std::string command;
  Layout layout;
  Stack stack;
  std::vector<Patch> patches;
  std::vector<checks::ComponentTest> component_tests;
  Claims claims;
  std::filesystem::path dir, file;
  bool operator==(const Recipe&) const = default;
};

/// The patch rule (SPEC §6 "Patches"), its one home: the sentence saying why `patch`'s file is not the one the
/// recipe pins (it cannot be read, or its sha256 is another), nullopt when it is. Used by build (a reason), run and
/// submit (refused).
std::optional<std::string> patch_problem(const Patch& patch);

/// The prefix of every name under which Python can import something of a recipe's patches/ (SPEC §6 "Patches";
/// docs/untrusted-input.md): no interpreter, launcher, framework or library imports an `openrecipes_` module by itself,
/// so only the command's own import-path arguments reach one.
inline constexpr std::string_view kPatchModulePrefix = "openrecipes_";

/// The name under which Python imports an entry at the top of a folder on its path: a folder's name (a package, or a
/// namespace package without __init__.py), or a file's name before its first dot when the file ends in an import
/// suffix (.py, .pyc, .pyo, .pyw, .pyd, .so: extension modules such as m.cpython-311-x86_64-linux-gnu.so); nullopt for
/// a file no import reads (a .patch) and for a name that is no identifier (an import statement cannot name it).
std::optional<std::string> patch_import_name(const std::string& entry, bool is_directory);

/// True for a file name Python's import system loads as a module (.py, .pyc, .pyo, .pyw, .pyd, .so): the suffixes
/// patch_import_name reads, and what run's pre-flight refuses to find untracked in a framework checkout.
bool has_import_suffix(std::string_view file_name);

/// patches/ goes on the trainer's PYTHONPATH, ahead of the interpreter's and the framework's own modules, so every
/// file in it must be one of the recipe's pinned patches and nothing in it may be importable under a name anything
/// but the command imports: the sentence for each symbolic link in it, each file it holds that the recipe does not
/// list, and each top-level entry importable under a name without kPatchModulePrefix (patch_import_name: encodings/,
/// torch.py, sitecustomize.py, apex/ would each run without the command naming them). Empty when the recipe has no
/// patches/ folder.
std::vector<std::string> patch_folder_problems(const Recipe& recipe);

/// A patch is a diff, applied to the framework checkout with `git apply` (its file name ends in .patch or .diff), or
/// a Python module file of patches/ (anything else), which run puts on PYTHONPATH and never applies.
bool is_patch_diff(const Patch& patch);
bool is_patch_module(const Patch& patch);

/// The top-level Python modules the recipe's module patches provide (patches/ goes on PYTHONPATH), each under its
/// openrecipes_ name: "openrecipes_loss" for patches/openrecipes_loss.py or patches/openrecipes_loss/fn.py. The program
/// policy lets a command's import-path arguments name them (checks/command_policy.h); nothing else in a recipe's
/// folder can be imported.
std::vector<std::string> patch_modules(const Recipe& recipe);

/// A registry name, one rule for every folder or file a registry names by id (a recipe's folder, a model's file, a
/// reference rows build's folder): [a-z0-9][a-z0-9._-]{0,79}, so that no id can leave the folder it names a child of.
bool is_registry_name(const std::string& s);
/// A GitHub handle: letters, digits and single inner hyphens, at most 39.
bool is_github_handle(const std::string& s);

/// recipe.yaml's text for `recipe`, the writer beside load_recipe (one schema: docs/recipe-format.md): every field
/// load_recipe reads, in its order, so that load_recipe of the text gives `recipe` back (its dir, file and resolved
/// paths aside, which come from where the file is put). `comment` (lines without their '#', may be empty) opens the
/// file. Strings are written double-quoted with YAML's escapes where they need it; the command as a literal block when
/// it is plain printable lines; numbers as shortest round-trip decimals. Draft recipes (no evidence, no claims) are not
/// written: `recipe` must be a full one.
std::string recipe_yaml(const Recipe& recipe, const std::string& comment = "");

/// A draft's recipe.yaml (what `openrecipes run` reads, RecipeLoad::draft): recipe_yaml of `recipe` without the
/// fields a run produces (window, evidence, component_tests, claims). `openrecipes tune` writes its candidates so.
std::string recipe_draft_yaml(const Recipe& recipe, const std::string& comment = "");

/// The `component_tests:` block of recipe.yaml for `tests` (recipe_yaml writes it; "" for none).
std::string component_tests_yaml(const std::vector<checks::ComponentTest>& tests);

/// How much of a recipe must be there: `full` for the registry (every field, evidence files present), `draft` for a
/// recipe that has not run yet, as `openrecipes run` reads it: its evidence and claims are not read (they may be
/// absent), and its stack needs only the framework's name (the run's probe finds the versions); `unclaimed` as full,
/// but `claims:` may be absent (zero claims): `check recipe` computes them for a recipe written by hand.
enum class RecipeLoad : unsigned char { full, draft, unclaimed };

/// The recipe folder a user names, as its folder or its recipe.yaml (`run`, `relayout`, `submit --reference`,
/// `component-test` take either).
inline std::filesystem::path recipe_folder(const std::filesystem::path& given) {
  if (given.filename() != "recipe.yaml") return given;
  return given.has_parent_path() ? given.parent_path() : std::filesystem::path(".");  // "recipe.yaml": this folder
}

/// The registry a recipe folder sits in (<root>/recipes/<model>/<gpu>/<name>, `root` holding recipes/ and rules/),
/// or nullopt when it sits in none (a draft elsewhere).
std::optional<std::filesystem::path> registry_root(const std::filesystem::path& recipe_dir);

/// The version `recipe` records for stack `component` ("megatron-lm_commit", "megatron_lm", "pytorch", ...), or
/// nullopt when it records none or "unknown".
std::optional<std::string> pinned_version(const Recipe& recipe, const std::string& component);

/// Loads `dir`/recipe.yaml, where `dir` is registry/recipes/<model>/<gpu>/<name>. Throws InputError naming the
/// file, line and field, with the fix, for: malformed YAML, a missing, mistyped, out-of-range or unknown field,
/// an id/model/gpu that does not match the folder, an evidence or patch path that escapes the folder or does not
/// exist, an unknown evidence format, a layout whose GPU count is not gpus, a date that is not a real calendar
/// day, and a recipe.yaml that is a symbolic link resolving outside `dir` (it is never read).
Recipe load_recipe(const std::filesystem::path& dir, RecipeLoad mode = RecipeLoad::full);

}  // namespace openrecipes::registry
