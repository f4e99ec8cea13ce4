// CPU relax hint and a monotonic nanosecond clock (NowNanos) for bounded spinning.
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

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_SPIN_H_
