// Running a child program with an argument vector, never a shell (DESIGN.md "Untrusted input": no recipe field
// reaches a shell): stdin fed from a string, stdout and stderr captured, the exit status back. Tests, benchmarks
// and the run launcher all call this one module.
#pragma once

#include <csignal>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openrecipes {

/// What a child process left: its exit status (0..255; 128 + N when it was ended by signal N) and both streams.
struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// The most a child run by run_process may print on each of stdout and stderr by default: 16 MiB (the callers read
/// version strings, a model's argument array, git's and the scheduler's messages).
inline constexpr std::size_t kMaxProcessOutputBytes = std::size_t{16} << 20;

/// How to run a child: the bytes fed to its stdin (closed at once when empty), environment variables set or
/// overridden on top of this process's own environment, and the most bytes kept of each output stream.
struct ProcessOptions {
  std::string input;
  std::vector<std::pair<std::string, std::string>> env;
  std::size_t max_output_bytes = kMaxProcessOutputBytes;
};

/// Runs `argv` (argv[0] looked up in PATH when it has no '/') with posix_spawn, no shell, and waits for it;
/// stdout and stderr are read concurrently (no deadlock on large outputs); a child that exits without reading all
/// of its stdin does not kill the caller with SIGPIPE (held back while writing). Throws InputError naming argv[0]
/// when `argv` is empty or the program cannot start (not found, not executable), with a fix, and when it prints more
/// than options.max_output_bytes on either stream (it is killed then, never left running).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// How to run a long child whose output is streamed (a training run): its environment overrides, its working
/// folder (empty: ours), a callback for every chunk of its output (stdout and stderr through one pipe, in the order
/// the child wrote them), and a stop flag.
struct StreamOptions {
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;
  std::function<void(std::string_view)> on_output;
  /// Polled every 100 ms: when it reads non-zero, the child's process group gets SIGTERM once, and SIGKILL when it
  /// is still there `grace_s` seconds later.
  const volatile std::sig_atomic_t* stop = nullptr;
  double grace_s = 30;
};

/// Runs `argv` (posix_spawnp, no shell) in a process group of its own, stdin from /dev/null, and calls
/// `on_output` with what it prints until it exits. Returns its exit status (0..255; 128 + N when ended by signal N).
/// The group is signalled only through `stop` (a terminal's Ctrl-C reaches the caller, which decides). Throws
/// InputError naming argv[0] when `argv` is empty or the program cannot start.
int run_process_streaming(const std::vector<std::string>& argv, const StreamOptions& options);

}  // namespace openrecipes
