#include "memory/system_allocator.h"

#include <cstdlib>

#include "base/fault_injection.h"
#include "base/str_cat.h"

namespace eagervm::memory {
namespace {
constexpr size_t kSystemAlignment = 64;
alignas(kSystemAlignment) char system_zero_sentinel[kSystemAlignment];
}  // namespace

absl::StatusOr<void*> SystemAllocator::Allocate(size_t bytes) {
  if (bytes == 0) return static_cast<void*>(system_zero_sentinel);
  if (base::ShouldInjectFault(base::FaultSite::kAllocation)) [[unlikely]] {
    return absl::ResourceExhaustedError(
        base::Cat("out of memory: injected fault (test only): allocation of ", bytes, " bytes"));
  }
  const int64_t now = in_use_.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
  if (limit_ > 0 && now > limit_) {
    in_use_.fetch_sub(static_cast<int64_t>(bytes));
    return absl::ResourceExhaustedError(
        base::Cat("out of memory on ", device_.ToString(), ": asked for ", bytes, " bytes with ",
                  now - static_cast<int64_t>(bytes), " in use and a limit of ", limit_));
  }
  void* p = std::aligned_alloc(
      kSystemAlignment, (bytes + kSystemAlignment - 1) / kSystemAlignment * kSystemAlignment);
  if (p == nullptr) {
    in_use_.fetch_sub(static_cast<int64_t>(bytes));
    return absl::ResourceExhaustedError(base::Cat("out of memory on ", device_.ToString(),
                                                  ": the system refused ", bytes, " bytes"));
  }
  allocs_.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void SystemAllocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr || ptr == system_zero_sentinel) return;
  std::free(ptr);
  in_use_.fetch_sub(static_cast<int64_t>(bytes));
}

MemoryStats SystemAllocator::GetStats() const {
  MemoryStats s;
  s.device = device_;
  s.bytes_in_use = in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  s.bytes_reserved = s.bytes_in_use;
  s.system_allocs = allocs_.load(std::memory_order_relaxed);
  s.cache_misses = s.system_allocs;
  return s;
}

}  // namespace eagervm::memory
