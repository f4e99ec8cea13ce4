// MemoryStats: the memory counters of one device, as VirtualMachine::GetStats()
// reports them (VmStats::memory). A plain value: copy it freely.
#ifndef EAGERVM_MEMORY_STATS_H_
#define EAGERVM_MEMORY_STATS_H_

#include <cstdint>

#include "eagervm/device.h"
#include "eagervm/export.h"

namespace eagervm {

struct EAGERVM_EXPORT MemoryStats {
  Device device;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t bytes_reserved = 0;  // held from the system (in use + cached)
  int64_t system_allocs = 0;
  int64_t cache_hits = 0;
  int64_t cache_misses = 0;
  int64_t oom_recoveries = 0;  // allocations that failed at first and succeeded after recovery
  int64_t oom_failures = 0;    // allocations that still failed after recovery
};

}  // namespace eagervm

#endif  // EAGERVM_MEMORY_STATS_H_
