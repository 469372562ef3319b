// Large buffers with transparent huge pages (see large_buffer.h).
#include "core/large_buffer.h"

#include <sys/mman.h>

#include <new>

namespace openrecipes {

LargeBuffer allocate_large_buffer(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  void* p = nullptr;
  if (bytes >= kHuge) {
    const std::size_t size = (bytes + kHuge - 1) / kHuge * kHuge;
    p = std::aligned_alloc(kHuge, size);
    if (p) ::madvise(p, size, MADV_HUGEPAGE);
  } else {
    p = std::malloc(bytes ? bytes : 1);
  }
  if (!p) throw std::bad_alloc();
  return LargeBuffer(static_cast<char*>(p));
}

}  // namespace openrecipes
