// `openrecipes params`: N (active parameters per token) from a checkpoint's safetensors headers and from config.json
// arithmetic, with the breakdown by class and what was left out and why; the two must agree (SPEC §3).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/command.h"
#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "params/count.h"
#include "params/report.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct ParamsOptions {
  std::string checkpoint;
  std::string config;
  bool json = false;
  bool tensors = false;
};

nlohmann::json read_config(const fs::path& path) {
  // Depth-bounded (a 170k-deep file would overflow the stack) and duplicate keys refused (nlohmann keeps the last).
  return parse_json_strict(read_file(path), path.string(), "point --config at the model's config.json");
}

// config.json next to the checkpoint: inside a folder, beside an index or a .safetensors file.
fs::path config_beside(const fs::path& checkpoint) {
  std::error_code ec;
  fs::path folder = fs::is_directory(checkpoint, ec) ? checkpoint
                    : checkpoint.has_parent_path()   ? checkpoint.parent_path()
                                                     : fs::path(".");
  fs::path p = folder / "config.json";
  if (!fs::exists(p, ec))
    throw InputError(checkpoint.string(),
                     "has no config.json beside it (N needs its top-k, expert count and MTP "
                     "layout)",
                     "pass --config path/to/config.json");
  return p;
}

int run(const ParamsOptions& o) {
  if (o.checkpoint.empty() && o.config.empty())
    throw InputError("params", "nothing to count",
                     "give a checkpoint (folder, index.json or .safetensors), "
                     "--config config.json, or both");
  // --config names config.json, or the folder holding it (a downloaded model's folder).
  fs::path config_path = !o.config.empty() ? fs::path(o.config) : config_beside(o.checkpoint);
  std::error_code ec;
  if (!o.config.empty() && fs::is_directory(config_path, ec)) {
    if (!fs::is_regular_file(config_path / "config.json", ec))
      throw InputError(o.config, "a folder without config.json", "point --config at the model's config.json");
    config_path /= "config.json";
  }
  const nlohmann::json config = read_config(config_path);
  const params::ParamCount from_config = params::count_from_config(config, config_path.string());
  if (o.checkpoint.empty()) {
    if (o.json)
      std::cout << params::to_json(from_config, config_path.string()).dump(2) << "\n";
    else
      std::cout << params::format_table(from_config, config_path.string());
    return 0;
  }
  const params::ParamCount from_headers = params::count_from_checkpoint(o.checkpoint, config, config_path.string());
  if (o.json) {
    nlohmann::ordered_json j = params::to_json(from_headers, o.checkpoint, &from_config);
    if (o.tensors) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const auto& t : from_headers.tensor_list)
        list.push_back(
            {{"name", t.name}, {"class", std::string(params::param_class_name(t.cls))}, {"params", t.params}});
      j["tensor_list"] = std::move(list);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << params::format_table(from_headers, o.checkpoint, &from_config);
    if (o.tensors) std::cout << "\n" << params::format_tensor_list(from_headers);
  }
  return params::compare_counts(from_headers, from_config).empty() ? 0 : static_cast<int>(ExitCode::check_failed);
}

const bool registered_params = register_command(
    {"params", "N, the active parameters per token, from safetensors headers and config.json (docs/params.md)",
     [](CLI::App& app) {
       auto o = std::make_shared<ParamsOptions>();
       app.add_option("checkpoint", o->checkpoint,
                      "checkpoint folder, its model.safetensors.index.json, or one .safetensors file");
       app.add_option("--config", o->config,
                      "config.json (default: the one beside the checkpoint); alone, N from "
                      "its arithmetic before a download");
       app.add_flag("--json", o->json, "JSON output (fixed key order)");
       app.add_flag("--tensors", o->tensors, "also list every tensor with its class and parameters");
       app.footer("Exit codes: 0 ok; 1 headers and config.json arithmetic disagree; 2 bad input.");
       return [o]() { return run(*o); };
     }});

}  // namespace
}  // namespace openrecipes::cli
