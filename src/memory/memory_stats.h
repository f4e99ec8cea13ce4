// StatsByDevice: one MemoryStats per device from the allocators of its streams.
// Event counters (system allocations, hits, misses, recoveries) are summed;
// bytes in use, peak and reserved come from the device's shared budget when
// the allocators have one — a sum of per-stream peaks would overstate the
// device's peak.
#ifndef EAGERVM_MEMORY_MEMORY_STATS_H_
#define EAGERVM_MEMORY_MEMORY_STATS_H_

#include <vector>

#include "eagervm/memory_stats.h"
#include "memory/allocator.h"

namespace eagervm::memory {

// Thread-safe (each allocator's GetStats is); not one atomic cut.
std::vector<MemoryStats> StatsByDevice(const std::vector<const Allocator*>& allocators);

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_MEMORY_STATS_H_
