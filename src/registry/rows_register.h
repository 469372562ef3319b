// `rows register` (SPEC §1, §5; docs/rows-format.md "Reference rows builds"): a rows build of the protocol's workload
// recorded as registry/rows/<id>/ after its rows are hashed again, and named as a model's rows_build when asked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "registry/protocol_workload.h"
#include "rows/output/manifest.h"

namespace openrecipes::registry {

/// What to register.
struct RowsRegistration {
  std::filesystem::path manifest;       ///< the build's rows.manifest.json (its rows.parquet beside it)
  std::optional<std::string> id;        ///< the build's id (default: default_reference_rows_id)
  std::string model;                    ///< a model id: name the build as its rows_build ("" for none)
  bool replace = false;                 ///< with `model`: replace the build the model already names
  std::vector<std::uint64_t> prefixes;  ///< extra row counts whose digests are recorded
  unsigned threads = 0;                 ///< reader threads (0: all cores)
};

/// What registering did.
struct RowsRegistered {
  std::string id;
  rows::RowsManifest manifest;
  /// "registered", "registered again (prefixes added):" or "already registered:" (nothing changed)
  std::string status;
  std::filesystem::path rows_yaml;      ///< registry/rows/<id>/rows.yaml
  std::filesystem::path model_file;     ///< the model file edited ("" without a model)
  std::optional<std::string> replaced;  ///< the build the model named before, when it was replaced
};

/// Registers the build of `q.manifest` in the registry at `root`: it must be the protocol's workload
/// (protocol_build_problems against `protocol`), its rows file must hash to the manifest's rows_sha256, the id must be
/// a registry name and no other build may hold it; the protocol's shorter run lengths, q.prefixes and an earlier
/// registration's prefixes are hashed in the same read. With q.model, the model file's rows_build: is set to the id;
/// a model that already names another build keeps it unless q.replace (then `replaced` names it). The build's folder
/// is written to a hidden folder first, checked to load, then renamed into place; the model file is written atomically
/// after it. Throws InputError (nothing written) naming the manifest, the option or the file, with the fix.
RowsRegistered register_rows_build(const std::filesystem::path& root, const RowsRegistration& q,
                                   const ProtocolWorkload& protocol = protocol_workload());

/// registry/models/<model>.yaml's text with its top-level `rows_build:` set to `id`: a one-line `rows_build: <scalar>`
/// replaced, or the key added at the end (in the file's own line ending). Throws InputError unless the result parses
/// to the same model with rows_build = id (a key written over two lines or twice is left for the maintainer).
std::string with_rows_build(const std::string& yaml, const std::string& id, const std::string& file);

}  // namespace openrecipes::registry
