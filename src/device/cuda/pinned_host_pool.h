// PinnedHostPool: page-locked host memory for the copies of one CUDA stream
// (staging buffers of host reads and writes, and the CPU tensors that D2H
// copies produce), cached in power-of-two size classes.
//
// Host threads touch pinned memory outside stream order, so a freed block is
// reused only once the stream's device work launched before the free has
// completed: Deallocate() tags the block with the stream's launch sequence
// and Reclaim() moves blocks whose tag the device has passed back to the free
// lists. cudaHostAlloc is slow (~ms), hence the cache; Shrink() frees it.
//
// Thread-safe (one mutex; the owner is the scheduler thread, but a tensor
// dropped after shutdown frees from any thread).
#ifndef EAGERVM_DEVICE_CUDA_PINNED_HOST_POOL_H_
#define EAGERVM_DEVICE_CUDA_PINNED_HOST_POOL_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <vector>

#include "base/mutex.h"
#include "memory/allocator.h"

namespace eagervm::device::cuda {

class PinnedHostPool final : public memory::Allocator {
 public:
  // `launched` and `completed` are the owning stream's sequence counters;
  // allocation reclaims what `completed` covers only up to the last Reclaim().
  PinnedHostPool(const std::atomic<uint64_t>* launched, const std::atomic<uint64_t>* completed)
      : launched_(launched), completed_(completed) {}
  ~PinnedHostPool() override;
  PinnedHostPool(const PinnedHostPool&) = delete;
  PinnedHostPool& operator=(const PinnedHostPool&) = delete;

  absl::StatusOr<void*> Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  void Shrink() override;
  MemoryStats GetStats() const override;
  // Any thread: makes sure a block of `bytes`' class is cached (free, or
  // freed and waiting for the device), allocating one if not. The system
  // allocation runs outside the lock: the stream's thread is not held up.
  // Errors are dropped (Allocate reports them when the block is needed).
  void Reserve(size_t bytes);
  // Moves blocks freed at or before launch `upto` (which must have completed,
  // with every host action before it) back to the free lists.
  void Reclaim(uint64_t upto);

  // Size class of a request (exposed for tests).
  static size_t ClassBytes(size_t bytes);

 private:
  struct Pending {
    void* ptr;
    size_t class_bytes;
    uint64_t tag;
  };
  static int ClassIndex(size_t class_bytes);
  void ReclaimLocked(uint64_t upto) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FreeCachedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::atomic<uint64_t>* launched_;
  const std::atomic<uint64_t>* completed_;
  mutable base::Mutex mu_;
  std::vector<std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);  // by class index
  std::deque<Pending> pending_ ABSL_GUARDED_BY(mu_);           // tag order
  uint64_t reclaimable_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t in_use_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t peak_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t reserved_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t allocs_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_PINNED_HOST_POOL_H_
