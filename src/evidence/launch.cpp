// launch.json: the command a run started, rendered (evidence/launch.h).
#include "evidence/launch.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_limits.h"

namespace openrecipes::evidence {

Launch parse_launch(std::string_view text, const std::string& file) {
  const char* fix = "submit the run again with openrecipes submit (it writes evidence/launch.json from the run's plan)";
  const auto j = parse_json_strict(text, file, fix);
  auto bad = [&](const std::string& what) { return InputError(file, what, fix); };
  if (!j.is_object()) throw bad("not a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "format_version" && key != "env" && key != "argv") throw bad("unknown field '" + key + "'");
  if (!j.contains("format_version") || j["format_version"] != 1) throw bad("format_version is not 1");
  if (!j.contains("env") || !j["env"].is_array() || !j.contains("argv") || !j["argv"].is_array())
    throw bad("env and argv must be lists");
  Launch out;
  out.file = file;
  if (j["argv"].empty()) throw bad("argv is empty");
  if (j["argv"].size() > kMaxLaunchWords || j["env"].size() > kMaxLaunchWords)
    throw bad("more than " + std::to_string(kMaxLaunchWords) + " words");
  for (const auto& w : j["argv"]) {
    if (!w.is_string()) throw bad("an argv word is not a string");
    out.argv.push_back(w.get<std::string>());
  }
  for (const auto& e : j["env"]) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string())
      throw bad("an env entry is not [\"NAME\", \"value\"]");
    out.env.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
  }
  return out;
}

std::string launch_json(const std::vector<std::pair<std::string, std::string>>& env,
                        const std::vector<std::string>& argv) {
  nlohmann::ordered_json j;
  j["format_version"] = 1;
  auto e = nlohmann::ordered_json::array();
  for (const auto& [k, v] : env) e.push_back({k, v});
  j["env"] = e;
  j["argv"] = argv;
  return j.dump(1) + "\n";
}

}  // namespace openrecipes::evidence
