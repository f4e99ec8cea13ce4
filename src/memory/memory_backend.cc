#include "memory/memory_backend.h"

#include <sys/mman.h>

#include <cstdlib>

namespace eagervm::memory {
namespace {
constexpr size_t kBackendAlignment = 64;
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

// Segments of 2 MiB and more (the caching allocator's large pool) are 2 MiB
// aligned and advised as transparent huge pages: a streaming kernel over
// tensors of many MiB otherwise spends much of its time in 4 KiB-page TLB
// misses. Where THP is off, the advice is ignored.
void* MallocBackend::Allocate(size_t bytes) {
  if (bytes >= kHugePage) {
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p != nullptr) (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
  }
  return std::aligned_alloc(
      kBackendAlignment, (bytes + kBackendAlignment - 1) / kBackendAlignment * kBackendAlignment);
}

void MallocBackend::Free(void* ptr, size_t) { std::free(ptr); }

std::shared_ptr<MemoryBackend> DefaultHostBackend() {
  static auto* backend = new std::shared_ptr<MemoryBackend>(std::make_shared<MallocBackend>());
  return *backend;
}

}  // namespace eagervm::memory
