// `openrecipes serve [site]` (docs/site.md): a built site over HTTP for a look before publishing it, or behind a
// proxy. Static files only (site/static_files.h decides which), GET and HEAD only, bounded requests (cpp-httplib's
// 8 KiB request line and headers, no body), and every response with the pages' Content-Security-Policy,
// X-Content-Type-Options: nosniff and no-referrer.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace openrecipes::site {

struct ServeOptions {
  std::string host = "127.0.0.1";  ///< the address to listen on; 127.0.0.1 keeps it to this machine
  int port = 8000;                 ///< 0: any free port (on_listening says which)
};

/// `host` as a URL or message writes it with its port: an IPv6 address in brackets ("[::1]"), any other as it is.
inline std::string url_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

/// The Content-Security-Policy every page carries (in a meta element) and serve sends as a header.
inline constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

/// Serves the site folder `site` until SIGINT, SIGTERM or SIGHUP arrives (then it stops accepting, finishes, and
/// returns normally). `on_listening(port)` runs once the socket is bound. Throws InputError when `site` is not a site
/// `build -o` wrote (no .openrecipes-site marker: fix, build one) or the address cannot be bound (names it).
/// Responses: 200 with the whole file, 414 for a path over kMaxRequestPathBytes, 404 for anything else
/// resolve_static_path refuses, 416 for a Range request (whole files only), 413 for a request with a body, 405 for
/// POST, PUT, DELETE, PATCH and OPTIONS (cpp-httplib answers 400 to methods it does not know). A port another socket
/// holds is refused (no SO_REUSEPORT).
void serve_site(const std::filesystem::path& site, const ServeOptions& options,
                const std::function<void(int port)>& on_listening);

}  // namespace openrecipes::site
