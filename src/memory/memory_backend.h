// MemoryBackend: where a caching allocator gets its segments from. The system
// heap by default; tests plug in a backend that counts calls or refuses, and a
// device backend (pinned host memory, device memory) plugs in the same way.
#ifndef EAGERVM_MEMORY_MEMORY_BACKEND_H_
#define EAGERVM_MEMORY_MEMORY_BACKEND_H_

#include <cstddef>
#include <memory>

namespace eagervm::memory {

class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;
  // A segment of `bytes` (> 0) aligned to at least 64 bytes, or nullptr when
  // the system refuses. Thread-safe.
  virtual void* Allocate(size_t bytes) = 0;
  // `bytes` is the size passed to Allocate. Thread-safe.
  virtual void Free(void* ptr, size_t bytes) = 0;
};

// std::aligned_alloc / std::free.
class MallocBackend final : public MemoryBackend {
 public:
  void* Allocate(size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;
};

// The process-wide MallocBackend (stateless, never destroyed).
std::shared_ptr<MemoryBackend> DefaultHostBackend();

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_MEMORY_BACKEND_H_
