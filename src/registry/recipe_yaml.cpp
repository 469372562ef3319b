// recipe.yaml's writer (registry/recipe.h recipe_yaml, recipe_draft_yaml): the schema load_recipe reads, field for
// field.
#include "registry/recipe.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/text.h"
#include "core/yaml.h"

namespace openrecipes::registry {
namespace {

// The command as a literal block when it is plain printable lines (as a recipe's author writes it), else quoted.
std::string command_field(const std::string& c) {
  const bool plain =
      !c.empty() && c[0] != ' ' && c[0] != '\n' && c[0] != '\t' &&
      std::none_of(c.begin(), c.end(),
                   [](char ch) { return (static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7f; }) &&
      c.find("\xc2\x80") == std::string::npos;
  if (!plain || c.find_first_not_of(" \n") == std::string::npos) return "command: " + yaml_scalar(c) + "\n";
  std::string body = c, chomp = "-";
  if (body.ends_with("\n")) {
    body.pop_back();
    chomp = "";
    if (body.ends_with("\n")) {
      chomp = "+";
      body = c.substr(0, c.size() - 1);
    }
  }
  std::string out = "command: |" + chomp + "\n";
  for (auto line : split(body, '\n')) out += line.empty() ? "\n" : "  " + std::string(line) + "\n";
  return out;
}

std::string number(double v) { return format_double(v); }

std::string evidence_entry(const char* key, const EvidenceFile& f) {
  std::string out = fmt::format("  {}: {{path: {}, format: {}", key, yaml_scalar(f.relative), yaml_scalar(f.format));
  if (!f.run.empty()) out += fmt::format(", {}: {}", f.format == "launcher" ? "run" : "job", yaml_scalar(f.run));
  return out + "}\n";
}

}  // namespace

std::string component_tests_yaml(const std::vector<checks::ComponentTest>& tests) {
  if (tests.empty()) return {};
  std::string y = "component_tests:\n";
  for (const auto& c : tests) {
    y += "  - swap: " + yaml_scalar(c.swap) + "\n    compares: " + yaml_scalar(c.compares) + "\n    shape: {";
    bool first = true;
    for (const auto& [k, v] : c.shape)
      y += fmt::format("{}{}: {}", first ? "" : ", ", yaml_scalar(k), v), first = false;
    y += fmt::format("}}\n    bound: {}\n    worst_error: {}\n    passed: {}\n", number(c.bound), number(c.worst_error),
                     c.passed ? "true" : "false");
    if (!c.output.empty()) y += "    output: " + yaml_scalar(c.output) + "\n";
  }
  return y;
}

std::string recipe_yaml(const Recipe& r, const std::string& comment) {
  std::string y;
  for (auto line : split(comment, '\n'))
    if (!comment.empty()) y += line.empty() ? "#\n" : "# " + std::string(line) + "\n";
  y += "id: " + yaml_scalar(r.name) + "\nmodel: " + yaml_scalar(r.model) + "\ngpu: " + yaml_scalar(r.gpu) + "\n";
  y += fmt::format("gpus: {}\n", r.gpus);
  if (r.author_link == "https://github.com/" + r.author && is_github_handle(r.author))
    y += "author:\n  github: " + r.author + "\n";
  else
    y += "author:\n  name: " + yaml_scalar(r.author) + "\n  link: " + yaml_scalar(r.author_link) + "\n";
  y += "date: " + r.date + "\n";
  const std::string same_pair = r.model + "/" + r.gpu + "/";
  y += "reference: " +
       (!r.reference                          ? std::string("null")
        : r.reference->starts_with(same_pair) ? yaml_scalar(r.reference->substr(same_pair.size()))
                                              : yaml_scalar(*r.reference)) +
       "\n";
  const Workload& w = r.workload;
  y += "workload:\n";
  if (w.standard) {
    y += "  kind: standard\n  dataset: " + yaml_scalar(w.dataset) + "\n  revision: " + yaml_scalar(w.revision) +
         "\n  tokenizer: " + yaml_scalar(w.tokenizer) +
         "\n  tokenizer_revision: " + (w.tokenizer_revision.empty() ? "null" : yaml_scalar(w.tokenizer_revision)) +
         fmt::format("\n  seed: {}\n  rows: {{count: {}, sha256: {}}}\n", w.seed, w.rows_count, w.rows_sha256);
  } else {
    y += "  kind: non-standard\n  key: " + yaml_scalar(w.key) + "\n  description: " + yaml_scalar(w.description) + "\n";
    if (!w.rows_sha256.empty()) y += fmt::format("  rows: {{count: {}, sha256: {}}}\n", w.rows_count, w.rows_sha256);
  }
  y += fmt::format("  row_length: {}\n  global_batch: {}\n", w.row_length, w.global_batch);
  y += fmt::format("steps_per_run: {}\n", r.steps_per_run);
  if (r.window) y += fmt::format("window: {{first: {}, last: {}}}\n", r.window->first, r.window->last);
  y += "evidence:\n" + evidence_entry("log", r.log);
  if (r.arguments) y += evidence_entry("arguments", *r.arguments);
  if (r.versions) y += evidence_entry("versions", *r.versions);
  if (r.times) y += evidence_entry("times", *r.times);
  if (r.convergence_arm) y += evidence_entry("convergence_arm", *r.convergence_arm);
  if (r.launch) y += evidence_entry("launch", *r.launch);
  if (r.search) y += evidence_entry("search", *r.search);
  y += command_field(r.command);
  const auto& l = r.layout;
  y += fmt::format("layout: {{tp: {}, pp: {}, cp: {}, ep: {}, etp: {}, dp: {}, micro_batch: {}", l.tp, l.pp, l.cp, l.ep,
                   l.etp, l.dp, l.micro_batch);
  if (l.vpp) y += fmt::format(", vpp: {}", *l.vpp);
  if (l.max_tokens_per_gpu) y += fmt::format(", max_tokens_per_gpu: {}", *l.max_tokens_per_gpu);
  y += "}\n";
  // The stack, in load_recipe's order: framework commit, megatron_lm, TE, PyTorch, CUDA, NCCL, communication libraries.
  const std::string fw_commit = r.stack.framework + "_commit";
  std::string fw = "  framework: {name: " + yaml_scalar(r.stack.framework), named, libraries;
  for (const auto& v : r.stack.versions) {
    if (v.component == fw_commit)
      fw += ", commit: " + yaml_scalar(v.version);
    else if (v.component == "megatron_lm" || v.component == "transformer_engine" || v.component == "pytorch" ||
             v.component == "cuda" || v.component == "nccl")
      named += "  " + v.component + ": " + yaml_scalar(v.version) + "\n";
    else
      libraries += (libraries.empty() ? "" : ", ") + yaml_scalar(v.component) + ": " + yaml_scalar(v.version);
  }
  y += "stack:\n" + fw + "}\n" + named;
  if (!libraries.empty()) y += "  comm_libraries: {" + libraries + "}\n";
  y += fmt::format("  gpus_per_node: {}\n", r.stack.gpus_per_node);
  y += "  network: " + yaml_scalar(r.stack.network) + "\n";
  if (!r.patches.empty()) {
    y += "patches:\n";
    for (const auto& p : r.patches) y += "  - {path: " + yaml_scalar(p.relative) + ", sha256: " + p.sha256 + "}\n";
  }
  y += component_tests_yaml(r.component_tests);
  const Claims& cl = r.claims;
  y += "claims:\n  tokens_per_s_per_gpu: " + number(cl.tokens_per_s_per_gpu) + "\n  cv: " + number(cl.cv) +
       "\n  gpu_hours: " + number(cl.gpu_hours) + "\n  configuration: " + yaml_scalar(cl.configuration) +
       "\n  convergence: {verdict: " + yaml_scalar(cl.convergence);
  if (cl.correlation) y += ", correlation: " + number(*cl.correlation);
  if (cl.final_loss_rel_diff) y += ", final_loss_rel_diff: " + number(*cl.final_loss_rel_diff);
  if (cl.pointwise_failures) y += fmt::format(", pointwise_failures: {}", *cl.pointwise_failures);
  return y + "}\n";
}

std::string recipe_draft_yaml(const Recipe& recipe, const std::string& comment) {
  static const std::set<std::string, std::less<>> run_fields = {"window", "evidence", "component_tests", "claims"};
  std::string out;
  bool skipping = false;
  const std::string full = recipe_yaml(recipe, comment);
  for (auto line : split(full, '\n')) {
    if (!line.empty() && line[0] != ' ' && line[0] != '#') {  // a top-level field
      const auto colon = line.find(':');
      skipping = colon != std::string_view::npos && run_fields.count(line.substr(0, colon)) > 0;
    }
    if (!skipping) out.append(line).push_back('\n');
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace openrecipes::registry
