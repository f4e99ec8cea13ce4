// Fault injection, for tests: make the Nth allocation or the Nth kernel call
// from now on fail, to prove that every failure ends as a status at a sync
// point, that memory returns to its baseline and that the VM stays usable
// (tests/fault_injection_test.cc).
//
// Always compiled in: a separate build for one test would leave the
// sanitizer builds without it. Disarmed, a hook costs one relaxed load of a
// global and a not-taken branch; the hooks sit in Allocator::Allocate (which
// takes a lock anyway) and once per kernel call in OpCallPolicy::Compute, not
// per instruction elsewhere. Covered: the host allocators (caching and
// system) and eager kernel calls; not CUDA device memory, not graph replay.
#ifndef EAGERVM_BASE_FAULT_INJECTION_H_
#define EAGERVM_BASE_FAULT_INJECTION_H_

#include <atomic>
#include <cstdint>

namespace eagervm::base {

// kAllocation: an allocator's Allocate fails with RESOURCE_EXHAUSTED (as
// over a limit). kSystemAllocation: the system refuses one new segment of a
// caching allocator (its backend returns null), which the allocator must
// recover from or report as "the system refused it". kKernel: an eager kernel
// call fails with ABORTED.
enum class FaultSite { kAllocation = 0, kKernel = 1, kSystemAllocation = 2 };
inline constexpr int kNumFaultSites = 3;

namespace internal_fault {
// Per site: calls left up to and including the one that fails; <= 0 when
// disarmed. Relaxed: a test arms it while the VM is idle (after a Sync), and
// the VM threads only need to see each decrement once (the read-modify-write
// makes exactly one call the failing one, whichever thread it runs on).
inline std::atomic<int64_t> countdown[kNumFaultSites];
bool Trip(FaultSite site);  // the armed path
}  // namespace internal_fault

// Any thread. The `n`th call (n >= 1) of `site` from now fails, once; n <= 0
// disarms. Call it while nothing runs on the VM (after Sync()) to know which
// call is the nth.
void ArmFault(FaultSite site, int64_t n);
// Any thread: calls of `site` still to come before the armed one fails (0
// when disarmed or spent). A test arms a large n and reads this to count calls.
int64_t FaultCountdown(FaultSite site);
// Any thread: faults injected at `site` since the process started.
int64_t InjectedFaults(FaultSite site);

// The hook: true iff this call is the one to fail. Thread-safe.
inline bool ShouldInjectFault(FaultSite site) {
  if (internal_fault::countdown[static_cast<int>(site)].load(std::memory_order_relaxed) <= 0)
      [[likely]] {
    return false;
  }
  return internal_fault::Trip(site);
}

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_FAULT_INJECTION_H_
