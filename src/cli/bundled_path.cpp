// Where a default into the bundled registry lives when a command runs outside the checkout (README commands
// work from any directory).
#include <filesystem>
#include <system_error>

#include "cli/command.h"

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

}  // namespace openrecipes::cli
