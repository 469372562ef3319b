// Tests for src/rows/pack/stream_cutter: SPEC §1.5–1.6 (EOS between conversations, none after the last; rows of
// exactly L; the final partial row dropped; with R rows, the rest of the completing conversation dropped). The
// expected rows are written out by hand from the stream in each test.
#include "rows/pack/stream_cutter.h"

#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace openrecipes::rows {
namespace {

using ::testing::ElementsAre;
using Row = std::vector<std::int32_t>;

struct Collected {
  std::vector<Row> rows;
  StreamCutter::RowSink sink() {
    return [this](std::span<const std::int32_t> r) { rows.emplace_back(r.begin(), r.end()); };
  }
};

TEST(StreamCutter, conversations_are_joined_with_eos_between_them_and_cut_into_rows_of_l) {
  Collected c;
  StreamCutter cut(4, 9, c.sink(), std::nullopt);
  // stream: 1 2 3 9 4 5 9 6 9 7  -> rows [1 2 3 9] [4 5 9 6], partial [9 7] dropped
  EXPECT_TRUE(cut.add(Row{1, 2, 3}));
  EXPECT_TRUE(cut.add(Row{4, 5}));
  EXPECT_TRUE(cut.add(Row{6}));
  EXPECT_TRUE(cut.add(Row{7}));
  cut.finish();
  EXPECT_THAT(c.rows, ElementsAre(Row{1, 2, 3, 9}, Row{4, 5, 9, 6}));
  EXPECT_EQ(cut.rows(), 2u);
  EXPECT_EQ(cut.conversations(), 4u);
  EXPECT_EQ(cut.tokens(), 10u);  // 7 ids + 3 EOS
  EXPECT_EQ(cut.dropped(), 2u);
}

TEST(StreamCutter, no_eos_follows_the_last_conversation_so_an_exact_fit_drops_nothing) {
  Collected c;
  StreamCutter cut(3, 0, c.sink(), std::nullopt);
  cut.add(Row{5, 6});
  cut.add(Row{7, 8, 10, 11});  // 5 6 0 | 7 8 10 | 11: two rows, 11 dropped
  cut.finish();
  EXPECT_THAT(c.rows, ElementsAre(Row{5, 6, 0}, Row{7, 8, 10}));
  EXPECT_EQ(cut.dropped(), 1u);
  Collected d;
  StreamCutter exact(3, 0, d.sink(), std::nullopt);
  exact.add(Row{5, 6});
  exact.add(Row{7, 8, 10});  // 5 6 0 7 8 10: exactly 2 rows
  exact.finish();
  EXPECT_THAT(d.rows, ElementsAre(Row{5, 6, 0}, Row{7, 8, 10}));
  EXPECT_EQ(exact.dropped(), 0u);
}

TEST(StreamCutter, with_a_row_limit_the_rest_of_the_completing_conversation_is_dropped_and_the_stream_stops) {
  Collected c;
  StreamCutter cut(4, 9, c.sink(), 1);
  EXPECT_TRUE(cut.add(Row{1, 2, 3}));  // 1 2 3
  EXPECT_FALSE(cut.add(Row{4, 5}));    // 9 completes row 1; 4 5 dropped
  EXPECT_TRUE(cut.done());
  cut.finish();
  EXPECT_THAT(c.rows, ElementsAre(Row{1, 2, 3, 9}));
  EXPECT_EQ(cut.dropped(), 2u);
  EXPECT_EQ(cut.tokens(), 6u);
}

TEST(StreamCutter, a_conversation_longer_than_several_rows_fills_them_all) {
  Collected c;
  StreamCutter cut(2, 9, c.sink(), std::nullopt);
  cut.add(Row{1, 2, 3, 4, 5});  // 1 2 | 3 4 | 5 (partial)
  cut.finish();
  EXPECT_THAT(c.rows, ElementsAre(Row{1, 2}, Row{3, 4}));
  EXPECT_EQ(cut.dropped(), 1u);
}

}  // namespace
}  // namespace openrecipes::rows
