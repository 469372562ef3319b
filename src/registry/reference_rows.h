// Reference rows builds (SPEC §1, §5): registry/rows/<id>/rows.yaml records one `rows build` of the standard workload
// for one tokenizer, row length L and seed (dataset id and revision, every source shard's name and sha256, the
// sha256 of tokenizer.json, tokenizer_config.json and the chat template, the strftime date, L, seed, rows count and
// rows_sha256, the tool version), with the build's own rows.manifest.json beside it as evidence. A model names the
// build its standard recipes use (registry/models/<model>.yaml `rows_build:`); a standard recipe's rows verify only
// when they are that build's. `openrecipes rows register` writes one from a manifest, after checking the manifest
// against its rows file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "registry/model.h"
#include "registry/protocol_workload.h"
#include "registry/recipe.h"
#include "rows/output/manifest.h"

namespace openrecipes::registry {

/// The rows_sha256 of the first `count` rows of a build (SPEC §1.8: a recipe records the rows its run read, steps x
/// global batch of them, and a build holds more).
struct RowsPrefix {
  std::uint64_t count = 0;
  std::string sha256;
  bool operator==(const RowsPrefix&) const = default;
};

/// One registered reference rows build.
struct ReferenceRows {
  std::string id;               ///< the folder name: [a-z0-9][a-z0-9._-]{0,79}
  rows::RowsManifest manifest;  ///< what rows.yaml records (equal to the manifest evidence)
  /// Digests of shorter prefixes, hashed by `rows register` from the rows file it checked against the manifest,
  /// in increasing count, each below manifest.rows_written.
  std::vector<RowsPrefix> prefixes;
  std::filesystem::path dir;      ///< registry/rows/<id>
  std::filesystem::path file;     ///< registry/rows/<id>/rows.yaml
  std::string manifest_relative;  ///< the evidence, relative to dir: "rows.manifest.json"
};

/// The evidence file's name in a registered build's folder.
inline constexpr const char* kReferenceManifestName = "rows.manifest.json";

/// Loads registry/rows/<id>/rows.yaml (`dir` may end in a separator) and checks it against its manifest evidence.
/// Throws InputError naming the file, the line and the field: malformed YAML, an unknown or missing field, a field the
/// manifest reader refuses (its ranges and formats: rows/output/manifest.h), an id other than the folder's name, a
/// manifest path that leaves the folder, and a field on which rows.yaml and the manifest disagree (both values named).
ReferenceRows load_reference_rows(const std::filesystem::path& dir);

/// load_reference_rows of a folder whose files are to become registry/rows/<expected_id>/ (`rows register` checks its
/// temporary folder before renaming it).
ReferenceRows load_reference_rows_files(const std::filesystem::path& dir, const std::string& expected_id);

/// Every registry/rows/<id>/ (sorted by id); an empty map when registry/rows does not exist. Plain files (a README)
/// and hidden entries (".<id>.tmp" of an interrupted register) are not builds and are passed over. Throws as
/// load_reference_rows, and for a symbolic link among the entries or a registry/rows that is not a folder.
std::map<std::string, ReferenceRows> load_reference_rows_folder(const std::filesystem::path& rows_dir);

/// rows.yaml's text for a build (`id`, its manifest, its prefixes), the writer beside load_reference_rows: `comment`
/// (lines without '#') opens the file; the manifest's fields in its key order, strings as yaml_scalar writes them.
std::string reference_rows_yaml(const std::string& id, const rows::RowsManifest& manifest,
                                const std::vector<RowsPrefix>& prefixes, const std::string& comment);

/// The row counts a protocol run reads (steps x 128 rows for 14 and 20..25 steps: PROTOCOL.md "Measurement"), whose
/// digests `rows register` records by default when the build holds more rows.
std::vector<std::uint64_t> protocol_row_counts();

/// A default id for a build: "<dataset name>-l<L>-seed<seed>-r<rows>-tok<first 8 hex of tokenizer.json's sha256>",
/// lower case, characters outside [a-z0-9._-] as '-': "tulu-3-sft-mixture-l8192-seed0-r2560-tok1a2b3c4d".
std::string default_reference_rows_id(const rows::RowsManifest& manifest);

/// The rows check of one recipe (SPEC §1, §5).
struct RowsCheck {
  std::string status;  ///< "verified: <which build's rows>", "not applicable (non-standard workload)", or
                       ///< "not verified: <why>"
  std::optional<std::string> problem, fix;  ///< the reason (stage "rows") when not verified
};

/// A standard recipe's rows verify when its model names a registered build (`model.rows_build`) and the recipe's
/// dataset id, revision, seed and row length are that build's and its rows {count, sha256} are the build's whole
/// rows or one of its recorded prefixes (each mismatch names both values), and, for slime and miles (whose plugin
/// reads step i's rows [i·B, (i+1)·B)), the count is steps_per_run x global_batch; a model that names none gives "not
/// verified" with the fix naming `openrecipes rows register`. A non-standard workload's rows are not applicable (it
/// ranks in its own pair). `builds` is the registry's.
/// Before that: a standard recipe records row_length L and global_batch B (core/protocol.h), and the build it names is
/// the protocol's workload (protocol_build_problems: dataset, revision, L and source files of `protocol`).
RowsCheck check_rows(const Recipe& recipe, const ModelInfo* model, const std::map<std::string, ReferenceRows>& builds,
                     const ProtocolWorkload& protocol = protocol_workload());

}  // namespace openrecipes::registry
