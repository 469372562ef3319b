#include "registry/reproduce.h"

#include <fmt/format.h>

#include <algorithm>

#include "checks/command_policy.h"
#include "core/error.h"
#include "core/utf8.h"
#include "layout/command.h"

namespace openrecipes::registry {
namespace {

// The flag whose value is the word that uses $name ("--data-path", "--prompt-data"), or "" when none does.
std::string flag_of_variable(const std::vector<layout::CommandWord>& words, const std::string& name) {
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string shown = words[i].shown();
    if (shown.find("$" + name) == std::string::npos && shown.find("${" + name + "}") == std::string::npos) continue;
    if (auto flag = words[i - 1].literal(); flag && flag->starts_with("--")) return *flag;
  }
  return "";
}

// The framework checkout a variable names (MEGATRON_LM, SLIME, MILES) and the commit the recipe pins for it.
std::string checkout_text(const Recipe& r, const std::string& what, const std::string& component) {
  const std::string commit = pinned_version(r, component).value_or("");
  return commit.empty() ? fmt::format("a {} checkout (the recipe pins no commit)", what)
                        : fmt::format("a {} checkout at commit {} (git checkout {})", what, commit, commit);
}

CommandVariable describe(const Recipe& r, const ModelInfo* model, const std::string& name,
                         const std::vector<layout::CommandWord>& words) {
  CommandVariable v;
  v.name = name;
  v.shown = name == "MODEL_ARGS" ? "${MODEL_ARGS[@]}" : name == "<slime entry module>" ? name : "$" + name;
  const std::string framework = r.stack.framework;
  if (name == "SFT_DATA") {
    if (flag_of_variable(words, name) == "--data-path") {
      v.points_at =
          "the PREFIX that `openrecipes rows export rows.parquet --format megatron -o PREFIX` wrote: Megatron-LM's "
          "--data-path reads PREFIX.bin and PREFIX.idx (not rows.parquet)";
      v.example = "rows/megatron";
    } else {
      v.points_at =
          "the rows.parquet of `openrecipes rows build`, its rows.manifest.json beside it: the rollout plugin "
          "(data/pretokenized_sft_rollout.py) serves its rows in order";
      v.example = "rows/rows.parquet";
    }
  } else if (name == "HF_CKPT") {
    const std::string ckpt = model ? model->checkpoint : r.model;
    v.points_at = fmt::format("the Hugging Face checkpoint folder of {}{}", ckpt,
                              model && model->revision ? " at revision " + *model->revision : "");
    v.example = "checkpoints/" + ckpt.substr(ckpt.rfind('/') + 1);
  } else if (name == "TORCH_DIST") {
    v.points_at = "the same checkpoint converted to Megatron-LM's torch_dist format (the weights the run loads)";
    v.example = "checkpoints/torch_dist";
  } else if (name == "MEGATRON_LM") {
    v.points_at = checkout_text(r, "Megatron-LM", framework == "megatron-lm" ? "megatron-lm_commit" : "megatron_lm");
    v.example = "Megatron-LM";
  } else if (name == "SLIME" || name == "MILES") {
    const std::string fw = name == "SLIME" ? "slime" : "miles";
    v.points_at = checkout_text(r, fw, fw + "_commit");
    v.example = fw;
  } else if (name == "MODEL_ARGS") {
    v.points_at = "filled by run: the model script of the framework checkout (scripts/models/) for " + r.model;
    v.needs_value = false;
  } else if (name == "<slime entry module>") {
    v.points_at = "filled by run: the training entry point of the framework checkout";
    v.needs_value = false;
  } else if (name == checks::kRunDirVariable) {
    v.points_at = "filled by run: the run folder it creates (-o RUN_DIR); every file the run writes lies inside it";
    v.needs_value = false;
  } else if (name == "PYTHON") {
    v.points_at = "the interpreter of the version probe (default python3)";
    v.needs_value = false;
  } else {
    v.points_at = "not a protocol variable: the recipe's own (its author says what it must point at)";
    v.example = "VALUE";
  }
  return v;
}

}  // namespace

