// Fuzz target: `openrecipes serve`'s request handling (site/serve.h, site/static_files.h): the input is sent as raw
// bytes over TCP to serve running in this process on a site built from the bundled registry, and the answer read.
// Beyond crashes and hangs, a finding is an answer that leaks a file outside the site: a file beside the site folder,
// and a symbolic link inside it pointing there, both hold a marker no answer may contain.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "fuzz_support.h"
#include "registry/evaluate.h"
#include "registry/leaderboard.h"
#include "registry/registry.h"
#include "site/leaderboard_report.h"
#include "site/serve.h"
#include "site/site_writer.h"

namespace {

using namespace openrecipes;
namespace fs = std::filesystem;
constexpr const char* kSecret = "OPENRECIPES-FUZZ-SECRET-0b5f";

// Builds the site once and starts serve on a free port in a thread of its own; returns the port.
int server_port() {
  static int port = [] {
    const fs::path site = fuzz::scratch() / "site";
    auto reg = registry::load_registry(fs::path(OPENRECIPES_SOURCE_DIR) / "registry");
    auto results = registry::evaluate_registry(reg, {});  // pairs point into the results
    auto pairs = registry::build_pairs(reg, results, false);
    site::write_site(site::published_board(site::leaderboard_json(reg, pairs), false), reg, site);
    fuzz::write_file(fuzz::scratch() / "secret.txt", kSecret);
    fs::create_symlink(fuzz::scratch() / "secret.txt", site / "leak.txt");
    static std::mutex mu;
    static std::condition_variable cv;
    static int bound = 0;
    std::thread([site] {
      site::serve_site(site, {"127.0.0.1", 0}, [](int p) {
        std::lock_guard<std::mutex> lock(mu);
        bound = p;
        cv.notify_all();
      });
    }).detach();
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [] { return bound != 0; });
    return bound;
  }();
  return port;
}

// A socket connected to serve. A busy server (64 threads, a listen backlog) may refuse for a moment; one that
// refuses for 5 s is a finding. Closed with a reset once the answer is read, so that a million connections leave no
// TIME_WAIT sockets behind to use up the loopback's ports (the first 10-minute run ended in "connect failed" after
// 107,812 connections).
int connect_to(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int attempt = 0;; ++attempt) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) fuzz::finding(std::string("socket failed: ") + std::strerror(errno));
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
    const int err = errno;
    ::close(fd);
    if (attempt == 500) fuzz::finding(std::string("connect failed: ") + std::strerror(err));
    ::usleep(10000);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = connect_to(server_port());
  for (std::size_t sent = 0; sent < size;) {
    const ssize_t n = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close early on a bad request
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  std::string answer;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  if (answer.find(kSecret) != std::string::npos) fuzz::finding("serve answered with a file outside the site");
  return 0;
}
