// registry/models/*.yaml loader (SPEC §3).
#include "registry/model.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/yaml.h"
#include "registry/recipe.h"

namespace openrecipes::registry {

std::map<std::string, ModelInfo> load_models(const std::filesystem::path& dir) {
  std::map<std::string, ModelInfo> out;
  if (!std::filesystem::is_directory(dir))
    throw InputError(dir.string(), "no models folder", "create registry/models/");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    ModelInfo m;
    m.id = path.stem().string();
    m.file = path.string();
    if (!is_registry_name(m.id))
      throw InputError(path.string(), "model file name is not a model id ([a-z0-9._-])", "rename the file");
    auto y = load_yaml_file(path);
    y.reject_unknown_keys({"name", "family", "checkpoint", "active_params", "config", "layer_shape", "tokenizer",
                           "model_args", "notes", "rows_build"});
    m.rows_build = y["rows_build"].string_or_null(80);
    m.name = y.require("name").as_string(200);
    m.family = y.require("family").as_string(64);
    auto ck = y.require("checkpoint");
    ck.reject_unknown_keys({"id", "revision"});
    m.checkpoint = ck.require("id").as_string(200);
    m.revision = ck["revision"].string_or_null(100);
    auto n = y.require("active_params");
    n.reject_unknown_keys({"n", "counted_from", "counting", "breakdown"});
    m.active_params = n.require("n").as_int(1, std::int64_t{1} << 50);
    m.counted_from = n.require("counted_from").as_string(32);
    if (m.counted_from != "config" && m.counted_from != "safetensors")
      throw InputError(n["counted_from"].where(), "expected 'config' or 'safetensors'");
    m.counting = n.require("counting").as_string(4000);
    std::int64_t sum = 0;
    if (n["breakdown"].defined()) {
      for (const auto& k : n["breakdown"].keys()) {
        auto v = n["breakdown"][k].as_int(0, std::int64_t{1} << 50);
        m.breakdown[k] = v;
        sum += v;  // each class is at most 2^50 and the sum stops at N, so this never overflows
        if (sum > m.active_params)
          throw InputError(n["breakdown"].where(),
                           fmt::format("the breakdown sums to more than N = {} by class '{}'", m.active_params, k),
                           "make the classes add up to N");
      }
      if (sum != m.active_params)
        throw InputError(n["breakdown"].where(),
                         fmt::format("the breakdown sums to {}, not N = {}", sum, m.active_params),
                         "make the classes add up to N");
    }
    if (y["config"].defined()) {
      if (!y["config"].is_map()) throw InputError(y["config"].where(), "expected a map of config.json fields");
      m.config = y["config"].to_json();
    }
    if (y["layer_shape"].defined())
      for (const auto& k : y["layer_shape"].keys())
        m.layer_shape[k] = y["layer_shape"][k].as_int(0, std::int64_t{1} << 40);
    if (y["tokenizer"].defined()) {
      auto tk = y["tokenizer"];
      tk.reject_unknown_keys({"family", "chat_template"});
      m.tokenizer = tk.require("family").as_string(400);
      m.chat_template = tk.require("chat_template").as_string(400);
    }
    m.model_args = y["model_args"].string_or_null(300).value_or("");
    if (y["notes"].defined()) m.notes = y["notes"].as_string(20000);
    out.emplace(m.id, std::move(m));
  }
  return out;
}

}  // namespace openrecipes::registry
