// Conversations as the rows build sees them (SPEC §1.1): owned messages, views, and a compact in-memory arena
// holding a whole source (one text buffer in large blocks + message views) for random access in permutation
// order.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/large_buffer.h"

namespace openrecipes::rows {

/// One chat message, owned. `role` and `content` are valid UTF-8.
struct Message {
  std::string role;
  std::string content;
  bool operator==(const Message&) const = default;
};
using Conversation = std::vector<Message>;

/// One chat message as views into storage owned elsewhere (a ConversationArena, or the reader's current
/// chunk during a SourceSet::read_each callback).
struct MessageView {
  std::string_view role;
  std::string_view content;
};
/// A conversation as views: its messages in order.
using ConversationView = std::span<const MessageView>;

/// Copies a view into an owned Conversation.
Conversation to_conversation(ConversationView view);

/// All conversations of a source in memory, indexed 0..size()-1 in source order (SPEC §1.1). Text lives in
/// blocks that grow from 1 MiB (or the size given) to kBlockBytes, on huge pages (core/large_buffer.h; a message
/// never spans blocks), roles are interned once, and each
/// message costs one MessageView (32 bytes) plus its content; each conversation 8 bytes. Memory therefore stays
/// near the text size.
/// Appending is single-threaded; once filled, const access is safe from any number of threads. Views stay
/// valid as long as the arena lives (blocks never move).
class ConversationArena {
 public:
  /// Largest text block: 64 MiB (also the largest message a source may hold, kMaxMessageBytes).
  static constexpr std::size_t kBlockBytes = 64ull << 20;

  ConversationArena() = default;
  /// An arena whose first text block holds `first_block_bytes` (at most kBlockBytes): the size of the text it will
  /// hold when that is known, so that it needs one block.
  explicit ConversationArena(std::size_t first_block_bytes);
  ConversationArena(ConversationArena&&) noexcept = default;
  ConversationArena& operator=(ConversationArena&&) noexcept = default;
  ConversationArena(const ConversationArena&) = delete;
  ConversationArena& operator=(const ConversationArena&) = delete;

  /// Appends a conversation (copies its text). Each content and role must be at most kBlockBytes long
  /// (std::length_error otherwise; the source reader enforces kMaxMessageBytes first).
  void append(ConversationView conversation);
  /// Appends every conversation of `other` after this arena's, in order, by taking over its blocks (no text is
  /// copied; views into `other` stay valid and now belong to this arena). `other` is left empty.
  void absorb(ConversationArena&& other);

  /// Number of conversations.
  std::size_t size() const { return starts_.size() - 1; }
  /// Conversation i (0-based, i < size()) as views into the arena.
  ConversationView operator[](std::size_t i) const {
    return ConversationView(messages_.data() + starts_[i], static_cast<std::size_t>(starts_[i + 1] - starts_[i]));
  }
  /// Total messages, and total bytes of message text (content + role bytes as given, before interning).
  std::uint64_t message_count() const { return messages_.size(); }
  std::uint64_t text_bytes() const { return text_bytes_; }
  /// Bytes the arena holds (blocks + views + offsets), for memory reports.
  std::uint64_t memory_bytes() const;

 private:
  std::string_view store(std::string_view s);
  std::string_view intern_role(std::string_view role);

  std::vector<LargeBuffer> blocks_;
  std::size_t first_block_ = 1ull << 20;
  std::size_t block_size_ = 0, block_used_ = 0;  // the last block's size and fill
  std::uint64_t block_bytes_total_ = 0;
  std::vector<MessageView> messages_;
  std::vector<std::uint64_t> starts_{0};
  std::unordered_map<std::string_view, std::string_view> roles_;  // keys and values point into blocks
  std::uint64_t text_bytes_ = 0;
};

}  // namespace openrecipes::rows
