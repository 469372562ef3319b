// A recipe's component-test records judged (registry/component_tests.h).
#include "registry/component_tests.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "core/error.h"
#include "core/files.h"
#include "core/text.h"

namespace openrecipes::registry {

std::vector<checks::ComponentTest> judge_component_tests(const Registry& reg, const Recipe& r,
                                                         const evidence::ArgumentDump* recipe_args,
                                                         const evidence::ArgumentDump* reference_args,
                                                         const checks::LayerShape& model_shape) {
  std::vector<checks::ComponentTest> out = r.component_tests;
  if (out.empty()) return out;
  checks::ComponentContext ctx;
  ctx.rules = reg.component_rules ? &*reg.component_rules : nullptr;
  ctx.model_shape = model_shape;
  ctx.row_length = r.workload.row_length;
  ctx.micro_batch = r.layout.micro_batch;
  for (const auto& v : r.stack.versions) {
    if (v.component == "pytorch") ctx.torch_version = v.version;
    if (v.component == "transformer_engine") ctx.transformer_engine = v.version;
    if (v.component == "megatron_lm" || (r.stack.framework == "megatron-lm" && v.component == "megatron-lm_commit"))
      ctx.megatron_commit = v.version;
  }
  if (ctx.transformer_engine == "unknown") ctx.transformer_engine.clear();
  if (ctx.megatron_commit == "unknown") ctx.megatron_commit.clear();
  if (auto g = reg.gpus.find(r.gpu); g != reg.gpus.end()) ctx.gpu_names = g->second.device_names;
  ctx.gpu_type = r.gpu;
  if (recipe_args) {
    ctx.recipe_args = &recipe_args->values;
    ctx.recipe_precision = checks::training_precision(recipe_args->values);
    if (auto it = recipe_args->values.find("seed"); it != recipe_args->values.end()) ctx.seed = parse_int(it->second);
  }
  if (reference_args) ctx.reference_args = &reference_args->values;
  if (auto m = reg.models.find(r.model); m != reg.models.end() && m->second.config.is_object() &&
                                         m->second.config.contains("vocab_size") &&
                                         m->second.config["vocab_size"].is_number_integer())
    ctx.vocab_size = m->second.config["vocab_size"].get<std::int64_t>();
  for (auto& t : out) {
    if (!ctx.rules) {
      t.evidence_problem = "the registry has no rules/component_tests.yaml to test it against";
      continue;
    }
    if (const auto* rule = ctx.rules->find(t.swap)) t.rule_bound = rule->bound;
    if (!t.output.empty()) {
      try {
        const std::filesystem::path file = resolve_inside(r.dir, t.output, r.file.string() + ": component_tests");
        t.raw = checks::parse_component_output(read_file(file, std::size_t{16} << 20), t.output);
      } catch (const InputError& e) {
        t.evidence_problem = "its component test's raw output " + t.output + " does not read: " + e.problem();
        continue;
      }
      for (const auto& s : t.raw->swap) t.covers.push_back(s.argument);
    }
    t.evidence_problem = fmt::format("{}", fmt::join(checks::check_component_evidence(t, ctx), "; "));
  }
  return out;
}

namespace {

// A recipe's argument dump, when its evidence gives one that reads.
std::optional<evidence::ArgumentDump> dump_of(const Recipe& r) {
  if (!r.arguments) return std::nullopt;
  try {
    return evidence::parse_megatron_args(read_file(r.arguments->path), r.arguments->relative);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<PassedComponentTest> passed_component_tests(const Registry& reg, const std::string& model) {
  std::vector<PassedComponentTest> out;
  const auto m = reg.models.find(model);
  if (m == reg.models.end()) return out;
  for (const auto& e : reg.recipes) {
    if (!e.recipe || e.recipe->model != model || e.recipe->component_tests.empty() || !e.recipe->reference) continue;
    const Recipe* reference = nullptr;
    for (const auto& x : reg.recipes)
      if (x.id == *e.recipe->reference && x.recipe) reference = &*x.recipe;
    if (!reference) continue;
    const auto args = dump_of(*e.recipe), reference_args = dump_of(*reference);
    if (!args || !reference_args) continue;
    for (auto& t : judge_component_tests(reg, *e.recipe, &*args, &*reference_args, m->second.layer_shape))
      if (t.evidence_problem.empty() && t.raw && checks::component_test_problem(t, m->second.layer_shape).empty())
        out.push_back({std::move(t), e.id});
  }
  return out;
}

}  // namespace openrecipes::registry
