// SystemAllocator: 64-byte aligned host memory straight from the system, with
// stats and an optional byte limit. The baseline behind caching allocators.
#ifndef EAGERVM_MEMORY_SYSTEM_ALLOCATOR_H_
#define EAGERVM_MEMORY_SYSTEM_ALLOCATOR_H_

#include <atomic>
#include <cstdint>

#include "memory/allocator.h"

namespace eagervm::memory {

class SystemAllocator final : public Allocator {
 public:
  explicit SystemAllocator(Device device, int64_t limit_bytes = 0)
      : device_(device), limit_(limit_bytes) {}
  absl::StatusOr<void*> Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  MemoryStats GetStats() const override;

 private:
  Device device_;
  int64_t limit_;
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocs_{0};
};

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_SYSTEM_ALLOCATOR_H_
