// Request paths to site files, safely (no traversal, no listing), and their content types.
#include "site/static_files.h"

#include <system_error>

#include "core/text.h"

namespace openrecipes::site {
namespace fs = std::filesystem;
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// True when `inner` is `outer` or below it (both already canonical).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view target) {
  std::string out;
  out.reserve(target.size());
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] != '%') {
      out += target[i];
      continue;
    }
    const int hi = i + 1 < target.size() ? hex_value(target[i + 1]) : -1;
    const int lo = i + 2 < target.size() ? hex_value(target[i + 2]) : -1;
    if (hi < 0 || lo < 0) return std::nullopt;
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return std::nullopt;
    out += c;
    i += 2;
  }
  return out;
}

std::optional<fs::path> resolve_static_path(const fs::path& root, std::string_view target) {
  if (target.empty() || target.front() != '/' || target.size() > kMaxRequestPathBytes) return std::nullopt;
  const auto decoded = percent_decode(target);
  if (!decoded) return std::nullopt;
  std::string rel = decoded->substr(1);
  const bool folder = rel.empty() || rel.back() == '/';
  if (folder) rel += "index.html";
  fs::path path;
  for (std::string_view seg : split(rel, '/')) {
    if (seg.empty() || seg == "." || seg == ".." || seg.front() == '.' || seg.find('\\') != std::string_view::npos)
      return std::nullopt;
    path /= std::string(seg);
  }
  std::error_code ec;
  const fs::path base = fs::canonical(root, ec);
  if (ec) return std::nullopt;
  const fs::path file = fs::canonical(base / path, ec);
  if (ec || !is_within(file, base) || !fs::is_regular_file(file, ec)) return std::nullopt;
  return file;
}

std::string content_type_for(const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".js") return "text/javascript; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".csv") return "text/csv; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".txt" || ext == ".log" || ext == ".yaml" || ext == ".jsonl") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

}  // namespace openrecipes::site
