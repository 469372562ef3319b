// Conversation arena: block-allocated text, interned roles, one MessageView per message (SPEC §1.1 source order).
#include "rows/source/conversation.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace openrecipes::rows {

Conversation to_conversation(ConversationView view) {
  Conversation c;
  c.reserve(view.size());
  for (const auto& m : view) c.push_back(Message{std::string(m.role), std::string(m.content)});
  return c;
}

ConversationArena::ConversationArena(std::size_t first_block_bytes)
    : first_block_(std::clamp<std::size_t>(first_block_bytes, 1, kBlockBytes)) {}

std::string_view ConversationArena::store(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > kBlockBytes) throw std::length_error("ConversationArena: a message is larger than 64 MiB");
  if (blocks_.empty() || block_used_ + s.size() > block_size_) {
    // Blocks grow from 1 MiB to kBlockBytes so that small sources stay small.
    std::size_t size = blocks_.empty() ? first_block_ : std::min(kBlockBytes, 2 * block_size_);
    size = std::max(size, s.size());
    blocks_.push_back(allocate_large_buffer(size));
    block_size_ = size;
    block_bytes_total_ += size;
    block_used_ = 0;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  return std::string_view(dst, s.size());
}

std::string_view ConversationArena::intern_role(std::string_view role) {
  auto it = roles_.find(role);
  if (it != roles_.end()) return it->second;
  std::string_view stored = store(role);
  roles_.emplace(stored, stored);
  return stored;
}

void ConversationArena::append(ConversationView conversation) {
  for (const auto& m : conversation) {
    MessageView v{intern_role(m.role), store(m.content)};
    messages_.push_back(v);
    text_bytes_ += m.role.size() + m.content.size();
  }
  starts_.push_back(messages_.size());
}

void ConversationArena::absorb(ConversationArena&& other) {
  const std::uint64_t base = messages_.size();
  messages_.insert(messages_.end(), other.messages_.begin(), other.messages_.end());
  starts_.reserve(starts_.size() + other.starts_.size() - 1);
  for (std::size_t i = 1; i < other.starts_.size(); ++i) starts_.push_back(base + other.starts_[i]);
  if (!other.blocks_.empty()) {
    for (auto& b : other.blocks_) blocks_.push_back(std::move(b));
    block_size_ = other.block_size_;  // the block to fill next is now other's last one
    block_used_ = other.block_used_;
  }
  block_bytes_total_ += other.block_bytes_total_;
  text_bytes_ += other.text_bytes_;
  roles_.insert(other.roles_.begin(), other.roles_.end());
  other = ConversationArena();
}

std::uint64_t ConversationArena::memory_bytes() const {
  return block_bytes_total_ + messages_.capacity() * sizeof(MessageView) + starts_.capacity() * sizeof(std::uint64_t);
}

}  // namespace openrecipes::rows
