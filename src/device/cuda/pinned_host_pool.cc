#include "device/cuda/pinned_host_pool.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>

#include "base/str_cat.h"
#include "device/cuda/cuda_status.h"

namespace eagervm::device::cuda {
namespace {
constexpr size_t kMinClass = 512;
alignas(64) char pinned_zero_sentinel[64];
}  // namespace

size_t PinnedHostPool::ClassBytes(size_t bytes) {
  return bytes <= kMinClass ? kMinClass : std::bit_ceil(bytes);
}

int PinnedHostPool::ClassIndex(size_t class_bytes) {
  return std::countr_zero(class_bytes) - std::countr_zero(kMinClass);
}

PinnedHostPool::~PinnedHostPool() {
  base::MutexLock lock(&mu_);
  FreeCachedLocked();
  // Pending blocks may still be read by the device; the pool is destroyed only
  // at process exit, when leaking them is the safe choice.
}

absl::StatusOr<void*> PinnedHostPool::Allocate(size_t bytes) {
  if (bytes == 0) return static_cast<void*>(pinned_zero_sentinel);
  const size_t cls = ClassBytes(bytes);
  const int idx = ClassIndex(cls);
  base::MutexLock lock(&mu_);
  if (static_cast<int>(free_.size()) <= idx) free_.resize(idx + 1);
  if (free_[idx].empty()) ReclaimLocked(reclaimable_);
  void* p = nullptr;
  if (!free_[idx].empty()) {
    p = free_[idx].back();
    free_[idx].pop_back();
    ++hits_;
  } else {
    ++misses_;
    cudaError_t e = cudaHostAlloc(&p, cls, cudaHostAllocPortable);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      FreeCachedLocked();  // recovery: give back every cached block, retry
      e = cudaHostAlloc(&p, cls, cudaHostAllocPortable);
    }
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      absl::Status s = CudaStatus(e, "cudaHostAlloc");
      return absl::Status(s.code(), base::Cat("pinned host memory: asked for ", cls, " bytes with ",
                                              reserved_, " reserved: ", s.message()));
    }
    ++allocs_;
    reserved_ += static_cast<int64_t>(cls);
  }
  in_use_ += static_cast<int64_t>(cls);
  if (in_use_ > peak_) peak_ = in_use_;
  return p;
}

void PinnedHostPool::Reserve(size_t bytes) {
  if (bytes == 0) return;
  const size_t cls = ClassBytes(bytes);
  const int idx = ClassIndex(cls);
  {
    base::MutexLock lock(&mu_);
    if (static_cast<int>(free_.size()) > idx && !free_[idx].empty()) return;
    for (const Pending& p : pending_) {
      if (p.class_bytes == cls) return;  // back in the cache once the device passed it
    }
  }
  void* p = nullptr;
  if (cudaHostAlloc(&p, cls, cudaHostAllocPortable) != cudaSuccess) {
    (void)cudaGetLastError();  // this thread's error, not an op's
    return;
  }
  base::MutexLock lock(&mu_);
  if (static_cast<int>(free_.size()) <= idx) free_.resize(idx + 1);
  free_[idx].push_back(p);
  ++allocs_;
  reserved_ += static_cast<int64_t>(cls);
}

void PinnedHostPool::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr || ptr == pinned_zero_sentinel) return;
  const size_t cls = ClassBytes(bytes);
  base::MutexLock lock(&mu_);
  in_use_ -= static_cast<int64_t>(cls);
  pending_.push_back(Pending{ptr, cls, launched_->load(std::memory_order_acquire)});
}

void PinnedHostPool::Reclaim(uint64_t upto) {
  base::MutexLock lock(&mu_);
  if (upto > reclaimable_) reclaimable_ = upto;
  ReclaimLocked(reclaimable_);
}

void PinnedHostPool::ReclaimLocked(uint64_t upto) {
  const uint64_t done = std::min(upto, completed_->load(std::memory_order_acquire));
  while (!pending_.empty() && pending_.front().tag <= done) {
    const Pending& p = pending_.front();
    const int idx = ClassIndex(p.class_bytes);
    if (static_cast<int>(free_.size()) <= idx) free_.resize(idx + 1);
    free_[idx].push_back(p.ptr);
    pending_.pop_front();
  }
}

void PinnedHostPool::Shrink() {
  base::MutexLock lock(&mu_);
  ReclaimLocked(reclaimable_);
  FreeCachedLocked();
}

void PinnedHostPool::FreeCachedLocked() {
  for (size_t idx = 0; idx < free_.size(); ++idx) {
    for (void* p : free_[idx]) {
      (void)cudaFreeHost(p);
      reserved_ -= static_cast<int64_t>(kMinClass << idx);
    }
    free_[idx].clear();
  }
}

MemoryStats PinnedHostPool::GetStats() const {
  base::MutexLock lock(&mu_);
  MemoryStats s;
  s.device = Device::Cpu();
  s.bytes_in_use = in_use_;
  s.peak_bytes_in_use = peak_;
  s.bytes_reserved = reserved_;
  s.system_allocs = allocs_;
  s.cache_hits = hits_;
  s.cache_misses = misses_;
  return s;
}

}  // namespace eagervm::device::cuda
