#include "memory/memory_stats.h"

#include "memory/device_memory_budget.h"

namespace eagervm::memory {

std::vector<MemoryStats> StatsByDevice(const std::vector<const Allocator*>& allocators) {
  std::vector<MemoryStats> out;
  std::vector<const DeviceMemoryBudget*> budgets;  // parallel to `out`; null if none seen
  for (const Allocator* a : allocators) {
    const MemoryStats m = a->GetStats();
    size_t i = 0;
    while (i < out.size() && !(out[i].device == m.device)) ++i;
    if (i == out.size()) {
      MemoryStats fresh;
      fresh.device = m.device;
      out.push_back(fresh);
      budgets.push_back(nullptr);
    }
    MemoryStats& e = out[i];
    e.system_allocs += m.system_allocs;
    e.cache_hits += m.cache_hits;
    e.cache_misses += m.cache_misses;
    e.oom_recoveries += m.oom_recoveries;
    e.oom_failures += m.oom_failures;
    if (const DeviceMemoryBudget* b = a->budget()) {
      budgets[i] = b;
    } else {
      e.bytes_in_use += m.bytes_in_use;
      e.peak_bytes_in_use += m.peak_bytes_in_use;
      e.bytes_reserved += m.bytes_reserved;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (const DeviceMemoryBudget* b = budgets[i]) {
      out[i].bytes_in_use += b->in_use();
      out[i].peak_bytes_in_use += b->peak_in_use();
      out[i].bytes_reserved += b->reserved();
    }
  }
  return out;
}

}  // namespace eagervm::memory
