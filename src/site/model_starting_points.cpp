// Every model's starting points in the board JSON (site/model_starting_points.h).
#include "site/model_starting_points.h"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <vector>

#include "core/error.h"
#include "core/text.h"
#include "layout/command.h"
#include "layout/layout_json.h"
#include "layout/setup_flags.h"
#include "registry/model_params.h"
#include "registry/starting_points.h"

namespace openrecipes::site {
namespace {

using nlohmann::json;

// The setup as Megatron-LM's flags (layout/setup_flags.h), written into an empty command: what a recipe's command adds
// to its MODEL_ARGS.
std::string megatron_args(const layout::TrainingSetup& t) {
  layout::CommandEditor ed("", "starting point");
  layout::write_setup_flags(ed, t, {true, true, true, true, true});
  std::string args = ed.result();
  args.erase(0, args.find_first_not_of(' '));  // the editor writes each flag after a blank
  return args;
}

// The recipe folder a contributor would write for this starting point, and the tune command that measures it.
std::string tune_command(const std::string& model, const registry::StartingPoint& s) {
  const layout::Layout& l = s.best->setup.layout;
  // One folder per starting point: the GPU count names it, so two counts' layouts never share a recipe.
  const std::string name =
      fmt::format("start-{}gpus-tp{}-pp{}-cp{}-ep{}-mbs{}", s.gpus, l.tp, l.pp, l.cp, l.ep, l.micro_batch);
  return fmt::format("openrecipes tune registry/recipes/{}/{}/{} --gpus {}{} --launcher slurm -o tune-{}-{}-{}", model,
                     s.gpu, name, s.gpus, s.nodes > 1 ? fmt::format(" --nodes {}", s.nodes) : "", model, s.gpu, s.gpus);
}

json point_json(const std::string& model, const registry::StartingPoint& s) {
  json j = {{"gpu", s.gpu},
            {"gpus", s.gpus},
            {"nodes", s.nodes},
            {"layouts", s.layouts},
            {"fitting", s.fitting},
            {"usable_mib", round_to(s.usable_mib, 1)},
            {"fits", s.best.has_value()}};
  if (s.best) {
    const auto& st = *s.best->step_time;
    j["layout"] = layout::setup_to_json(s.best->setup);
    j["peak_memory_mib"] = round_to(s.best->memory.peak_mib, 1);
    j["step_time_s"] = layout::round_step_time(st.step_time_s);
    j["step_time_interval_s"] = {layout::round_step_time(st.low_s), layout::round_step_time(st.high_s)};
    j["tokens_per_s_per_gpu"] = round_to(s.tokens_per_s_per_gpu, 0.1);
    j["tokens_interval"] = {round_to(s.tokens_low, 0.1), round_to(s.tokens_high, 0.1)};
    j["dollars_per_million_tokens"] = round_to(s.dollars_per_million_tokens, 1e-4);
    j["dollars_interval"] = {round_to(s.dollars_low, 1e-4), round_to(s.dollars_high, 1e-4)};
    j["mfu"] = round_to(s.mfu, 1e-4);
    j["mfu_interval"] = {round_to(s.mfu_low, 1e-4), round_to(s.mfu_high, 1e-4)};
    j["megatron_args"] = megatron_args(s.best->setup);
    j["tune_command"] = tune_command(model, s);
  } else if (s.smallest) {
    j["smallest_peak_mib"] = round_to(s.smallest->memory.peak_mib, 1);
    j["smallest_layout"] = layout::setup_to_json(s.smallest->setup);
  }
  return j;
}

}  // namespace

void add_starting_points(json& board, const registry::Registry& reg) {
  std::vector<const registry::ModelInfo*> models;
  for (const auto& [id, m] : reg.models) models.push_back(&m);
  std::vector<json> points(models.size());
  std::vector<std::string> errors(models.size());
  tbb::parallel_for(std::size_t{0}, models.size(), [&](std::size_t i) {
    json a = json::array();
    if (models[i]->config.empty()) {  // a model file without config.json's fields: no shape to plan
      points[i] = std::move(a);
      return;
    }
    // MFU needs N: a file whose N its own config.json fields do not give has no starting points, and says why.
    const auto count = registry::recount_active_params(*models[i], std::nullopt);
    if (!count.problems.empty()) {
      errors[i] = count.problems.front();
      points[i] = std::move(a);
      return;
    }
    try {
      for (const auto& s : registry::starting_points(*models[i], reg.gpus)) a.push_back(point_json(models[i]->id, s));
    } catch (const InputError& e) {  // a config the planner cannot read: the page says why, the site still builds
      errors[i] = e.what();
    }
    points[i] = std::move(a);
  });
  for (std::size_t i = 0; i < models.size(); ++i) {
    board["models"][models[i]->id]["starting_points"] = points[i];
    if (!errors[i].empty()) board["models"][models[i]->id]["starting_points_error"] = errors[i];
  }
}

}  // namespace openrecipes::site
