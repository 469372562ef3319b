// Large, long-lived byte buffers (the rows build's source text): allocated 2 MiB-aligned and marked for transparent
// huge pages where the kernel offers them (madvise), so that filling gigabytes of text costs one page fault per
// 2 MiB instead of one per 4 KiB. Only speed depends on this; the bytes are the same.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace openrecipes {

struct LargeBufferFree {
  void operator()(char* p) const noexcept { std::free(p); }
};
/// An owned buffer from allocate_large_buffer.
using LargeBuffer = std::unique_ptr<char[], LargeBufferFree>;

/// A buffer of at least `bytes` bytes, uninitialized. From 2 MiB up: 2 MiB-aligned, its size rounded up to a multiple
/// of 2 MiB, with MADV_HUGEPAGE asked for (a refusal is ignored). Throws std::bad_alloc.
LargeBuffer allocate_large_buffer(std::size_t bytes);

}  // namespace openrecipes
