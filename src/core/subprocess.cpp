// Child processes through posix_spawn with pipes for stdin, stdout and stderr, read with poll(2).
#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "core/error.h"

extern char** environ;

namespace openrecipes {
namespace {

// Closes a pipe end once; -1 means closed.
void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

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

// Feeds `input` to `in_fd` and drains `out_fd` and `err_fd` until both reach end of file.
void pump(int& in_fd, int& out_fd, int& err_fd, const std::string& input, ProcessResult& r) {
  std::size_t written = 0;
  if (input.empty()) close_fd(in_fd);
  if (in_fd >= 0) ::fcntl(in_fd, F_SETFL, O_NONBLOCK);
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    pollfd fds[3];
    int n = 0, out_i = -1, err_i = -1, in_i = -1;
    if (out_fd >= 0) fds[out_i = n++] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[err_i = n++] = {err_fd, POLLIN, 0};
    if (in_fd >= 0) fds[in_i = n++] = {in_fd, POLLOUT, 0};
    if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto drain = [&](int idx, int& fd, std::string& dst) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      const ssize_t k = ::read(fd, buf, sizeof buf);
      if (k > 0)
        dst.append(buf, static_cast<std::size_t>(k));
      else if (k == 0 || errno != EINTR)
        close_fd(fd);
    };
    drain(out_i, out_fd, r.out);
    drain(err_i, err_fd, r.err);
    if (in_i >= 0 && (fds[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t k = ::write(in_fd, input.data() + written, input.size() - written);
      if (k > 0) written += static_cast<std::size_t>(k);
      if (k < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // the child closed its stdin
      if (written >= input.size()) close_fd(in_fd);
    }
  }
  close_fd(in_fd);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw InputError("run_process", "no program to run", "pass the program as argv[0]");
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) || ::pipe2(out_pipe, O_CLOEXEC) || ::pipe2(err_pipe, O_CLOEXEC))
    throw InputError(argv[0], std::string("cannot create pipes: ") + std::strerror(errno),
                     "raise the limit of open files (ulimit -n)");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env = environment_with(options.env);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  int in_fd = in_pipe[1], out_fd = out_pipe[0], err_fd = err_pipe[0];
  if (rc != 0) {
    close_fd(in_fd);
    close_fd(out_fd);
    close_fd(err_fd);
    throw InputError(argv[0], std::string("cannot start: ") + std::strerror(rc),
                     "install the program or put its folder on PATH");
  }
  ProcessResult r;
  pump(in_fd, out_fd, err_fd, options.input, r);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace openrecipes
