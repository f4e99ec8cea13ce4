// SyncWaiter: a one-shot handoff from a VM thread to a user thread blocked on a
// result (Sync, Item, ToVector). The waiter spins briefly (the common case of a
// short queue answers in well under a microsecond), then parks.
//
// Safe to destroy as soon as Wait() returns: the signalling thread's last
// access is the final release store that Wait() waits for, so a waiter on the
// stack never outlives a thread still touching it.
#ifndef EAGERVM_BASE_SYNC_WAITER_H_
#define EAGERVM_BASE_SYNC_WAITER_H_

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/mutex.h"
#include "base/spin.h"

namespace eagervm::base {

class SyncWaiter {
 public:
  // Called once, by the thread that produced the result. If the waiter has
  // not parked, one CAS and no lock: the common case, a short wait.
  void Signal() {
    int expected = kWaiting;
    if (state_.compare_exchange_strong(expected, kFinal, std::memory_order_acq_rel)) return;
    // Parked: wake it under the lock. It then waits for kFinal, so this
    // thread's last access to *this is that store.
    {
      MutexLock lock(&mu_);
      state_.store(kSignaled, std::memory_order_release);
      cv_.NotifyOne();
    }
    state_.store(kFinal, std::memory_order_release);
  }
  // Everything written before Signal() is visible after Wait() returns.
  void Wait(int64_t spin_ns) { (void)WaitFor(spin_ns, -1); }
  // As Wait(), but gives up once `timeout_ns` (>= 0; -1: never) has passed,
  // returning false; the waiter stays armed, so a later Wait/WaitFor (or a
  // Signal from the VM) carries on where this one stopped. True once signalled.
  bool WaitFor(int64_t spin_ns, int64_t timeout_ns) {
    const int64_t start = NowNanos();
    const bool signalled = SpinThenPark(
        spin_ns, [this] { return state_.load(std::memory_order_acquire) == kFinal; },
        [&] { return Park(start, timeout_ns); });
    if (!signalled) return false;
    // Woken (or signalled mid-park): the signaller's last store is due. It
    // may have been preempted by this very thread (a woken thread often
    // lands on its waker's core), so after a short spin give it the CPU;
    // spinning on would hold it off until the time slice ends (~ms).
    for (int iter = 0; state_.load(std::memory_order_acquire) != kFinal; ++iter) {
      CpuRelax();
      if (iter >= 64) SpinYield();
    }
    return true;
  }

 private:
  enum : int { kWaiting = 0, kParked = 1, kSignaled = 2, kFinal = 3 };

  // WaitFor after its spin: sleeps until signalled (true) or `timeout_ns`
  // from `start` has passed (false).
  bool Park(int64_t start, int64_t timeout_ns) {
    MutexLock lock(&mu_);
    int expected = kWaiting;
    // kParked already: an earlier WaitFor gave up while parked.
    if (state_.compare_exchange_strong(expected, kParked, std::memory_order_acq_rel) ||
        expected == kParked) {
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::nanoseconds(timeout_ns - (NowNanos() - start));
      while (state_.load(std::memory_order_acquire) == kParked) {
        if (timeout_ns < 0) {
          cv_.Wait(&mu_);
        } else if (cv_.WaitWithDeadline(&mu_, deadline) &&
                   state_.load(std::memory_order_acquire) == kParked) {
          return false;
        }
      }
    }
    return true;
  }
  std::atomic<int> state_{kWaiting};
  Mutex mu_;  // guards no field: orders parking against the wake-up
  CondVar cv_;
};

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_SYNC_WAITER_H_
