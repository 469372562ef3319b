// Recounting a registry model's N (SPEC §3).
#include "registry/model_params.h"

#include <fmt/format.h>

#include "core/error.h"
#include "params/count.h"

namespace openrecipes::registry {
namespace {

void compare(const ModelInfo& m, const params::ParamCount& c, const std::string& how, ModelCount& out) {
  if (c.n_active != m.active_params)
    out.problems.push_back(fmt::format("{} records N = {}, but {} gives {}", m.file, m.active_params, how, c.n_active));
  for (const auto& [cls, recorded] : m.breakdown) {
    const auto pc = params::param_class_named(cls);
    if (!pc)
      out.problems.push_back(fmt::format("{}: breakdown class '{}' is not a class of N", m.file, cls));
    else if (c.of(*pc).active != recorded)
      out.problems.push_back(fmt::format("{} records {} = {} in N's breakdown, but {} gives {}", m.file, cls, recorded,
                                         how, c.of(*pc).active));
  }
}

}  // namespace

ModelCount recount_active_params(const ModelInfo& model, const std::optional<std::filesystem::path>& checkpoint) {
  ModelCount out;
  out.n = model.active_params;
  out.counted_from = "model file";
  if (!model.config.is_null() && !model.config.empty()) {
    try {
      auto c = params::count_from_config(model.config, model.file + ": config");
      compare(model, c, "its config arithmetic", out);
      out.counted_from = "config arithmetic";
    } catch (const InputError& e) {
      out.problems.push_back(e.what());
    }
  }
  if (checkpoint) {
    try {
      auto c = params::count_from_checkpoint(*checkpoint, model.config, model.file + ": config");
      compare(model, c, "the checkpoint's safetensors headers (" + checkpoint->string() + ")", out);
      out.counted_from = "safetensors headers";
    } catch (const InputError& e) {
      out.problems.push_back(e.what());
    }
  }
  return out;
}

}  // namespace openrecipes::registry