Reproduction reproduction(const Recipe& r, const ModelInfo* model, const std::string& folder) {
  Reproduction out;
  out.recipe_folder = folder.empty() ? "registry/recipes/" + r.id : folder;
  out.rows_sha256 = r.workload.rows_sha256;
  out.rows_count = r.workload.rows_count;
  out.standard_workload = r.workload.standard;

  std::vector<layout::CommandWord> words;
  std::vector<std::string> used;
  try {
    words = layout::split_command(r.command, r.file.string());
    used = layout::command_variable_names(words);
  } catch (const InputError&) {
    // A command that does not split has no run line; its recipe is not verified and says why.
  }
  for (const auto& name : used) out.variables.push_back(describe(r, model, name, words));
  // The launcher's own: the checkouts it probes for the framework's and Megatron-LM's commits.
  const std::string fw_var = checks::CommandPolicy::bundled().framework_variable(r.stack.framework);
  std::vector<std::string> launcher;
  if (!fw_var.empty()) launcher.push_back(fw_var);
  if (r.stack.framework != "megatron-lm") launcher.push_back("MEGATRON_LM");
  // ${MODEL_ARGS[@]} and <slime entry module> come from the framework's checkout: then its variable is needed.
  const bool needs_checkout = std::any_of(
      used.begin(), used.end(), [](const std::string& n) { return n == "MODEL_ARGS" || n == "<slime entry module>"; });
  for (const auto& name : launcher)
    if (std::find(used.begin(), used.end(), name) == used.end()) {
      CommandVariable v = describe(r, model, name, words);
      v.launcher_only = true;
      v.needs_value = name == fw_var && needs_checkout;
      out.variables.push_back(std::move(v));
    }

  // The rows: build, check against the recorded sha256, and export for Megatron-LM's --data-path; none for a command
  // that reads no $SFT_DATA (Megatron-LM's --mock-data makes its own).
  const bool reads_rows = std::find(used.begin(), used.end(), "SFT_DATA") != used.end();
  if (reads_rows) {
    const Workload& w = r.workload;
    out.prepare.push_back("mkdir -p rows");  // rows build writes into an existing folder only
    std::vector<std::string> build = {"openrecipes", "rows", "build", "--source"};
    if (w.standard) {
      const std::string dataset = w.dataset.substr(w.dataset.rfind('/') + 1);
      const std::string tokenizer = w.tokenizer.substr(w.tokenizer.rfind('/') + 1);
      out.prepare.push_back(
          display_command(build) + " " + display_word(dataset) + "/data/*.parquet " +
          display_command({"--tokenizer", tokenizer, "--dataset-id", w.dataset, "--dataset-revision", w.revision,
                           "--seed", std::to_string(w.seed), "--row-length", std::to_string(w.row_length), "--rows",
                           std::to_string(w.rows_count), "--date", "2026-01-01", "-o", "rows/rows.parquet"}));
    } else {
      std::vector<std::string> rest = {"SOURCE_FILES", "--tokenizer", "TOKENIZER_DIR", "--row-length",
                                       std::to_string(w.row_length)};
      // A declared workload's inputs are named only in its description, in words: they are the user's to fill.
      out.placeholders = {
          {"SOURCE_FILES",
           "the source files of the rows (JSON Lines or Parquet conversations), as the workload's "
           "description names them: " +
               w.description},
          {"TOKENIZER_DIR",
           "a folder with the tokenizer the description names (tokenizer.json, tokenizer_config.json)"}};
      if (w.rows_count > 0) rest.insert(rest.end(), {"--rows", std::to_string(w.rows_count)});
      rest.insert(rest.end(), {"--date", "2026-01-01", "-o", "rows/rows.parquet"});
      out.prepare.push_back(display_command(build) + " " + display_command(rest));
    }
    if (!w.rows_sha256.empty() && w.rows_count > 0)
      out.prepare.push_back(display_command({"openrecipes", "rows", "verify", "rows/rows.parquet", "--rows",
                                             std::to_string(w.rows_count), "--sha256", w.rows_sha256}));
    const bool megatron_data = std::any_of(out.variables.begin(), out.variables.end(), [](const CommandVariable& v) {
      return v.name == "SFT_DATA" && v.example == "rows/megatron";
    });
    if (megatron_data)
      out.prepare.push_back(display_command(
          {"openrecipes", "rows", "export", "rows/rows.parquet", "--format", "megatron", "-o", "rows/megatron"}));
  }

  std::vector<std::string> run = {"openrecipes", "run", out.recipe_folder, "--launcher"};
  const std::int64_t per_node = r.stack.gpus_per_node > 0 ? r.stack.gpus_per_node : r.gpus;
  if (r.gpus <= per_node) {
    run.push_back("local");
  } else {
    run.insert(run.end(), {"slurm", "--nodes", std::to_string((r.gpus + per_node - 1) / per_node)});
  }
  for (const auto& v : out.variables)
    if (v.needs_value || (v.launcher_only && v.name == fw_var))
      run.push_back("--var"), run.push_back(v.name + "=" + v.example);
  run.insert(run.end(), {"-o", "runs/" + r.name});
  out.run_line = display_command(run);
  return out;
}

}  // namespace openrecipes::registry
