// CPU relax hint and a monotonic microsecond clock for bounded spinning.
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

inline int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_SPIN_H_
