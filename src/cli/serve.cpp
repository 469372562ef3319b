// `openrecipes serve [site] [--port P] [--host H]`: a built site over HTTP (site/serve.h).
#include <iostream>

#include "cli/command.h"
#include "core/error.h"
#include "site/serve.h"

namespace openrecipes::cli {
namespace {

struct ServeCliOptions {
  std::string site = "site";
  site::ServeOptions serve;
};

const bool registered_serve =
    register_command({"serve", "Serve a site that build -o wrote (static files only; Ctrl-C stops)", [](CLI::App& app) {
                        auto o = std::make_shared<ServeCliOptions>();
                        app.add_option("site", o->site, "The site folder build -o wrote")->capture_default_str();
                        app.add_option("--port", o->serve.port, "TCP port; 0 picks a free one")
                            ->check(CLI::Range(0, 65535))
                            ->capture_default_str();
                        app.add_option("--host", o->serve.host, "Address to listen on (0.0.0.0 for every interface)")
                            ->capture_default_str();
                        return [o]() -> int {
                          // An IPv6 address is written in brackets in a URL ("[::1]"), and a user may give it so.
                          std::string& host = o->serve.host;
                          if (host.size() > 2 && host.front() == '[' && host.back() == ']')
                            host = host.substr(1, host.size() - 2);
                          if (host.empty())
                            throw InputError("--host", "empty", "give an address, e.g. 127.0.0.1, 0.0.0.0 or ::1");
                          site::serve_site(o->site, o->serve, [&](int port) {
                            std::cout << "serving " << o->site << " at http://" << site::url_host(host) << ":" << port
                                      << "/ (Ctrl-C stops)" << std::endl;
                          });
                          std::cout << "stopped" << std::endl;
                          return 0;
                        };
                      }});

}  // namespace
}  // namespace openrecipes::cli
