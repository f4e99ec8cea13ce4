// DeviceMemoryBudget: the memory of one device, shared by the allocators of
// all its streams. It enforces the device's limit (VmOptions::cpu_memory_limit
// means "this device", not "each stream"), counts bytes in use device-wide,
// and is where an allocation that failed waits for memory freed elsewhere.
//
// Counters are atomics: allocators on different worker threads update them
// without a shared lock. A limit caps *reserved* bytes (held from the system:
// in use + cached), because that is what the system sees.
#ifndef EAGERVM_MEMORY_DEVICE_MEMORY_BUDGET_H_
#define EAGERVM_MEMORY_DEVICE_MEMORY_BUDGET_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "base/mutex.h"
#include "eagervm/device.h"

namespace eagervm::memory {

class Allocator;

class DeviceMemoryBudget {
 public:
  // `limit_bytes` 0 means unlimited.
  DeviceMemoryBudget(Device device, int64_t limit_bytes) : device_(device), limit_(limit_bytes) {}
  DeviceMemoryBudget(const DeviceMemoryBudget&) = delete;
  DeviceMemoryBudget& operator=(const DeviceMemoryBudget&) = delete;

  Device device() const { return device_; }
  int64_t limit() const { return limit_; }

  // --- any thread, lock-free ---
  // Reserves `bytes` from the system's point of view; false if that would
  // pass the limit (nothing reserved then).
  [[nodiscard]] bool TryReserve(int64_t bytes);
  // Gives back reserved bytes (a segment returned to the system); wakes waiters.
  void Unreserve(int64_t bytes);
  // Takes back a reservation the system then refused: nothing was freed, so
  // no waiter is woken (waking the refused allocator's own wait would make it
  // retry at once, forever: a refused request must reach its deadline).
  void CancelReserve(int64_t bytes);
  void AddInUse(int64_t bytes);
  // Bytes stopped being in use (they are cached now); wakes waiters, since
  // their allocator can shrink that cache.
  void SubInUse(int64_t bytes);
  int64_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  int64_t peak_in_use() const { return peak_in_use_.load(std::memory_order_relaxed); }

  // --- allocators sharing this budget (for OOM recovery) ---
  // Thread-safe. An allocator registers on construction and unregisters in its
  // destructor, before its memory goes away.
  void Register(Allocator* a);
  void Unregister(Allocator* a);
  // Calls Shrink() on every registered allocator. The caller must hold no
  // allocator lock (Shrink takes each allocator's own lock).
  void ShrinkAll();

  // --- waiting for memory freed by other threads ---
  // Usage: `auto w = BeginWait(); while (...) { retry; if (!WaitForFree(&w, deadline)) break; }
  // EndWait();`. A free that happens after BeginWait() is never missed: it
  // either shows in the retry or ends the wait.
  struct WaitToken {
    uint64_t generation;
  };
  WaitToken BeginWait();
  // Blocks until something was freed since `token` (then refreshes it; true)
  // or until `deadline` (false).
  bool WaitForFree(WaitToken* token, std::chrono::steady_clock::time_point deadline);
  void EndWait();

 private:
  void NotifyFreed();

  const Device device_;
  const int64_t limit_;
  std::atomic<int64_t> reserved_{0};
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_in_use_{0};

  base::Mutex registry_mu_;  // order: registry_mu_ before any allocator's lock
  std::vector<Allocator*> allocators_ ABSL_GUARDED_BY(registry_mu_);

  std::atomic<int> waiters_{0};
  base::Mutex wait_mu_;
  base::CondVar wait_cv_;
  uint64_t generation_ ABSL_GUARDED_BY(wait_mu_) = 0;
};

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_DEVICE_MEMORY_BUDGET_H_
