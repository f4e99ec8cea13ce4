#include "base/fault_injection.h"

namespace eagervm::base {
namespace {
std::atomic<int64_t> injected[kNumFaultSites];
}  // namespace

namespace internal_fault {
bool Trip(FaultSite site) {
  const int i = static_cast<int>(site);
  // Exactly one call sees 1 (several may have passed the load in
  // ShouldInjectFault; the others see 0 or less and go on).
  if (countdown[i].fetch_sub(1, std::memory_order_relaxed) != 1) return false;
  injected[i].fetch_add(1, std::memory_order_relaxed);
  return true;
}
}  // namespace internal_fault

void ArmFault(FaultSite site, int64_t n) {
  internal_fault::countdown[static_cast<int>(site)].store(n > 0 ? n : 0, std::memory_order_relaxed);
}

int64_t FaultCountdown(FaultSite site) {
  const int64_t c =
      internal_fault::countdown[static_cast<int>(site)].load(std::memory_order_relaxed);
  return c > 0 ? c : 0;
}

int64_t InjectedFaults(FaultSite site) {
  return injected[static_cast<int>(site)].load(std::memory_order_relaxed);
}

}  // namespace eagervm::base
