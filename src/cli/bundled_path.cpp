// Where a default into the bundled registry lives when a command runs outside the checkout (README commands
// work from any directory).
#include <filesystem>
#include <system_error>

#include "cli/command.h"
#include "core/error.h"

namespace openrecipes::cli {

std::string bundled_path(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(relative, ec)) return relative;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return relative;
  const fs::path candidate = exe.parent_path().parent_path() / relative;
  if (fs::exists(candidate, ec)) return candidate.string();
  return relative;
}

std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "data");
  candidates.push_back("data");
  for (const auto& d : candidates)
    if (fs::is_regular_file(d / "pretokenized_sft_rollout.py", ec)) return fs::absolute(d).lexically_normal();
  throw InputError("data/", "no data/pretokenized_sft_rollout.py beside openrecipes' checkout or in this folder",
                   "run the openrecipes of a checkout (its data/ goes on the trainer's PYTHONPATH)");
}

}  // namespace openrecipes::cli
