// Tests for `openrecipes serve` (src/site/serve): `openrecipes serve` on a built site answers with the file and its
// type, refuses paths outside the site (.., %2e%2e, hidden files, symlinks out), listings and other methods, and
// stops cleanly on SIGTERM.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "core/files.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;

// `openrecipes serve DIR --port 0` in a child process; reads the port it prints.
struct Server {
  pid_t pid = -1;
  int port = 0;
  explicit Server(const fs::path& site) {
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    pid = fork();
    if (pid == 0) {
      dup2(out[1], 1);
      close(out[0]);
      const std::string bin = testing::cli_binary();
      execl(bin.c_str(), bin.c_str(), "serve", site.c_str(), "--port", "0", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    std::string text;
    char buf[256];
    ssize_t n;
    while (text.find('\n') == std::string::npos && (n = read(out[0], buf, sizeof buf)) > 0) text.append(buf, n);
    close(out[0]);
    auto at = text.find("127.0.0.1:");
    if (at != std::string::npos) port = std::stoi(text.substr(at + 10));
  }
  int stop() {
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }
};

TEST(Serve, serves_the_site_and_nothing_outside_it) {
  testing::TempDir d;
  auto r = testing::run_cli({"build", "-o", (d / "site").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  d.write("secret.txt", "outside\n");
  fs::create_symlink(d / "secret.txt", d / "site/link.txt");
  Server s(d / "site");
  ASSERT_GT(s.port, 0);
  httplib::Client c("127.0.0.1", s.port);
  auto res = c.Get("/index.html");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, read_file(d / "site/index.html"));
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(res->get_header_value("Content-Security-Policy").find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(c.Get("/")->status, 200);  // the folder's index.html
  EXPECT_EQ(c.Get("/assets/site.js")->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  for (const char* bad : {"/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/.openrecipes-site",
                          "/link.txt", "/models", "/models/", "/nothing.html", "/index.html%00"}) {
    auto b = c.Get(bad);
    ASSERT_TRUE(b) << bad;
    EXPECT_EQ(b->status, 404) << bad;
    EXPECT_EQ(b->body.find("outside"), std::string::npos) << bad;
    EXPECT_EQ(b->get_header_value("Content-Type"), "text/html; charset=utf-8") << bad;
    EXPECT_NE(b->body.find("<h1>Not found</h1>"), std::string::npos) << bad;
  }
  EXPECT_EQ(c.Post("/index.html")->status, 405);
  EXPECT_EQ(c.Post("/index.html", "x", "text/plain")->status, 413);  // no request may carry a body
  auto big = c.Get(("/" + std::string(10000, 'a')).c_str());         // over the 8 KiB request line
  EXPECT_TRUE(!big || big->status >= 400);
  auto long_path = c.Get(("/" + std::string(2048, 'a')).c_str());  // 2,049 bytes: over the 2,048 of a site path
  ASSERT_TRUE(long_path);
  EXPECT_EQ(long_path->status, 414);
  EXPECT_EQ(long_path->body, "the path is over 2048 bytes; no file of the site has such a path\n");
  // A Range request gets the whole file with 200 (RFC 9110 lets a server ignore Range); Accept-Ranges says none,
  // to a HEAD request too.
  auto head = c.Head("/index.html");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->get_header_value("Accept-Ranges"), "none");
  for (const char* ranges : {"bytes=0-9", "bytes=0-9,0-9,0-9", "bytes=999999999-"}) {
    httplib::Headers range = {{"Range", ranges}};
    auto rr = c.Get("/index.html", range);
    ASSERT_TRUE(rr) << ranges;
    EXPECT_EQ(rr->status, 200) << ranges;
    EXPECT_EQ(rr->body, read_file(d / "site/index.html")) << ranges;
    EXPECT_FALSE(rr->has_header("Content-Range")) << ranges;
    EXPECT_EQ(rr->get_header_value("Accept-Ranges"), "none") << ranges;
  }
  // A second serve on the same port is refused (no SO_REUSEPORT), with the address named.
  auto second = testing::run_cli({"serve", (d / "site").string(), "--port", std::to_string(s.port)});
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_THAT(second.err,
              ::testing::HasSubstr(fmt::format("cannot listen: port {} is in use by another process", s.port)));
  int status = s.stop();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Serve, a_folder_that_is_not_a_site_is_a_usage_error) {
  testing::TempDir d;
  auto r = testing::run_cli({"serve", d.path().string(), "--port", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("is not a site openrecipes built"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("openrecipes build -o"));
  // The registry itself, given by mistake: the fix builds its site beside it.
  auto reg = testing::run_cli({"serve", (testing::source_dir() / "registry").string(), "--port", "0"});
  EXPECT_EQ(reg.exit_code, 2);
  EXPECT_THAT(reg.err, ::testing::HasSubstr(": it is a registry (fix: build its site first: openrecipes build "));
  EXPECT_THAT(reg.err, ::testing::HasSubstr(" -o site/, then openrecipes serve site)"));
}

}  // namespace
}  // namespace openrecipes
