// The command a run started, as `openrecipes run` rendered it (evidence/launch.json, which `submit` writes from the
// run's plan): the environment the recipe's command set and the argument vector, every variable and
// ${MODEL_ARGS[@]} expanded. It is the expansion `build` checks a recipe's published command against (SPEC §5).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openrecipes::evidence {

/// At most this many argv words, and of environment assignments (as a recipe's command: layout/command.h).
inline constexpr std::size_t kMaxLaunchWords = 65536;

struct Launch {
  std::string file;
  std::vector<std::pair<std::string, std::string>> env;  ///< NAME, value: the command's leading assignments, rendered
  std::vector<std::string> argv;                         ///< the program and its arguments, rendered
};

/// Parses launch.json: {"format_version": 1, "env": [["NAME", "value"], ...], "argv": ["torchrun", ...]}, nothing
/// else. Throws InputError naming `file` (and the fix) for malformed JSON, duplicate keys, nesting over 64 levels,
/// another format_version, an unknown or missing field, an empty argv, more than kMaxLaunchWords words, or a word
/// that is not a string.
Launch parse_launch(std::string_view text, const std::string& file);

/// launch.json's text for `env` and `argv` (deterministic; what parse_launch reads back).
std::string launch_json(const std::vector<std::pair<std::string, std::string>>& env,
                        const std::vector<std::string>& argv);

}  // namespace openrecipes::evidence
