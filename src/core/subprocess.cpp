// Child processes through posix_spawn with pipes for stdin, stdout and stderr, read with poll(2).
#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"

extern char** environ;

namespace openrecipes {
namespace {

// One end of a pipe, closed when it goes out of scope (or earlier by close()).
struct Fd {
  int fd = -1;
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// A pipe whose two ends close themselves. Throws InputError naming `program` when it cannot be made.
struct Pipe {
  Fd read, write;
  explicit Pipe(const std::string& program) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0)
      throw InputError(program, std::string("cannot create pipes: ") + std::strerror(errno),
                       "raise the limit of open files (ulimit -n)");
    read.fd = p[0];
    write.fd = p[1];
  }
};

// SIGPIPE held back in this thread while the child's stdin is written: a child that exits without reading all its
// input makes write() fail with EPIPE instead of killing the caller. A SIGPIPE raised meanwhile is consumed.
class HeldSigpipe {
 public:
  HeldSigpipe() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~HeldSigpipe() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{0, 0};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  HeldSigpipe(const HeldSigpipe&) = delete;
  HeldSigpipe& operator=(const HeldSigpipe&) = delete;

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

// environ with each of `overrides` set (replacing the inherited value of the same name).
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : overrides)
      if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=')
        replaced = true;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
}

// posix_spawn's argument and environment vectors (NULL-terminated; they point into `argv` and `env`).
struct Vectors {
  std::vector<std::string> env;
  std::vector<char*> args, envp;
  Vectors(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& overrides)
      : env(environment_with(overrides)) {
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
};

// Feeds `input` to `in` and drains `out` and `err` until both reach end of file (or poll fails).
// Returns false when either stream passed `max_output` bytes (both pipes are closed then, the rest unread).
bool pump(Fd& in, Fd& out, Fd& err, const std::string& input, std::size_t max_output, ProcessResult& r) {
  HeldSigpipe held;
  std::size_t written = 0;
  if (input.empty()) in.close();
  if (in.fd >= 0) ::fcntl(in.fd, F_SETFL, O_NONBLOCK);
  char buf[65536];
  while (out.fd >= 0 || err.fd >= 0) {
    pollfd fds[3];
    int n = 0, out_i = -1, err_i = -1, in_i = -1;
    if (out.fd >= 0) fds[out_i = n++] = {out.fd, POLLIN, 0};
    if (err.fd >= 0) fds[err_i = n++] = {err.fd, POLLIN, 0};
    if (in.fd >= 0) fds[in_i = n++] = {in.fd, POLLOUT, 0};
    if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto drain = [&](int idx, Fd& fd, std::string& dst) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      const ssize_t k = ::read(fd.fd, buf, sizeof buf);
      if (k > 0)
        dst.append(buf, static_cast<std::size_t>(k));
      else if (k == 0 || errno != EINTR)
        fd.close();
    };
    drain(out_i, out, r.out);
    drain(err_i, err, r.err);
    if (r.out.size() > max_output || r.err.size() > max_output) {
      out.close(), err.close(), in.close();
      return false;
    }
    if (in_i >= 0 && (fds[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t k = ::write(in.fd, input.data() + written, input.size() - written);
      if (k > 0) written += static_cast<std::size_t>(k);
      if (k < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // EPIPE: the child closed its stdin
      if (written >= input.size()) in.close();
    }
  }
  return true;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw InputError("run_process", "no program to run", "pass the program as argv[0]");
  Pipe in(argv[0]), out(argv[0]), err(argv[0]);
  const Vectors v(argv, options.env);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.read.fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out.write.fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err.write.fd, 2);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, v.args[0], &fa, nullptr, v.args.data(), v.envp.data());
  posix_spawn_file_actions_destroy(&fa);
  in.read.close();  // the child's ends
  out.write.close();
  err.write.close();
  if (rc != 0)
    throw InputError(argv[0], std::string("cannot start: ") + std::strerror(rc),
                     "install the program or put its folder on PATH");
  ProcessResult r;
  const bool within = pump(in.write, out.read, err.read, options.input, options.max_output_bytes, r);
  if (!within) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!within)
    throw InputError(argv[0],
                     fmt::format("printed more than {} bytes on {}; stopped", options.max_output_bytes,
                                 r.out.size() > options.max_output_bytes ? "stdout" : "stderr"),
                     "check what the program prints; no step reads that much of a program's output");
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

int run_process_streaming(const std::vector<std::string>& argv, const StreamOptions& options) {
  if (argv.empty()) throw InputError("run_process_streaming", "no program to run", "pass the program as argv[0]");
  Pipe out(argv[0]);
  const Vectors v(argv, options.env);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out.write.fd, 1);
  posix_spawn_file_actions_adddup2(&fa, out.write.fd, 2);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, options.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  // The child starts with default dispositions for the signals a launcher catches.
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, v.args[0], &fa, &attr, v.args.data(), v.envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  out.write.close();
  if (rc != 0)
    throw InputError(argv[0], std::string("cannot start: ") + std::strerror(rc),
                     "install the program or put its folder on PATH");
  char buf[65536];
  bool signalled = false, killed = false;
  timespec stopped_at{0, 0};
  auto seconds_since = [](const timespec& t) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec - t.tv_sec) + static_cast<double>(now.tv_nsec - t.tv_nsec) * 1e-9;
  };
  int status = 0;
  // Reads what is ready (waiting up to `wait_ms`); false at end of file or when nothing came.
  auto read_some = [&](int wait_ms) {
    if (out.read.fd < 0) return false;
    pollfd p{out.read.fd, POLLIN, 0};
    if (::poll(&p, 1, wait_ms) <= 0) return false;
    const ssize_t k = ::read(out.read.fd, buf, sizeof buf);
    if (k > 0) {
      if (options.on_output) options.on_output(std::string_view(buf, static_cast<std::size_t>(k)));
      return true;
    }
    if (k == 0 || errno != EINTR) out.read.close();
    return false;
  };
  for (;;) {
    if (options.stop && *options.stop && !signalled) {
      ::kill(-pid, SIGTERM);
      signalled = true;
      clock_gettime(CLOCK_MONOTONIC, &stopped_at);
    }
    if (signalled && !killed && seconds_since(stopped_at) > options.grace_s) {
      ::kill(-pid, SIGKILL);
      killed = true;
    }
    if (out.read.fd >= 0) {
      read_some(100);
    } else {
      const timespec tick{0, 100 * 1000 * 1000};
      nanosleep(&tick, nullptr);
    }
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
  }
  // The child is gone; a daemon it started (ray start) may hold the pipe open for ever: take what is there now.
  while (read_some(50)) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace openrecipes
