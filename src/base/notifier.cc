#include "base/notifier.h"

#include "base/spin.h"

namespace eagervm::base {

bool Notifier::Wait(int64_t spin_ns, bool* parked) {
  if (parked != nullptr) *parked = false;
  SpinThenPark(
      spin_ns, [this] { return count_.load(std::memory_order_acquire) != 0; },
      [this, parked] {
        MutexLock lock(&mu_);
        sleeping_.store(true, std::memory_order_seq_cst);
        while (count_.load(std::memory_order_seq_cst) == 0) {
          if (parked != nullptr) *parked = true;
          cv_.Wait(&mu_);
        }
        sleeping_.store(false, std::memory_order_relaxed);
        return true;
      });
  count_.exchange(0, std::memory_order_acq_rel);
  return !(closed_.load(std::memory_order_acquire));
}

}  // namespace eagervm::base
