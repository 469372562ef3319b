// Versions dump parser (SPEC §6 "Stack").
#include "evidence/versions.h"

#include <cctype>

#include "core/text.h"

namespace openrecipes::evidence {

std::string fold_package_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '.')
      out.push_back('_');
    else
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool VersionDump::shows(const std::string& name, const std::string& version) const {
  return of(name).count(version) > 0;
}

const std::set<std::string>& VersionDump::of(const std::string& name) const {
  static const std::set<std::string> none;
  auto it = versions.find(fold_package_name(name));
  return it == versions.end() ? none : it->second;
}

namespace {
bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 100) return false;
  if (!std::isalpha(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}
bool is_version(std::string_view s) {
  if (s.empty() || s.size() > 100) return false;
  bool digit = false;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c)))
      digit = true;
    else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' || c == '_'))
      return false;
  }
  return digit;
}
void after_label(std::string_view line, std::string_view label, std::string_view key, VersionDump& out) {
  auto p = line.find(label);
  if (p == std::string_view::npos) return;
  std::string_view rest = trim(line.substr(p + label.size()));
  std::size_t e = 0;
  while (e < rest.size() && rest[e] != ' ' && rest[e] != '|') ++e;
  if (is_version(rest.substr(0, e))) out.versions[std::string(key)].insert(std::string(rest.substr(0, e)));
}
}  // namespace

VersionDump parse_versions(std::string_view text, const std::string& file) {
  VersionDump out;
  out.file = file;
  for (std::string_view line : lines_of(text)) {
    after_label(line, "Driver Version:", "nvidia_driver", out);
    after_label(line, "CUDA Version:", "cuda_driver_api", out);
    std::string_view t = trim(line);
    std::string_view name, version;
    if (auto eq = t.find("=="); eq != std::string_view::npos) {
      name = trim(t.substr(0, eq));
      version = trim(t.substr(eq + 2));
    } else {
      auto sp = t.find_first_of(" \t");
      if (sp == std::string_view::npos) continue;
      name = t.substr(0, sp);
      version = trim(t.substr(sp));
      if (!name.empty() && name.back() == ':') name.remove_suffix(1);
      if (version.find_first_of(" \t") != std::string_view::npos) continue;  // prose, not "name version"
    }
    if (is_name(name) && is_version(version)) out.versions[fold_package_name(name)].insert(std::string(version));
  }
  return out;
}

}  // namespace openrecipes::evidence
