// CachingAllocator's out-of-memory path: recover, or fail with a message that
// says what was asked, what is in use and what the limit is.
#include <cstdint>
#include <thread>

#include "base/byte_size.h"
#include "base/str_cat.h"
#include "memory/caching_allocator.h"

namespace eagervm::memory {

// (1) Shrink every cache of the device (other streams' cached blocks count
// against the device limit too) and retry. (2) Wait for memory freed by other
// threads — releases running on other streams — retrying after each free,
// until `oom_wait` passes (also when the system refused: another stream's
// free may leave room; frees that keep coming do not extend the wait, and the
// allocator's own refused attempts wake nothing). The caller's own stream cannot make progress
// while it waits here, so memory only its own queued releases would free is not waited for
// (docs/memory.md).
absl::StatusOr<void*> CachingAllocator::AllocateWithRecovery(size_t size, size_t bytes) {
  const int64_t limit = budget_->limit();
  if (limit > 0 && static_cast<int64_t>(size) > limit) {
    // Nothing anyone frees can make it fit.
    base::MutexLock lock(&mu_);
    ++c_.oom_failures;
    return OutOfMemory(bytes, /*system_refused=*/false, /*recovery_tried=*/false);
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.oom_wait;
  // Become a waiter before the first retry, so no free after it is missed.
  DeviceMemoryBudget::WaitToken token = budget_->BeginWait();
  bool system_refused = false;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0 && !budget_->WaitForFree(&token, deadline)) break;
    budget_->ShrinkAll();
    base::MutexLock lock(&mu_);
    if (Block* b = AllocateLocked(size, bytes)) {
      ++c_.oom_recoveries;
      budget_->EndWait();
      return static_cast<void*>(b->ptr);
    }
    system_refused = last_refusal_was_system_;
    if (options_.oom_wait.count() <= 0 || std::chrono::steady_clock::now() >= deadline) break;
  }
  budget_->EndWait();
  {
    base::MutexLock lock(&mu_);
    ++c_.oom_failures;
  }
  return OutOfMemory(bytes, system_refused, /*recovery_tried=*/true);
}

absl::Status CachingAllocator::OutOfMemory(size_t bytes, bool system_refused,
                                           bool recovery_tried) const {
  const int64_t in_use = budget_->in_use();
  const int64_t limit = budget_->limit();
  const std::string asked =
      bytes > static_cast<size_t>(INT64_MAX)
          ? base::Cat(bytes, " bytes")
          : base::Cat(base::FormatByteSize(static_cast<int64_t>(bytes)), " (", bytes, " bytes)");
  const std::string held = base::Cat(base::FormatByteSize(in_use), " (", in_use,
                                     " bytes) in use on ", budget_->device().ToString());
  const std::string tried =
      recovery_tried
          ? base::Cat(" (after shrinking the device's caches and waiting up to ",
                      options_.oom_wait.count(), " ms for memory freed by other streams)")
      : system_refused ? std::string()
                       : std::string(" (larger than the limit)");
  if (system_refused || limit <= 0) {
    return absl::ResourceExhaustedError(base::Cat("out of memory: cannot allocate ", asked,
                                                  " with ", held, ": the system refused it",
                                                  tried));
  }
  return absl::ResourceExhaustedError(
      base::Cat("out of memory: cannot allocate ", asked, " with ", held, " and a limit of ",
                base::FormatByteSize(limit), " (", limit, " bytes)", tried));
}

}  // namespace eagervm::memory
