// The calling thread's CPU time: what it computed, not time it spent
// preempted or asleep. A system call on Linux (no vDSO path for thread
// clocks), ~0.2-0.5 us: for rare measurements, not per op.
#ifndef EAGERVM_BASE_THREAD_CPU_CLOCK_H_
#define EAGERVM_BASE_THREAD_CPU_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace eagervm::base {

// Any thread, never blocks: nanoseconds of CPU this thread has used.
inline int64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_THREAD_CPU_CLOCK_H_
