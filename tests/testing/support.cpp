// Test support implementation (child processes through core/subprocess, temp folders, InputError messages).
#include "testing/support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>

#include "core/error.h"

namespace openrecipes::testing {
namespace fs = std::filesystem;

fs::path source_dir() { return fs::path(OPENRECIPES_SOURCE_DIR); }

bool on_ci() {
  const char* env = std::getenv("CI");
  return env && std::string(env) == "true";
}

fs::path fixtures_dir() {
  if (const char* env = std::getenv("OPENRECIPES_FIXTURES"); env && *env) {
    fs::path p(env);
    return fs::is_directory(p) ? p : fs::path();
  }
  fs::path p = source_dir().parent_path() / "shared" / "fixtures";
  return fs::is_directory(p) ? p : fs::path();
}

std::string message_of(const std::function<void()>& f, const char* file, int line) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE_AT(file, line) << "no InputError was thrown";
  return {};
}

std::string oracle_python() { return OPENRECIPES_ORACLE_PYTHON; }
fs::path oracle_node_modules() { return fs::path(OPENRECIPES_ORACLE_NODE_MODULES); }

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input) {
  try {
    // The oracles print tens of megabytes of ids; they are the tests' own programs, so no output limit.
    return openrecipes::run_process(argv, {.input = input, .env = {}, .max_output_bytes = SIZE_MAX});
  } catch (const InputError& e) {
    ADD_FAILURE() << e.what();
    return {};
  }
}

std::string cli_binary() {
  const char* bin = std::getenv("OPENRECIPES_BIN");
  return bin && *bin ? bin : (fs::path(OPENRECIPES_BUILD_DIR) / "openrecipes").string();
}

ProcessResult run_cli(const std::vector<std::string>& args, const std::string& input) {
  std::vector<std::string> argv{cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, input);
}

std::vector<std::string> file_names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() / ("openrecipes-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path TempDir::write(const std::string& name, const std::string& content) const {
  fs::path p = path_ / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

}  // namespace openrecipes::testing
