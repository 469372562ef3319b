// Parser for a run's versions dump (SPEC §6 "Stack"): "name version" or "name: version" lines, as printed by
// `python -c 'print(torch.__version__)'`-style scripts and `pip list`, plus nvidia-smi's header.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace openrecipes::evidence {

/// Every version the dump shows, by lowercase package name with '-' and '.' folded to '_' (so
/// "transformer-engine" and "transformer_engine" meet). A name may show several versions (e.g. "torch
/// 2.11.0+cu130" from torch itself and "torch 2.11.0" from pip list): all are kept.
struct VersionDump {
  std::string file;
  std::map<std::string, std::set<std::string>> versions;
  /// True when `name` (any spelling) shows exactly `version`.
  bool shows(const std::string& name, const std::string& version) const;
  /// The versions shown for `name` (empty set when none).
  const std::set<std::string>& of(const std::string& name) const;
};

/// Folds a package name: lowercase, '-' and '.' to '_'.
std::string fold_package_name(std::string_view name);

/// Reads every line "name version", "name: version" or "name==version" whose version has a digit; keeps
/// nvidia-smi's "Driver Version: x" (as nvidia_driver) and "CUDA Version: x" (as cuda_driver_api). Other lines
/// are ignored. Never throws on content; the caller bounds the size.
VersionDump parse_versions(std::string_view text, const std::string& file);

}  // namespace openrecipes::evidence
