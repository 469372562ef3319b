// The step-time model's basis of every measured row (tools/fit_step_time.py fits the constants on it):
//   build/step_time_basis tests/data/step_time/fit_rows.jsonl registry/gpus.yaml > basis.jsonl
// Each row's command (a registry row's recipe) is read as `plan --command` reads it (checks::read_command_run, the row's GPUs) and its terms at
// unit constants computed (layout::step_time_basis) with the row's GPU type and precision. Output, one JSON object a
// row: the row's id, source, model, gpu and step_time_s, with `stages` (each pipeline stage's seconds per term for the
// step, in layout::StepTimeTerm's order: layout::step_time_stage_bases), `micro_batch_runs`, `global_batch`,
// `row_length` and `layout`; or `refused` with the reader's message.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checks/megatron_arguments.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "layout/step_time.h"
#include "registry/gpus.h"
#include "registry/recipe.h"
#include "registry/recipe_memory.h"

namespace {

// A recipe's model and setup, as `plan --from` reads them (registry::recipe_memory).
openrecipes::checks::CommandRun from_recipe(const std::string& folder) {
  using namespace openrecipes;
  const auto rm = registry::recipe_memory(registry::load_recipe(registry::recipe_folder(folder)));
  return {{}, rm.shape, rm.setup};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace openrecipes;
  if (argc != 3) {
    std::fprintf(stderr, "usage: step_time_basis FIT_ROWS.jsonl GPUS.yaml\n");
    return 2;
  }
  try {
    const auto gpus = registry::load_gpus(argv[2]);
    const std::string text = read_file(argv[1]);
    for (const auto line : lines_of(text)) {
      if (line.empty()) continue;
      const auto row = nlohmann::json::parse(line);
      nlohmann::json out = {{"id", row.at("id")},         {"source", row.at("source")},
                            {"model", row.at("model")},   {"gpu", row.at("gpu")},
                            {"step_time_s", row.at("step_time_s")}};
      try {
        const auto vocab = row.at("tokenizer_vocab").is_null()
                               ? std::nullopt
                               : std::optional<std::int64_t>(row.at("tokenizer_vocab").get<std::int64_t>());
        // A registry row names its recipe: read as `plan --from` reads it. Others give the command that ran.
        const auto run = row.contains("recipe")
                             ? from_recipe(row.at("recipe").get<std::string>())
                             : checks::read_command_run(row.at("command").get<std::string>(), row.at("id"),
                                                        row.at("gpus").get<std::int64_t>(), vocab);
        const auto speed = registry::gpu_speed(gpus.at(row.at("gpu").get<std::string>()),
                                               row.at("gpus_per_node").get<std::int64_t>());
        const auto precision = row.at("precision") == "fp8" ? layout::Precision::fp8 : layout::Precision::bf16;
        const auto split = layout::stage_split(run.shape, run.setup);
        const auto basis = layout::step_time_basis(run.shape, run.setup, speed, precision, split);
        out["stages"] = layout::step_time_stage_bases(run.shape, run.setup, speed, precision, split);
        out["micro_batch_runs"] = basis.micro_batch_runs;
        out["global_batch"] = run.setup.global_batch;
        out["row_length"] = run.setup.row_length;
        const auto& l = run.setup.layout;
        out["layout"] = fmt::format("TP {} PP {} CP {} EP {} ETP {} VPP {} micro-batch {} {}", l.tp, l.pp, l.cp, l.ep,
                                    l.etp, l.vpp.value_or(1), l.micro_batch, layout::recompute_name(run.setup.recompute));
      } catch (const InputError& e) {
        out["refused"] = e.what();
      }
      std::cout << out.dump() << '\n';
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "step_time_basis: %s\n", e.what());
    return 1;
  }
  return 0;
}
