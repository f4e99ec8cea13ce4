// CachingAllocator: a stream's allocator. Freed blocks stay cached and are
// reused by later requests of a fitting size, so a steady-state loop makes no
// system allocation after its first iteration.
//
//   request <= 1 MiB   -> small pool, carved from 2 MiB segments
//   1 MiB .. 10 MiB    -> large pool, carved from 20 MiB segments
//   >= 10 MiB          -> large pool, a segment rounded up to 2 MiB
//
// A found block larger than the request is split; a freed block merges with
// free neighbours of its segment; Shrink() returns segments that are entirely
// free to the backend. (When the device limit refuses a full-size segment, an
// exact-size one is tried before giving up.) Small requests never split large
// segments, which keeps big blocks whole for big requests.
//
// Thread-safe (one mutex): the owning stream's worker allocates and
// frees; Shrink/GetStats and OOM recovery come from other threads. Requests
// are rounded up to 64 bytes and blocks are 64-byte aligned.
//
// Out of memory (device limit reached, or the backend refuses): shrink every
// allocator on the device and retry; then wait up to `oom_wait` for memory
// freed by other threads (other streams' releases), retrying after each free;
// then fail with ResourceExhausted. See docs/memory.md for why the failing
// stream cannot wait for its own queued releases.
#ifndef EAGERVM_MEMORY_CACHING_ALLOCATOR_H_
#define EAGERVM_MEMORY_CACHING_ALLOCATOR_H_

#include <chrono>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/mutex.h"
#include "memory/allocator.h"
#include "memory/block.h"
#include "memory/device_memory_budget.h"
#include "memory/free_bins.h"
#include "memory/memory_backend.h"

namespace eagervm::memory {

struct CachingAllocatorOptions {
  // How long a failing allocation waits for other threads to free memory
  // before it fails. 0 when nothing else can free concurrently (synchronous VM).
  std::chrono::milliseconds oom_wait{250};
};

class CachingAllocator final : public Allocator {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kSmallRequest = size_t{1} << 20;
  static constexpr size_t kSmallSegment = size_t{2} << 20;
  static constexpr size_t kMediumRequest = size_t{10} << 20;
  static constexpr size_t kMediumSegment = size_t{20} << 20;
  static constexpr size_t kLargeRound = size_t{2} << 20;

  explicit CachingAllocator(std::shared_ptr<DeviceMemoryBudget> budget,
                            std::shared_ptr<MemoryBackend> backend = DefaultHostBackend(),
                            CachingAllocatorOptions options = {});
  ~CachingAllocator() override;  // returns every segment; blocks still handed out die with it
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  absl::StatusOr<void*> Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  void Shrink() override;
  MemoryStats GetStats() const override;
  const DeviceMemoryBudget* budget() const override { return budget_.get(); }

  // The segment size a request of `size` (rounded) bytes asks the backend for.
  static size_t SegmentSize(size_t size);

 private:
  struct Counters {
    int64_t in_use = 0, peak = 0, reserved = 0;
    int64_t system_allocs = 0, system_frees = 0, hits = 0, misses = 0;
    int64_t oom_recoveries = 0, oom_failures = 0;
  };

  FreeBins& BinsOf(const Block* b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return b->large_pool ? large_ : small_;
  }
  Block* AllocateLocked(size_t size, size_t bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Block* NewSegmentLocked(size_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SplitLocked(Block* b, size_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FreeLocked(Block* b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ShrinkLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<void*> AllocateWithRecovery(size_t size, size_t bytes) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status OutOfMemory(size_t bytes, bool system_refused, bool recovery_tried) const;
  Block* NewBlock() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecycleBlock(Block* b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<DeviceMemoryBudget> budget_;
  const std::shared_ptr<MemoryBackend> backend_;
  const CachingAllocatorOptions options_;

  mutable base::Mutex mu_;
  FreeBins small_ ABSL_GUARDED_BY(mu_);
  FreeBins large_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<void*, Block*> live_ ABSL_GUARDED_BY(mu_);  // handed-out blocks
  Block* spare_blocks_ ABSL_GUARDED_BY(mu_) = nullptr;            // recycled Block structs
  std::vector<std::unique_ptr<Block[]>> block_chunks_ ABSL_GUARDED_BY(mu_);
  bool last_refusal_was_system_ ABSL_GUARDED_BY(mu_) = false;
  Counters c_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_CACHING_ALLOCATOR_H_
