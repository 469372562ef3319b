// `serve`: static files of a built site over cpp-httplib (site/serve.h).
#include "site/serve.h"

#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "core/error.h"
#include "core/files.h"
#include "site/site_writer.h"
#include "site/static_files.h"

namespace openrecipes::site {

namespace fs = std::filesystem;

namespace {

// Why `host`:`port` cannot be listened on, asked of the system with a socket of its own (the HTTP library says only
// that it failed): a port another process holds, one below 1024 without the privilege, a host that is not this
// machine's.
std::string bind_problem(const std::string& host, int port) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found)
    return fmt::format("cannot listen: '{}' is not a host name or address this machine resolves", host);
  int err = 0;
  const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (fd < 0) {
    err = errno;
  } else {
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(fd, found->ai_addr, found->ai_addrlen) != 0) err = errno;
    close(fd);
  }
  freeaddrinfo(found);
  switch (err) {
    case EADDRINUSE:
      return fmt::format("cannot listen: port {} is in use by another process (another serve?)", port);
    case EACCES:
      return fmt::format("cannot listen: port {} is below 1024 and needs privileges", port);
    case EADDRNOTAVAIL:
      return fmt::format("cannot listen: {} is not an address of this machine", host);
    case 0:
      return "cannot listen on this address (it was free when asked again: try once more)";
    default:
      return fmt::format("cannot listen on this address: {}", std::strerror(err));
  }
}

void common_headers(httplib::Response& res) {
  res.set_header("Content-Security-Policy", kContentSecurityPolicy);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cache-Control", "no-cache");
  res.set_header("Accept-Ranges", "none");  // whole files only (RFC 9110 §14.3: "none" advertises no range support)
}

// The answer to a path no file of the site has: a small page (the site's own style sheet is at the root).
const char* const kNotFoundPage =
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not found · OpenRecipes</title>"
    "<link rel=\"stylesheet\" href=\"/assets/style.css\"></head>\n<body><main><h1>Not found</h1><p>No page or file of "
    "this site has this address.</p><p><a href=\"/index.html\">The leaderboard</a></p></main></body></html>\n";

}  // namespace

void serve_site(const fs::path& site, const ServeOptions& options, const std::function<void(int)>& on_listening) {
  std::error_code ec;
  if (!fs::is_directory(site, ec) || !fs::exists(site / kSiteMarker, ec)) {
    // A registry given by mistake (it holds gpus.yaml) is built into a site beside it, never into itself.
    const bool registry = fs::is_regular_file(site / "gpus.yaml", ec);
    throw InputError(
        site.string(),
        "is not a site openrecipes built (no " + std::string(kSiteMarker) + ")" +
            (registry ? ": it is a registry" : ""),
        registry ? "build its site first: openrecipes build " + site.string() + " -o site/, then openrecipes serve site"
                 : "build one first: openrecipes build -o " + site.string());
  }
  const fs::path root = fs::canonical(site, ec);
  httplib::Server server;
  // SO_REUSEADDR only: cpp-httplib's default SO_REUSEPORT would let a second serve share a port already in use.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // 64 connection threads, so a few slow clients (each held at most the 5 s read timeout) do not block the rest.
  server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  server.set_payload_max_length(0);
  server.set_keep_alive_max_count(100);
  server.set_read_timeout(5);
  auto get = [root](const httplib::Request& req, httplib::Response& res) {
    common_headers(res);
    // Whole files only, as RFC 9110 §14.2 lets a server that ignores Range answer: 200 with the whole file, and no
    // Accept-Ranges advertised. cpp-httplib (0.11) cuts the body to req.ranges after this handler returns (a 200
    // holding part of the file, or one as large as all the ranges); the Request is the server's own non-const object,
    // so clearing them here is what ignoring Range means.
    const_cast<httplib::Request&>(req).ranges.clear();
    std::string target = req.target.substr(0, req.target.find('?'));
    if (target.size() > kMaxRequestPathBytes) {
      res.status = 414;
      res.set_content(
          fmt::format("the path is over {} bytes; no file of the site has such a path\n", kMaxRequestPathBytes),
          "text/plain; charset=utf-8");
      return;
    }
    auto file = resolve_static_path(root, target);
    std::string body;
    if (file) {
      try {
        body = read_file(*file, 1ull << 32);
      } catch (const InputError&) {
        file.reset();
      }
    }
    if (!file) {
      res.status = 404;
      res.set_content(kNotFoundPage, "text/html; charset=utf-8");
      return;
    }
    res.status = 200;
    res.set_content(std::move(body), content_type_for(*file).c_str());
  };
  server.Get(".*", get);
  auto refuse = [](const httplib::Request&, httplib::Response& res) {
    common_headers(res);
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
    res.set_content("only GET and HEAD\n", "text/plain; charset=utf-8");
  };
  server.Post(".*", refuse);
  server.Put(".*", refuse);
  server.Delete(".*", refuse);
  server.Patch(".*", refuse);
  server.Options(".*", refuse);

  // SIGINT and SIGTERM go to one waiting thread (blocked everywhere else, so the server's threads inherit the
  // block), which stops the server; SIGUSR1 wakes it when the server ends for another reason.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT), sigaddset(&set, SIGTERM), sigaddset(&set, SIGHUP), sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  int port = options.port == 0 ? server.bind_to_any_port(options.host)
                               : (server.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw InputError(url_host(options.host) + ":" + std::to_string(options.port),
                     bind_problem(options.host, options.port), "choose another --port (0 picks a free one) or --host");
  }
  std::thread waiter([&server, set] {
    int sig = 0;
    sigwait(&set, &sig);
    server.stop();
  });
  on_listening(port);
  server.listen_after_bind();
  pthread_kill(waiter.native_handle(), SIGUSR1);  // harmless when it already returned from sigwait
  waiter.join();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace openrecipes::site
