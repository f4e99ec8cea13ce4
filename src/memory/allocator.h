// Allocator: the interface every stream's memory comes through. One allocator
// per stream, so memory freed in stream order is reusable by the next
// instruction on that stream without a host wait.
#ifndef EAGERVM_MEMORY_ALLOCATOR_H_
#define EAGERVM_MEMORY_ALLOCATOR_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "eagervm/memory_stats.h"

namespace eagervm::memory {

class DeviceMemoryBudget;

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Thread-safe. ResourceExhausted naming the bytes asked, in use and the limit
  // when the request cannot be met. A request of 0 bytes returns a non-null pointer.
  virtual absl::StatusOr<void*> Allocate(size_t bytes) = 0;
  // Thread-safe. `bytes` must be the size passed to Allocate.
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  // Returns cached, fully free memory to the system. Thread-safe.
  virtual void Shrink() {}
  // Thread-safe. This allocator's own counters; when it shares a device
  // budget, device-wide in-use/peak/reserved come from budget() (see
  // StatsByDevice in memory/memory_stats.h).
  virtual MemoryStats GetStats() const = 0;
  // The device budget this allocator draws from, or nullptr if it has none.
  virtual const DeviceMemoryBudget* budget() const { return nullptr; }
};

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_ALLOCATOR_H_
