// Tests for src/rows/source/conversation: the arena keeps every conversation as given, in order, with stable views.
#include "rows/source/conversation.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace openrecipes::rows {
namespace {

ConversationArena arena_of(const std::vector<Conversation>& cs) {
  ConversationArena a;
  for (const auto& c : cs) {
    std::vector<MessageView> v;
    for (const auto& m : c) v.push_back({m.role, m.content});
    a.append(v);
  }
  return a;
}

TEST(ConversationArena, conversations_come_back_by_index_exactly_as_appended) {
  std::vector<Conversation> cs = {
      {{"user", "hi"}, {"assistant", "hello"}},
      {},
      {{"system", ""}, {"user", std::string("a\0b", 3)}},
  };
  auto a = arena_of(cs);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t i = 0; i < cs.size(); ++i) EXPECT_EQ(to_conversation(a[i]), cs[i]) << i;
  EXPECT_EQ(a.message_count(), 4u);
  EXPECT_EQ(a.text_bytes(), 4u + 2 + 9 + 5 + 6 + 0 + 4 + 3);
  // Roles are interned: the two "user" views share storage.
  EXPECT_EQ(a[0][0].role.data(), a[2][1].role.data());
}

TEST(ConversationArena, views_stay_valid_while_the_arena_grows_past_many_blocks) {
  ConversationArena a;
  const std::string big(3u << 20, 'x');  // 3 MiB messages force new blocks
  std::vector<MessageView> one{{"user", big}};
  a.append(one);
  const char* first = a[0][0].content.data();
  for (int i = 0; i < 40; ++i) a.append(one);
  EXPECT_EQ(a[0][0].content.data(), first);
  EXPECT_EQ(a[0][0].content, big);
  EXPECT_EQ(a[40][0].content, big);
  EXPECT_GE(a.memory_bytes(), 41u * big.size());
  // A moved arena keeps its views.
  ConversationArena b = std::move(a);
  EXPECT_EQ(b[0][0].content.data(), first);
}

TEST(ConversationArena, a_message_over_the_block_size_is_refused) {
  ConversationArena a;
  std::string huge(ConversationArena::kBlockBytes + 1, 'y');
  std::vector<MessageView> one{{"user", huge}};
  EXPECT_THROW(a.append(one), std::length_error);
}

}  // namespace
}  // namespace openrecipes::rows
