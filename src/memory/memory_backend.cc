#include "memory/memory_backend.h"

#include <cstdlib>

namespace eagervm::memory {
namespace {
constexpr size_t kAlignment = 64;
}  // namespace

void* MallocBackend::Allocate(size_t bytes) {
  return std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
}

void MallocBackend::Free(void* ptr, size_t) { std::free(ptr); }

std::shared_ptr<MemoryBackend> DefaultHostBackend() {
  static auto* backend = new std::shared_ptr<MemoryBackend>(std::make_shared<MallocBackend>());
  return *backend;
}

}  // namespace eagervm::memory
