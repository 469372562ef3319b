// rows.manifest.json (SPEC §1.7): what a rows build was made from and what it produced, written with deterministic
// bytes and read back as untrusted input (every field checked). docs/rows-format.md documents the format.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::rows {

/// One source shard as the manifest records it (build order = file-name order, SPEC §1.1).
struct ManifestSource {
  std::string name;                 ///< file name, no folders
  std::string sha256;               ///< of the file's bytes
  std::uint64_t bytes = 0;          ///< file size
  std::uint64_t conversations = 0;  ///< rows in the shard
  bool operator==(const ManifestSource&) const = default;
};

/// The manifest of one rows build. JSON keys are the field names below; see docs/rows-format.md.
struct RowsManifest {
  static constexpr std::int64_t kFormatVersion = 1;

  std::string dataset_id;        ///< e.g. "allenai/tulu-3-sft-mixture"; "" when the sources are local files
  std::string dataset_revision;  ///< the dataset's commit; "" when unknown
  std::vector<ManifestSource> sources;
  std::string tokenizer_json_sha256;            ///< sha256 of tokenizer.json's bytes
  std::string tokenizer_config_sha256;          ///< sha256 of tokenizer_config.json's bytes
  std::string chat_template_sha256;             ///< sha256 of the chat template text (UTF-8) that was rendered
  std::string eos_token;                        ///< tokenizer_config's eos_token
  std::int64_t eos_id = 0;                      ///< its id, joined between conversations (SPEC §1.5)
  std::string strftime_date = "2026-01-01";     ///< the date strftime_now returned while rendering (SPEC §1.2)
  std::uint64_t seed = 0;                       ///< numpy default_rng seed (SPEC §1.4)
  std::uint32_t row_length = 0;                 ///< L
  std::uint64_t conversations = 0;              ///< n, over all sources
  std::optional<std::uint64_t> rows_requested;  ///< R when the build was limited to R rows (JSON null otherwise)
  std::uint64_t rows_written = 0;
  std::uint64_t tokens_dropped = 0;  ///< stream tokens not written: the final partial row (or, with R, the
                                     ///< part of the stream after the last row that was produced)
  std::string rows_sha256;           ///< SPEC §1.8 over all rows written
  std::string tool_version;          ///< e.g. "openrecipes 0.1.0"

  bool operator==(const RowsManifest&) const = default;
};

/// The manifest as JSON text: keys sorted at every level, 2-space indent, non-ASCII kept as UTF-8, a trailing
/// newline, `format_version` added. Identical input gives identical bytes. Throws InputError when a field breaks
/// the rules manifest_from_json checks (so that what is written always reads back).
std::string manifest_to_json(const RowsManifest& manifest);

/// Parses and checks a manifest (`where` names it in messages, e.g. the file path). Every key must be known and
/// present, of its type and in range: sha256 fields are 64 lowercase hex characters, strings at most 4096 bytes of
/// valid UTF-8, 1 to 100,000 sources in strictly increasing name order whose conversations add up to
/// `conversations`, row_length 1..kMaxRowLength, rows_written <= rows_requested when that is set, strftime_date a
/// valid YYYY-MM-DD, format_version 1. Throws InputError naming the field and the fix.
RowsManifest manifest_from_json(std::string_view text, std::string_view where);

/// Writes `path` atomically (temp file + rename). Throws InputError.
void write_manifest(const std::filesystem::path& path, const RowsManifest& manifest);
/// Reads and checks `path` (at most 16 MiB). Throws InputError.
RowsManifest read_manifest(const std::filesystem::path& path);

/// The manifest path for a rows file: "x.parquet" -> "x.manifest.json".
std::filesystem::path manifest_path_for(const std::filesystem::path& rows_parquet);
/// Its inverse, the rows file a manifest describes: "x.manifest.json" -> "x.parquet". Throws InputError (naming the
/// path and the fix) for a name that does not end in ".manifest.json".
std::filesystem::path rows_path_for_manifest(const std::filesystem::path& manifest);

}  // namespace openrecipes::rows
