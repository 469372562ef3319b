// The site's paths: pages, evidence copies and link encoding (site/site_paths.h).
#include "site/site_paths.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include <fmt/format.h>

namespace openrecipes::site {

std::string root_of(const std::string& path) {
  std::string r;
  for (char ch : path)
    if (ch == '/') r += "../";
  return r;
}

std::string model_page_path(const std::string& model) { return "models/" + model + ".html"; }

std::string recipe_page_path(const std::string& id) { return "recipes/" + id + ".html"; }

std::string evidence_site_path(const std::string& id, const std::string& relative) {
  const std::filesystem::path rel = std::filesystem::path(relative).lexically_normal();
  if (relative.empty() || rel.is_absolute() || rel.empty() || *rel.begin() == ".." || rel.filename().empty()) return {};
  std::string out = "recipes/" + id + "/" + rel.generic_string();
  static const std::set<std::string> inert = {".log", ".txt",   ".jsonl", ".json", ".yaml", ".yml",
                                              ".csv", ".patch", ".diff",  ".out",  ".err"};
  std::string ext = rel.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (!inert.count(ext)) out += ".txt";
  return out;
}

std::string url_path(const std::string& path) {
  std::string out;
  for (unsigned char ch : path) {
    if (std::isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~' || ch == '/')
      out += static_cast<char>(ch);
    else
      out += fmt::format("%{:02X}", ch);
  }
  return out;
}

}  // namespace openrecipes::site
