#include "base/notifier.h"

#include "base/spin.h"

namespace eagervm::base {

bool Notifier::Wait(int64_t spin_ns, bool* parked) {
  if (parked != nullptr) *parked = false;
  if (count_.load(std::memory_order_acquire) == 0 && spin_ns > 0) {
    const int64_t deadline = NowNanos() + spin_ns;
    int iter = 0;
    while (count_.load(std::memory_order_acquire) == 0) {
      CpuRelax();
      if ((++iter & 63) == 0) {
        if (NowNanos() > deadline) break;
        SpinYield();
      }
    }
  }
  if (count_.load(std::memory_order_acquire) == 0) {
    MutexLock lock(&mu_);
    sleeping_.store(true, std::memory_order_seq_cst);
    while (count_.load(std::memory_order_seq_cst) == 0) {
      if (parked != nullptr) *parked = true;
      cv_.Wait(&mu_);
    }
    sleeping_.store(false, std::memory_order_relaxed);
  }
  count_.exchange(0, std::memory_order_acq_rel);
  return !(closed_.load(std::memory_order_acquire));
}

}  // namespace eagervm::base
