// Parser for a run's versions dump (SPEC §6 "Stack"; SPEC §5, the device a run names): every "name version" pair on
// a line, as printed by probes, `pip list` and `pip freeze`; the frameworks' own banners (Megatron-LM's "> PyTorch
// version ..... 2.11.0+cu130"); nvidia-smi's driver header; and the GPU devices nvidia-smi lists.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::evidence {

/// A GPU the evidence lists: its index on the node and its name as the driver reports it ("NVIDIA H200").
struct Device {
  std::int64_t index = 0;
  std::string name;
  std::size_t line = 0;  ///< 1-based line of the dump that shows it
  std::string file;      ///< the dump that shows it
  bool operator==(const Device&) const = default;
};

/// Every version the dump shows, by lowercase package name with '-', '.' and spaces folded to '_' (so
/// "transformer-engine", "transformer_engine" and Megatron's "Transformer Engine" meet). A name may show several
/// versions (e.g. "torch 2.11.0+cu130" from torch itself and "torch 2.11.0" from pip list): all are kept.
struct VersionDump {
  std::string file;
  std::map<std::string, std::set<std::string>> versions;
  std::vector<Device> devices;  ///< in the order the dump lists them (one entry per device line)
  /// True when `name` (any spelling) shows exactly `version`.
  bool shows(const std::string& name, const std::string& version) const;
  /// The versions shown for `name` (empty set when none).
  const std::set<std::string>& of(const std::string& name) const;
  /// Adds every version and device of `other` (a banner dump of the log, say); `file` then names both files
  /// ("evidence/env.txt and evidence/train.log") when `other` shows anything.
  void merge(const VersionDump& other);
};

/// Folds a package name: lowercase, '-', '.' and ' ' to '_'.
std::string fold_package_name(std::string_view name);

/// Reads, from every line of `text`:
/// - each pair of words "name version" (also "name: version", "name, version" and "name==version"), anywhere on the
///   line, so `torch 2.11.0+cu130 cuda 13.0 nccl 2.28.9` gives three. A name starts with a letter and holds letters,
///   digits, '_', '-' and '.'; a version starts with a digit and is all digits or holds a '.' (2.11.0+cu130, 13.0,
///   91900; not 77W or 0-15), or, for a name ending in "commit", is 7 to 40 hex digits;
/// - the banners Megatron-LM prints ("> PyTorch version ..... 2.11.0+cu130", "> Megatron-Core version ... 0.20.0",
///   "> Transformer Engine version ... 0.0.0"), under the folded name ("pytorch", "megatron_core",
///   "transformer_engine");
/// - nvidia-smi's "Driver Version: x" (as nvidia_driver) and "CUDA Version: x" (as cuda_driver_api: the driver's
///   highest CUDA, not the toolkit a run used);
/// - "<Name> version: <v>" lines (PyTorch's collect_env: "PyTorch version: 2.11.0+cu130"), under the folded name;
/// - the devices of nvidia-smi's table ("|   0  NVIDIA H200    On  | ..."), of `nvidia-smi -L` ("GPU 0: NVIDIA H200
///   (UUID: ...)", the UUID part optional), of `nvidia-smi -q` ("Product Name : NVIDIA H200", indexed in order) and of
///   `nvidia-smi --query-gpu=...` CSV rows with a name column (after a line naming that query, or a CSV header
///   "index, name, ..." or "name"; without an index column the rows' order is the index).
/// Device lines and table borders give no version pairs. Never throws on content; the caller bounds the size.
VersionDump parse_versions(std::string_view text, const std::string& file);

/// Only the framework banners of a training log (as parse_versions reads them), so that a log's own statement of
/// its PyTorch, Megatron-Core and Transformer Engine versions joins the stack check. Never throws on content.
VersionDump parse_version_banners(std::string_view log_text, const std::string& file);

}  // namespace openrecipes::evidence
