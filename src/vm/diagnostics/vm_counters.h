// Relaxed atomic counters the VM threads bump and GetStats() snapshots.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_DIAGNOSTICS_VM_COUNTERS_H_
#define EAGERVM_VM_DIAGNOSTICS_VM_COUNTERS_H_

#include <atomic>
#include <cstdint>

namespace eagervm::vm {

// Grouped by the thread that writes them, one cache line per group: with all
// of them on one line, every op made the submitting thread and the scheduler
// steal that line from each other several times (false sharing).
struct VmCounters {
  // Submitting threads.
  alignas(64) std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> backpressure_waits{0};
  std::atomic<uint64_t> run_ahead_waits{0};  // VmImpl::ThrottleRunAhead
  std::atomic<int64_t> peak_in_flight{0};
  // The scheduler thread.
  alignas(64) std::atomic<uint64_t> dispatched{0};
  std::atomic<uint64_t> finished{0};
  std::atomic<uint64_t> batched{0};  // see VmStats::batched
  std::atomic<uint64_t> inlined{0};
  std::atomic<uint64_t> donated{0};  // also by a donor holding the engine lock
  std::atomic<uint64_t> barriers{0};
  std::atomic<uint64_t> scheduler_wakeups{0};
  std::atomic<int64_t> ready_depth{0};
  std::atomic<int64_t> running_depth{0};
  std::atomic<uint64_t> taken_in{0};  // taken from the pending stack
  // Stream workers (rare: only failures).
  alignas(64) std::atomic<uint64_t> failed{0};

  static void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
    c.fetch_add(n, std::memory_order_relaxed);
  }
  // For counters with one writer at a time (the engine's, bumped several
  // times per op): a load and a store, no locked read-modify-write.
  template <typename T>
  static void Add(std::atomic<T>& c, T n) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  // Received but not yet taken in by the scheduler.
  int64_t pending_depth() const {
    return static_cast<int64_t>(received.load(std::memory_order_relaxed) -
                                taken_in.load(std::memory_order_relaxed));
  }
  int64_t in_flight() const {
    return static_cast<int64_t>(received.load(std::memory_order_acquire) -
                                finished.load(std::memory_order_acquire));
  }
  void NotePeak(int64_t v) {
    int64_t p = peak_in_flight.load(std::memory_order_relaxed);
    while (v > p && !peak_in_flight.compare_exchange_weak(p, v, std::memory_order_relaxed)) {
    }
  }
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_DIAGNOSTICS_VM_COUNTERS_H_
