// MODEL_ARGS from a framework's model script, through a child bash given the script as "$1" (argument vector, no
// command text built from input).
#include "run/model_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "core/subprocess.h"

namespace openrecipes::run {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Sources "$1" with its output discarded, then prints each MODEL_ARGS word followed by a NUL; exit 64 when the
// script sets no array of that name.
constexpr const char* kReader =
    "source \"$1\" >/dev/null || exit $?\n"
    "[[ \"$(declare -p MODEL_ARGS 2>/dev/null)\" == 'declare -a'* ]] || exit 64\n"
    "printf '%s\\0' \"${MODEL_ARGS[@]}\"\n";

constexpr std::size_t kMaxArgsBytes = 1 << 20;

}  // namespace

fs::path find_model_script(const fs::path& framework, const std::string& model) {
  const fs::path dir = framework / "scripts" / "models";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir.string(),
                     fmt::format("no scripts/models folder in the framework checkout, so no model script {}.sh for "
                                 "${{MODEL_ARGS[@]}}",
                                 model),
                     "give the slime or miles checkout the recipe ran (it holds scripts/models/<model>.sh)");
  const std::string want = lower(model) + ".sh";
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (lower(e.path().filename().string()) == want) found.push_back(e.path());
  if (found.empty())
    throw InputError(dir.string(), fmt::format("no model script {} (matched without regard to case)", want),
                     "give (--var SLIME=... or MILES=...) a framework checkout that has it");
  if (found.size() > 1)
    throw InputError(dir.string(), fmt::format("{} files match {} without regard to case", found.size(), want),
                     "keep one file per model in the checkout's scripts/models");
  return found.front();
}

std::vector<std::string> read_model_args(const fs::path& script) {
  std::error_code ec;
  if (!fs::is_regular_file(script, ec))
    throw InputError(script.string(), "model script not found", "check the path (scripts/models/<model>.sh)");
  const ProcessResult r = run_process({"bash", "-c", kReader, "openrecipes-model-args", script.string()});
  if (r.exit_code == 64)
    throw InputError(script.string(), "the script sets no MODEL_ARGS array",
                     "give the framework's model script, which sets MODEL_ARGS=( ... )");
  if (r.exit_code != 0) {
    std::string err = r.err.size() > 500 ? "..." + r.err.substr(r.err.size() - 500) : r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    throw InputError(script.string(),
                     fmt::format("sourcing it failed (bash exit {}){}", r.exit_code, err.empty() ? "" : ": " + err),
                     "fix the script in the framework checkout");
  }
  if (r.out.size() > kMaxArgsBytes)
    throw InputError(script.string(), "MODEL_ARGS is over 1 MiB", "give the framework's own model script");
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < r.out.size(); ++i)
    if (r.out[i] == '\0') {
      out.emplace_back(r.out, start, i - start);
      start = i + 1;
    }
  return out;
}

}  // namespace openrecipes::run
