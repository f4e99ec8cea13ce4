// The CPU device's entry of VmStats::memory, for tests that watch memory.
#ifndef EAGERVM_TESTS_MEMORY_STATS_UTIL_H_
#define EAGERVM_TESTS_MEMORY_STATS_UTIL_H_

#include "eagervm/eagervm.h"

namespace eagervm::testing {

// Zero stats if no CPU stream has allocated yet.
inline MemoryStats CpuMemoryStats() {
  for (const MemoryStats& m : VirtualMachine::Get().GetStats().memory) {
    if (m.device == Device::Cpu()) return m;
  }
  return MemoryStats{};
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_MEMORY_STATS_UTIL_H_
