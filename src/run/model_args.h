// ${MODEL_ARGS[@]} of a recipe's command (PROTOCOL.md "Running a recipe"): the array the framework's model script
// (`scripts/models/<model>.sh` in slime and miles) sets, read by sourcing the script in a child bash that prints the
// array NUL-separated. Only the user's own framework checkout is sourced; no field of a recipe reaches that shell.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace openrecipes::run {

/// The model script for `model` (a registry model id such as "qwen3-0.6b") in a framework checkout:
/// `<framework>/scripts/models/<model>.sh`, matched without regard to case (slime names it qwen3-0.6B.sh). Throws
/// InputError naming the folder and the fix when there is none, or when two files match.
std::filesystem::path find_model_script(const std::filesystem::path& framework, const std::string& model);

/// The words of MODEL_ARGS after `bash` sources `script` (its stdout discarded, its stderr kept for the message).
/// Throws InputError naming the script when it is missing, when bash fails or the script exits non-zero (with the
/// end of its stderr), when it sets no MODEL_ARGS array, or when it prints more than 1 MiB of arguments.
std::vector<std::string> read_model_args(const std::filesystem::path& script);

}  // namespace openrecipes::run
