// The rows build (SPEC §1): conversations -> chat template -> tokenizer -> numpy permutation -> join with EOS ->
// cut into rows of exactly L tokens -> rows.parquet + rows.manifest.json, identical bytes for any thread count.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/protocol.h"
#include "rows/output/manifest.h"
#include "rows/output/rows_writer.h"
#include "rows/tokenizer_bundle.h"

namespace openrecipes::rows {

struct RowsBuildProgress {
  std::uint64_t conversations_done = 0;   ///< conversations rendered and tokenized, in stream order
  std::uint64_t conversations_total = 0;  ///< n, or the estimate needed for R rows
  std::uint64_t rows_written = 0;
  std::uint64_t tokens = 0;      ///< tokens in the stream so far (EOS included)
  std::uint64_t text_bytes = 0;  ///< rendered bytes tokenized so far
  double seconds = 0;
};

struct RowsBuildOptions {
  std::vector<std::filesystem::path> sources;  ///< parquet shards or JSONL files
  TokenizerFiles tokenizer;
  std::uint64_t seed = 0;
  std::uint32_t row_length = protocol::kRowLength;
  std::optional<std::uint64_t> rows;         ///< R: stop after R rows (tokenize only what they need)
  unsigned threads = 0;                      ///< 0: all cores; the parquet writer gets as many
  std::string today = "2026-01-01";          ///< strftime_now's date (SPEC §1.2)
  std::string dataset_id, dataset_revision;  ///< recorded in the manifest
  std::filesystem::path output;              ///< rows.parquet; the manifest goes beside it (rows.manifest.json)
  RowsWriterOptions writer;
  std::function<void(const RowsBuildProgress&)> progress;  ///< called from one thread, at most ~4 times a second
};

/// Wall time the build spent in (or, for a step that ran beside others, waiting for) one stage, in the order the
/// stages ended; their sum is about the build's wall time. With more than one thread, tokenizer.json loads and the
/// sources are hashed beside the first read, so `tokenizer` and `sha256` are only what was left to wait for.
struct RowsBuildStage {
  std::string name;  ///< sources (open, count), permutation, read, tokenizer, tokenize, write, sha256, commit
  double seconds = 0;
};

struct RowsBuildResult {
  RowsManifest manifest;
  std::filesystem::path manifest_path;
  RowsWriteResult written;
  std::vector<std::string> warnings;
  RowsBuildProgress stats;             ///< final counts and the wall time
  std::vector<RowsBuildStage> stages;  ///< where the wall time went (a stage that ran in rounds is summed)
  std::string chat_template_origin;    ///< the file (and field) the chat template came from (TokenizerBundle)
};

/// Builds the rows. Throws InputError for bad input: what SourceSet, TokenizerBundle and the writer refuse; a
/// template that raises or hits a sandbox limit (naming the conversation's index, shard and row); a token stream
/// too short for R rows (naming both counts) or for even one row; a row length outside 1..kMaxRowLength; an output
/// (or its manifest) that is a folder or one of the sources; n over kMaxConversations. An interrupted or failed
/// build leaves no rows.parquet or manifest behind (an existing pair is only replaced, both files together, by a
/// complete build: see commit_replacements).
RowsBuildResult build_rows(const RowsBuildOptions& options);

}  // namespace openrecipes::rows
