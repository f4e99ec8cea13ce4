// CPU relax hint, a monotonic nanosecond clock (NowNanos) for bounded
// spinning, and SpinThenPark, the one spin-then-park wait of base's
// synchronisation (Notifier, SyncWaiter).
#ifndef EAGERVM_BASE_SPIN_H_
#define EAGERVM_BASE_SPIN_H_

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace eagervm::base {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Called every 64 spins: on a machine with fewer cores than busy threads (2
// cores: a user thread, the scheduler and a worker), a spinner that never
// yields keeps a just-woken thread off the core for its whole spin window,
// and the handoff it is waiting for stalls behind it. sched_yield returns at
// once when nothing else is runnable.
void SpinYield();

inline int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Waits for `ready()`: spins up to `spin_ns` (relaxing the CPU, yielding
// every 64 spins, SpinYield), then, if still not ready, calls `park()`, which
// sleeps until ready or gives up, and returns its result. Returns true at
// once if ready without parking. `ready` is called often: an atomic load.
template <typename Ready, typename Park>
inline bool SpinThenPark(int64_t spin_ns, Ready&& ready, Park&& park) {
  if (ready()) return true;
  if (spin_ns > 0) {
    const int64_t deadline = NowNanos() + spin_ns;
    int iter = 0;
    while (!ready()) {
      CpuRelax();
      if ((++iter & 63) == 0) {
        if (NowNanos() > deadline) break;
        SpinYield();
      }
    }
  }
  if (ready()) return true;
  return park();
}

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_SPIN_H_
