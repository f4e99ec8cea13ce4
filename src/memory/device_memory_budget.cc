#include "memory/device_memory_budget.h"

#include <algorithm>

#include "memory/allocator.h"

namespace eagervm::memory {

bool DeviceMemoryBudget::TryReserve(int64_t bytes) {
  if (limit_ <= 0) {
    reserved_.fetch_add(bytes, std::memory_order_relaxed);
    return true;
  }
  int64_t cur = reserved_.load(std::memory_order_relaxed);
  do {
    if (cur + bytes > limit_) return false;
  } while (!reserved_.compare_exchange_weak(cur, cur + bytes, std::memory_order_relaxed));
  return true;
}

void DeviceMemoryBudget::Unreserve(int64_t bytes) {
  reserved_.fetch_sub(bytes, std::memory_order_relaxed);
  NotifyFreed();
}

void DeviceMemoryBudget::CancelReserve(int64_t bytes) {
  reserved_.fetch_sub(bytes, std::memory_order_relaxed);
}

void DeviceMemoryBudget::AddInUse(int64_t bytes) {
  const int64_t now = in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_in_use_.load(std::memory_order_relaxed);
  while (now > peak && !peak_in_use_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void DeviceMemoryBudget::SubInUse(int64_t bytes) {
  in_use_.fetch_sub(bytes, std::memory_order_relaxed);
  NotifyFreed();
}

// The seq_cst pair (waiters_ here, waiters_ in BeginWait) orders "freed, then
// look for waiters" against "become a waiter, then retry": one of the two
// sides sees the other, so a free is never lost.
void DeviceMemoryBudget::NotifyFreed() {
  if (waiters_.load(std::memory_order_seq_cst) == 0) return;
  {
    base::MutexLock lock(&wait_mu_);
    ++generation_;
  }
  wait_cv_.NotifyAll();
}

DeviceMemoryBudget::WaitToken DeviceMemoryBudget::BeginWait() {
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  base::MutexLock lock(&wait_mu_);
  return WaitToken{generation_};
}

bool DeviceMemoryBudget::WaitForFree(WaitToken* token,
                                     std::chrono::steady_clock::time_point deadline) {
  base::MutexLock lock(&wait_mu_);
  while (generation_ == token->generation) {
    if (wait_cv_.WaitWithDeadline(&wait_mu_, deadline)) break;
  }
  const bool freed = generation_ != token->generation;
  token->generation = generation_;
  return freed;
}

void DeviceMemoryBudget::EndWait() { waiters_.fetch_sub(1, std::memory_order_seq_cst); }

void DeviceMemoryBudget::Register(Allocator* a) {
  base::MutexLock lock(&registry_mu_);
  allocators_.push_back(a);
}

void DeviceMemoryBudget::Unregister(Allocator* a) {
  base::MutexLock lock(&registry_mu_);
  allocators_.erase(std::remove(allocators_.begin(), allocators_.end(), a), allocators_.end());
}

void DeviceMemoryBudget::ShrinkAll() {
  base::MutexLock lock(&registry_mu_);
  for (Allocator* a : allocators_) a->Shrink();
}

}  // namespace eagervm::memory
