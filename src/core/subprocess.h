// Running a child program with an argument vector, never a shell (DESIGN.md "Untrusted input": no recipe field
// reaches a shell): stdin fed from a string, stdout and stderr captured, the exit status back. Tests, benchmarks
// and the run launcher all call this one module.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace openrecipes {

/// What a child process left: its exit status (0..255; 128 + N when it was ended by signal N) and both streams.
struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// How to run a child: the bytes fed to its stdin (closed at once when empty) and environment variables set or
/// overridden on top of this process's own environment.
struct ProcessOptions {
  std::string input;
  std::vector<std::pair<std::string, std::string>> env;
};

/// Runs `argv` (argv[0] looked up in PATH when it has no '/') with posix_spawn, no shell, and waits for it;
/// stdout and stderr are read concurrently (no deadlock on large outputs); a child that exits without reading all
/// of its stdin does not kill the caller with SIGPIPE (held back while writing). Throws InputError naming argv[0]
/// when `argv` is empty or the program cannot start (not found, not executable), with a fix.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace openrecipes
