// Test support implementation (child processes via posix_spawn, temp folders).
#include "testing/support.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

extern char** environ;

namespace openrecipes::testing {
namespace fs = std::filesystem;

fs::path source_dir() { return fs::path(OPENRECIPES_SOURCE_DIR); }

fs::path fixtures_dir() {
  if (const char* env = std::getenv("OPENRECIPES_FIXTURES"); env && *env) {
    fs::path p(env);
    return fs::is_directory(p) ? p : fs::path();
  }
  fs::path p = source_dir().parent_path() / "shared" / "fixtures";
  return fs::is_directory(p) ? p : fs::path();
}

std::string oracle_python() { return OPENRECIPES_ORACLE_PYTHON; }
fs::path oracle_node_modules() { return fs::path(OPENRECIPES_ORACLE_NODE_MODULES); }

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input) {
  ProcessResult r;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": " << std::strerror(rc);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return r;
  }
  std::size_t written = 0;
  if (input.empty()) {
    close(in_pipe[1]);
    in_pipe[1] = -1;
  }
  fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    pollfd fds[3];
    int n = 0;
    int out_i = -1, err_i = -1, in_i = -1;
    if (out_open) { fds[n] = {out_pipe[0], POLLIN, 0}; out_i = n++; }
    if (err_open) { fds[n] = {err_pipe[0], POLLIN, 0}; err_i = n++; }
    if (in_pipe[1] >= 0) { fds[n] = {in_pipe[1], POLLOUT, 0}; in_i = n++; }
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto drain = [&](int idx, int fd, std::string& dst, bool& open) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t k = read(fd, buf, sizeof buf);
      if (k > 0) dst.append(buf, static_cast<std::size_t>(k));
      else open = false;
    };
    drain(out_i, out_pipe[0], r.out, out_open);
    drain(err_i, err_pipe[0], r.err, err_open);
    if (in_i >= 0 && (fds[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t k = write(in_pipe[1], input.data() + written, input.size() - written);
      if (k > 0) written += static_cast<std::size_t>(k);
      if (k < 0 && errno != EAGAIN) written = input.size();
      if (written >= input.size()) {
        close(in_pipe[1]);
        in_pipe[1] = -1;
      }
    }
  }
  if (in_pipe[1] >= 0) close(in_pipe[1]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

ProcessResult run_cli(const std::vector<std::string>& args, const std::string& input) {
  const char* bin = std::getenv("OPENRECIPES_BIN");
  std::vector<std::string> argv{bin && *bin ? bin : (fs::path(OPENRECIPES_BUILD_DIR) / "openrecipes").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, input);
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
