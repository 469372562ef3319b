// The planner's prediction for a candidate's command (registry/predicted_memory.h).
#include "registry/predicted_memory.h"

#include <cmath>
#include <map>

#include "checks/command_policy.h"
#include "checks/framework_options.h"
#include "core/error.h"
#include "core/text.h"
#include "layout/command.h"
#include "layout/memory.h"
#include "registry/recipe_memory.h"

namespace openrecipes::registry {
namespace {

// What a command's script arguments set, by destination, as the dump would print it ("True"/"False" for switches,
// the value words joined by spaces); an argument whose value holds a variable is left out.
std::map<std::string, std::string> command_values(const std::string& command, const std::string& framework,
                                                  const checks::OptionTable* table) {
  const auto words = layout::split_command(command, "a candidate's command");
  const auto policy = checks::CommandPolicy::bundled().check(words, framework, "");
  if (!policy.shape) throw InputError("a candidate's command", "it does not keep the program policy");
  const std::vector<layout::CommandWord> args(words.begin() + static_cast<std::ptrdiff_t>(policy.shape->script) + 1,
                                              words.end());
  std::map<std::string, std::string> out;
  for (const auto& [dest, a] : checks::parse_arguments(args, table, {}).by_dest) {
    if (a.constant) {
      out[dest] = *a.constant;
      continue;
    }
    if (a.occurrences.empty()) continue;
    std::string value;
    bool plain = true;
    for (const auto& w : a.occurrences.back()) {
      const auto lit = w.literal();
      if (!lit) plain = false;
      value += (value.empty() ? "" : " ") + lit.value_or("");
    }
    if (plain) out[dest] = value;
  }
  return out;
}

}  // namespace

namespace {

// The start's dump with the candidate's command over it, and the shape and setup recipe_memory reads from it.
std::optional<RecipeMemory> candidate_memory(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                             const std::string& candidate_command, std::int64_t gpus) {
  try {
    const auto* table = checks::OptionTable::bundled_or_megatron(start.stack.framework);
    const auto from = command_values(start.command, start.stack.framework, table);
    const auto to = command_values(candidate_command, start.stack.framework, table);
    evidence::ArgumentDump dump = start_dump;
    auto& v = dump.values;
    for (const auto& [dest, value] : from)
      if (const checks::OptionSpec* o = table && !to.count(dest) ? table->find_dest(dest) : nullptr)
        v[dest] = o->printed_default();  // the table keeps repr(); the dump prints str()
    for (const auto& [dest, value] : to) v[dest] = value;
    // What validate_args derives from them: the world, DP, and VPP from either of its flags.
    v["world_size"] = std::to_string(gpus);
    const auto vpp = v.find("num_virtual_stages_per_pipeline_rank");
    const auto vpp_layers = v.find("num_layers_per_virtual_pipeline_stage");
    v["virtual_pipeline_model_parallel_size"] = "None";
    if (vpp != v.end() && vpp->second != "None") {
      v["virtual_pipeline_model_parallel_size"] = vpp->second;
    } else if (vpp_layers != v.end() && vpp_layers->second != "None") {
      const auto layers = parse_int(v["num_layers"]), pp = parse_int(v["pipeline_model_parallel_size"]),
                 per = parse_int(vpp_layers->second);
      if (layers && pp && per && *pp > 0 && *per > 0)
        v["virtual_pipeline_model_parallel_size"] = std::to_string(*layers / *pp / *per);
    }
    return recipe_memory(start, dump, std::nullopt);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<layout::MemoryEstimate> predicted_memory(const Recipe& start, const evidence::ArgumentDump& start_dump,
                                                       const std::string& candidate_command, std::int64_t gpus) {
  const auto rm = candidate_memory(start, start_dump, candidate_command, gpus);
  if (!rm) return std::nullopt;
  try {
    return layout::estimate_memory(rm->shape, rm->setup);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<checks::CandidatePrediction> candidate_prediction(const Recipe& start,
                                                                const evidence::ArgumentDump& start_dump,
                                                                const std::string& candidate_command,
                                                                std::int64_t gpus) {
  const auto rm = candidate_memory(start, start_dump, candidate_command, gpus);
  if (!rm) return std::nullopt;
  checks::CandidatePrediction out{rm->setup, std::nullopt};
  try {
    out.peak_mib = std::round(layout::estimate_memory(rm->shape, rm->setup).peak_mib);
  } catch (const InputError&) {
  }
  return out;
}

}  // namespace openrecipes::registry
