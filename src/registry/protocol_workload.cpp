// The protocol's workload: registry/rules/workload.yaml read, and a rows build held to it
// (registry/protocol_workload.h).
#include "registry/protocol_workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "checks/embedded_rules.h"
#include "core/error.h"
#include "core/yaml.h"

namespace openrecipes::registry {

ProtocolWorkload parse_protocol_workload(std::string_view text, const std::string& file) {
  static const std::regex kHex40("[0-9a-f]{40}"), kHex64("[0-9a-f]{64}");
  static const std::regex kFileName("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");
  auto root = parse_yaml(std::string(text), file);
  root.reject_unknown_keys({"version", "dataset", "revision", "sources"});
  root.require("version").as_int(1, 1);
  ProtocolWorkload w;
  w.file = file;
  w.dataset = root.require("dataset").as_string(200);
  w.revision = root.require("revision").as_string(40);
  if (!std::regex_match(w.revision, kHex40))
    throw InputError(root["revision"].where(), "expected the dataset's 40-hex-digit revision");
  std::set<std::string> names;
  for (const auto& s : root.require("sources").items()) {
    s.reject_unknown_keys({"name", "sha256"});
    ProtocolSource src{s.require("name").as_string(200), s["sha256"].string_or_null(64)};
    if (!std::regex_match(src.name, kFileName))
      throw InputError(s["name"].where(), "'" + src.name + "' is not a plain file name");
    if (!names.insert(src.name).second) throw InputError(s["name"].where(), "'" + src.name + "' is listed twice");
    if (src.sha256 && !std::regex_match(*src.sha256, kHex64))
      throw InputError(s["sha256"].where(), "expected null or 64 lower-case hex digits");
    w.sources.push_back(std::move(src));
  }
  if (w.sources.empty()) throw InputError(root["sources"].where(), "the dataset has no files");
  return w;
}

const ProtocolWorkload& protocol_workload() {
  static const ProtocolWorkload w =
      parse_protocol_workload(checks::rules_file("workload.yaml"), "registry/rules/workload.yaml");
  return w;
}

std::vector<std::string> protocol_build_problems(const rows::RowsManifest& m, const ProtocolWorkload& p) {
  std::vector<std::string> out;
  if (m.dataset_id != p.dataset)
    out.push_back(fmt::format("its dataset is '{}', the protocol's is '{}'", m.dataset_id, p.dataset));
  if (m.dataset_revision != p.revision)
    out.push_back(fmt::format("its dataset revision is '{}', the protocol's is {}", m.dataset_revision, p.revision));
  if (m.row_length != p.row_length)
    out.push_back(fmt::format("its rows are {} tokens long, the protocol's {}", m.row_length, p.row_length));
  std::map<std::string, std::string> read;
  for (const auto& s : m.sources) read[s.name] = s.sha256;
  std::vector<std::string> missing, unrecorded;
  for (const auto& s : p.sources) {
    auto it = read.find(s.name);
    if (it == read.end()) {
      missing.push_back(s.name);
      continue;
    }
    if (!s.sha256)
      unrecorded.push_back(s.name);
    else if (*s.sha256 != it->second)
      out.push_back(fmt::format("its source {} has sha256 {}, the protocol's file {}", s.name, it->second, *s.sha256));
    read.erase(it);
  }
  if (!missing.empty()) out.push_back(fmt::format("it did not read the protocol's {}", fmt::join(missing, ", ")));
  if (!read.empty()) {
    std::vector<std::string> extra;
    for (const auto& [name, sha] : read) extra.push_back(name);
    out.push_back(fmt::format("it read {}, which {} not among the protocol's files", fmt::join(extra, ", "),
                              extra.size() == 1 ? "is" : "are"));
  }
  if (!unrecorded.empty())
    out.push_back(fmt::format("{} records no sha256 of {} yet, so the build's sources cannot be checked ({})", p.file,
                              fmt::join(unrecorded, ", "), "a maintainer records them from the Hub: see that file"));
  return out;
}

}  // namespace openrecipes::registry
