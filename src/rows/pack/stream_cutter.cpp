// EOS join and cut into rows of L (SPEC §1.5–1.6).
#include "rows/pack/stream_cutter.h"

#include <utility>

namespace openrecipes::rows {

StreamCutter::StreamCutter(std::uint32_t row_length, std::int32_t eos, RowSink sink, std::optional<std::uint64_t> limit)
    : row_length_(row_length), eos_(eos), sink_(std::move(sink)), limit_(limit) {
  buffer_.reserve(row_length);
}

bool StreamCutter::add(std::span<const std::int32_t> ids) {
  if (started_) push(eos_);
  started_ = true;
  for (std::int32_t id : ids) push(id);
  ++conversations_;
  if (full()) done_ = true;
  return !done_;
}

void StreamCutter::finish() {
  if (!done_) dropped_ += buffer_.size();
}

void StreamCutter::push(std::int32_t id) {
  ++tokens_;
  if (full()) {
    ++dropped_;
    return;
  }
  buffer_.push_back(id);
  if (buffer_.size() == row_length_) {
    sink_(buffer_);
    ++rows_;
    buffer_.clear();
  }
}

}  // namespace openrecipes::rows
