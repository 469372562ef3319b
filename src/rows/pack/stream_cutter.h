// The join and the cut of SPEC §1.5–1.6: conversations in permutation order joined with EOS between them (none
// after the last), the stream cut into consecutive rows of exactly L tokens, the final partial row dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace openrecipes::rows {

/// Joins conversations' ids with EOS and emits each full row of L ids to a sink, in order. With a row limit R, the
/// stream stops once R rows are out: the rest of the conversation that completed row R is dropped (counted in
/// dropped()), so what is dropped never depends on how far ahead other threads tokenized. Not thread-safe: feed it
/// from one thread, in permutation order.
class StreamCutter {
 public:
  /// Receives each full row (exactly L ids), in order; the span is valid for the call only.
  using RowSink = std::function<void(std::span<const std::int32_t>)>;

  /// `row_length` is L (≥ 1), `eos` the EOS id, `limit` the row count R (none: every full row).
  StreamCutter(std::uint32_t row_length, std::int32_t eos, RowSink sink, std::optional<std::uint64_t> limit);

  /// Appends one conversation (after an EOS unless it is the first). Returns false once R rows are out.
  bool add(std::span<const std::int32_t> ids);
  /// Ends the stream: the final partial row is dropped (unless R rows were already out).
  void finish();

  bool done() const { return done_; }
  std::uint64_t rows() const { return rows_; }                    ///< full rows emitted
  std::uint64_t conversations() const { return conversations_; }  ///< conversations added
  std::uint64_t tokens() const { return tokens_; }                ///< ids seen, EOS included, dropped ones too
  std::uint64_t dropped() const { return dropped_; }              ///< ids in no row

 private:
  bool full() const { return limit_ && rows_ >= *limit_; }
  void push(std::int32_t id);

  std::uint32_t row_length_;
  std::int32_t eos_;
  RowSink sink_;
  std::optional<std::uint64_t> limit_;
  std::vector<std::int32_t> buffer_;
  bool started_ = false, done_ = false;
  std::uint64_t rows_ = 0, conversations_ = 0, tokens_ = 0, dropped_ = 0;
};

}  // namespace openrecipes::rows
