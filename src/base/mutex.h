// Mutex, MutexLock, CondVar: std::mutex and std::condition_variable with
// clang thread-safety annotations, so `ABSL_GUARDED_BY(mu_)` on a member is
// checked by the clang build (`-Wthread-safety`; CMakePresets.json "clang").
// g++ ignores the annotations. std::mutex rather than absl::Mutex: Debian's
// prebuilt absl::Mutex gives ThreadSanitizer false positives.
//
// Memory ordering: as std::mutex — everything written before Unlock() is
// visible to the next thread that Lock()s.
#ifndef EAGERVM_BASE_MUTEX_H_
#define EAGERVM_BASE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "base/spin.h"

namespace eagervm::base {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }
  // Lock(), trying for up to `spin_ns` first without sleeping: for a lock
  // usually held a few microseconds, where a sleep and a wake-up cost more.
  void LockSpinning(int64_t spin_ns) ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    if (mu_.try_lock()) return;
    const int64_t deadline = NowNanos() + spin_ns;
    while (NowNanos() < deadline) {
      for (int i = 0; i < 16; ++i) CpuRelax();
      if (mu_.try_lock()) return;
    }
    mu_.lock();
  }
  // Tells the analysis the caller holds the lock (no runtime check).
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// MutexLock with Mutex::LockSpinning.
class ABSL_SCOPED_LOCKABLE SpinningMutexLock {
 public:
  SpinningMutexLock(Mutex* mu, int64_t spin_ns) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->LockSpinning(spin_ns);
  }
  ~SpinningMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  SpinningMutexLock(const SpinningMutexLock&) = delete;
  SpinningMutexLock& operator=(const SpinningMutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable used with a base::Mutex. There is no predicate
// overload: a lambda is analysed as a function of its own, so write the loop
// (`while (!cond) cv.Wait(&mu);`) and the analysis checks the condition's reads.
class CondVar {
 public:
  // The caller holds `mu`; it is released while waiting and held again on
  // return. Spurious wake-ups happen: wait in a loop on the condition.
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller's MutexLock unlocks it
  }
  // As Wait(), but returns at `deadline` at the latest. True if it returned
  // because the deadline passed (re-check the condition either way).
  bool WaitWithDeadline(Mutex* mu, std::chrono::steady_clock::time_point deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool timed_out = cv_.wait_until(lock, deadline) == std::cv_status::timeout;
    lock.release();
    return timed_out;
  }
  // As WaitWithDeadline(), `timeout` from now.
  bool WaitWithTimeout(Mutex* mu, std::chrono::nanoseconds timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return WaitWithDeadline(mu, std::chrono::steady_clock::now() + timeout);
  }
  // Any thread; holding the mutex is not required.
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_MUTEX_H_
