// Notifier: a sticky counting wake-up for one waiting thread (the scheduler or
// a stream worker). Notify() is one atomic RMW plus one load when the waiter is
// awake; it takes the mutex only when the waiter is parked.
//
// Memory ordering: everything a thread wrote before Notify() is visible to the
// waiter after the Wait() that observes that notification returns.
// Notifications are never lost: one that arrives while the waiter is running
// makes its next Wait() return at once.
#ifndef EAGERVM_BASE_NOTIFIER_H_
#define EAGERVM_BASE_NOTIFIER_H_

#include <atomic>
#include <cstdint>

#include "base/mutex.h"

namespace eagervm::base {

class Notifier {
 public:
  // Any thread.
  void Notify() {
    if (count_.fetch_add(1, std::memory_order_seq_cst) == 0 &&
        sleeping_.load(std::memory_order_seq_cst)) {
      MutexLock lock(&mu_);
      cv_.NotifyOne();
    }
  }
  // Any thread. Wakes the waiter for good: every later Wait() returns false.
  void Close() {
    MutexLock lock(&mu_);
    closed_.store(true, std::memory_order_seq_cst);
    count_.fetch_add(1, std::memory_order_seq_cst);
    cv_.NotifyOne();
  }
  bool closed() const { return closed_.load(std::memory_order_acquire); }

  // The owning thread only. Returns once notified (consuming every pending
  // notification): spins up to `spin_ns` first, then parks. Returns false if
  // closed and nothing is pending. Sets *parked if it had to park.
  bool Wait(int64_t spin_ns, bool* parked = nullptr);

 private:
  std::atomic<uint64_t> count_{0};
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> closed_{false};
  // Guards no field (the state is atomic): it orders a parking waiter's
  // last check of count_ against a notifier's wake-up, so none is lost.
  Mutex mu_;
  CondVar cv_;
};

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_NOTIFIER_H_
