// `openrecipes serve [site] [--port P] [--host H]`: a built site over HTTP (site/serve.h).
#include <iostream>

#include "cli/command.h"
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
                          site::serve_site(o->site, o->serve, [&](int port) {
                            std::cout << "serving " << o->site << " at http://" << o->serve.host << ":" << port
                                      << "/ (Ctrl-C stops)" << std::endl;
                          });
                          std::cout << "stopped" << std::endl;
                          return 0;
                        };
                      }});

}  // namespace
}  // namespace openrecipes::cli
