// The rows build's source reader (SPEC §1.1): Hugging Face parquet shards (`messages: list<struct<content:
// string, role: string>>`, read through DuckDB) and JSONL files with the same keys. Shards are taken in
// lexicographic file-name order and rows in file order, giving conversation indices 0..n-1.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "rows/source/conversation.h"

namespace openrecipes::rows {

/// Bounds on untrusted source data; going over one is an InputError naming the file and row.
inline constexpr std::uint64_t kMaxMessageBytes = 64ull << 20;          ///< one message's content
inline constexpr std::uint64_t kMaxRoleBytes = 256;                     ///< one message's role
inline constexpr std::uint64_t kMaxMessagesPerConversation = 1u << 16;  ///< 65,536 messages
inline constexpr std::uint64_t kMaxJsonlLineBytes = 256ull << 20;       ///< one JSONL line
inline constexpr std::size_t kMaxJsonDepth = 16;                        ///< nesting inside one JSONL line
/// Most conversations a build may read: 2^32 - 1 (numpy_permutation's limit).
inline constexpr std::uint64_t kMaxConversations = 0xffffffffull;

enum class SourceFormat { parquet, jsonl };

/// One input file, after SourceSet::open.
struct SourceShard {
  std::filesystem::path path;  ///< as given on the command line
  std::string name;            ///< file name without folders: the sort key, and what the manifest records
  SourceFormat format = SourceFormat::parquet;
  std::uint64_t bytes = 0;          ///< file size
  std::uint64_t conversations = 0;  ///< rows in this shard
  std::uint64_t first_index = 0;    ///< global index of its first conversation
  std::string sha256;               ///< lowercase hex of the file's bytes; empty until compute_sha256()
};

/// The ordered set of source shards of one rows build.
///
/// Format by extension: `.parquet` is parquet; `.jsonl` and `.json` are JSON Lines (one object per line,
/// blank lines skipped, other keys ignored). Each conversation must be a list of messages, each message
/// exactly the fields `content` and `role`, both non-null strings of valid UTF-8 (other message fields are
/// refused: the template would see them in transformers but the rows build would not). An empty list is a
/// conversation with no messages.
///
/// Errors (all InputError, naming the file, the row or line, and the fix): a missing or unreadable file, two
/// shards with the same file name, an unknown extension, a corrupt or truncated parquet, no `messages` column,
/// a `messages` column of another type, a null list / message / role / content, invalid UTF-8 (parquet: DuckDB
/// refuses it and names the value; JSONL: the line and byte), invalid JSON, a size over the bounds above, more
/// than kMaxConversations in all, or a file that changed between open() and reading it.
class SourceSet {
 public:
  /// Checks every file (exists, format, schema of parquet shards, readable), sorts them by file name (byte
  /// order) and counts their conversations (parquet: footer metadata; JSONL: non-blank lines). `threads` is
  /// DuckDB's thread count for the reads (0: all cores).
  static SourceSet open(const std::vector<std::filesystem::path>& files, unsigned threads = 0);

  const std::vector<SourceShard>& shards() const { return shards_; }
  /// Total conversations n over all shards.
  std::uint64_t size() const { return total_; }

  /// Fills each shard's sha256 (parallel over shards; reads every file once). Throws InputError on a read error.
  /// Writes nothing but the sha256 fields, so it may run while other threads read conversations (read_each,
  /// load_all) or other fields.
  void compute_sha256();

  /// Streams every conversation in order: fn(index, view) for index 0..n-1. The view (and its strings) is
  /// valid only during the call. Throws InputError on bad data (after the rows before it were delivered);
  /// exceptions from fn propagate unchanged.
  void read_each(const std::function<void(std::uint64_t index, ConversationView conversation)>& fn) const;

  /// Reads every conversation into an arena (index i of the arena = conversation i).
  ConversationArena load_all() const;

 private:
  std::vector<SourceShard> shards_;
  std::uint64_t total_ = 0;
  unsigned threads_ = 0;
};

}  // namespace openrecipes::rows
