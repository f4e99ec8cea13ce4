#include "memory/caching_allocator.h"

#include <cstdio>
#include <cstdlib>

#include "base/byte_size.h"
#include "base/fault_injection.h"
#include "base/log.h"
#include "base/str_cat.h"
#include "memory/asan_poison.h"

namespace eagervm::memory {
namespace {

constexpr size_t kBlocksPerChunk = 128;
constexpr size_t kMaxRequest = size_t{1} << 62;
alignas(CachingAllocator::kAlignment) char zero_size_sentinel[CachingAllocator::kAlignment];

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

size_t CachingAllocator::SegmentSize(size_t size) {
  if (size <= kSmallRequest) return kSmallSegment;
  if (size < kMediumRequest) return kMediumSegment;
  return RoundUp(size, kLargeRound);
}

CachingAllocator::CachingAllocator(std::shared_ptr<DeviceMemoryBudget> budget,
                                   std::shared_ptr<MemoryBackend> backend,
                                   CachingAllocatorOptions options)
    : budget_(std::move(budget)), backend_(std::move(backend)), options_(options) {
  budget_->Register(this);
}

CachingAllocator::~CachingAllocator() {
  budget_->Unregister(this);
  base::MutexLock lock(&mu_);
  // Blocks still handed out are given back first, so every segment is whole.
  std::vector<Block*> live;
  live.reserve(live_.size());
  for (auto& [ptr, b] : live_) live.push_back(b);
  live_.clear();
  for (Block* b : live) {
    c_.in_use -= static_cast<int64_t>(b->size);
    budget_->SubInUse(static_cast<int64_t>(b->size));
    FreeLocked(b);
  }
  ShrinkLocked();
}

absl::StatusOr<void*> CachingAllocator::Allocate(size_t bytes) {
  if (bytes == 0) return static_cast<void*>(zero_size_sentinel);
  if (base::ShouldInjectFault(base::FaultSite::kAllocation)) [[unlikely]] {
    return absl::ResourceExhaustedError(
        base::Cat("out of memory: injected fault (test only): allocation of ", bytes, " bytes"));
  }
  if (bytes > kMaxRequest)
    return OutOfMemory(bytes, /*system_refused=*/true, /*recovery_tried=*/false);
  const size_t size = RoundUp(bytes, kAlignment);
  {
    base::MutexLock lock(&mu_);
    if (Block* b = AllocateLocked(size, bytes)) return static_cast<void*>(b->ptr);
  }
  return AllocateWithRecovery(size, bytes);
}

Block* CachingAllocator::AllocateLocked(size_t size, size_t bytes) {
  FreeBins& bins = size <= kSmallRequest ? small_ : large_;
  Block* b = bins.FindFit(size);
  if (b != nullptr) {
    bins.Remove(b);
    ++c_.hits;
  } else {
    b = NewSegmentLocked(size);
    if (b == nullptr) return nullptr;
    ++c_.misses;
  }
  SplitLocked(b, size);
  b->allocated = true;
  live_.emplace(b->ptr, b);
  c_.in_use += static_cast<int64_t>(b->size);
  if (c_.in_use > c_.peak) c_.peak = c_.in_use;
  budget_->AddInUse(static_cast<int64_t>(b->size));
  AsanUnpoison(b->ptr, bytes);
  return b;
}

// The preferred segment first; if the limit or the system refuses it, a
// segment of exactly the request.
Block* CachingAllocator::NewSegmentLocked(size_t size) {
  const size_t tries[2] = {SegmentSize(size), size};
  const int n = tries[0] == size ? 1 : 2;
  for (int i = 0; i < n; ++i) {
    const size_t seg = tries[i];
    if (!budget_->TryReserve(static_cast<int64_t>(seg))) {
      last_refusal_was_system_ = false;
    } else if (void* p = base::ShouldInjectFault(base::FaultSite::kSystemAllocation)
                             ? nullptr
                             : backend_->Allocate(seg);
               p == nullptr) {
      budget_->CancelReserve(static_cast<int64_t>(seg));
      last_refusal_was_system_ = true;
    } else {
      ++c_.system_allocs;
      c_.reserved += static_cast<int64_t>(seg);
      EAGERVM_LOG_EVERY_MS(kDebug, 1000, "", budget_->device().ToString(),
                           " allocator grew by a segment of ",
                           base::FormatByteSize(static_cast<int64_t>(seg)), " (",
                           base::FormatByteSize(c_.reserved), " reserved by this allocator)");
      AsanPoison(p, seg);
      Block* b = NewBlock();
      b->ptr = static_cast<char*>(p);
      b->size = seg;
      b->large_pool = size > kSmallRequest;
      return b;
    }
  }
  return nullptr;
}

// Splits off the tail of `b` beyond `size` as a free block of the same pool.
void CachingAllocator::SplitLocked(Block* b, size_t size) {
  if (b->size - size < kAlignment) return;
  Block* rest = NewBlock();
  rest->ptr = b->ptr + size;
  rest->size = b->size - size;
  rest->large_pool = b->large_pool;
  rest->prev = b;
  rest->next = b->next;
  if (b->next != nullptr) b->next->prev = rest;
  b->next = rest;
  b->size = size;
  BinsOf(rest).Insert(rest);
}

void CachingAllocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr || ptr == zero_size_sentinel) return;
  int64_t freed;
  {
    base::MutexLock lock(&mu_);
    auto it = live_.find(ptr);
    if (it == live_.end()) {
      // A VM bug (double free or a foreign pointer), never user input: going
      // on would corrupt the cache.
      std::fprintf(stderr, "eagervm: CachingAllocator::Deallocate(%p, %zu): not allocated here\n",
                   ptr, bytes);
      std::abort();
    }
    Block* b = it->second;
    live_.erase(it);
    freed = static_cast<int64_t>(b->size);
    c_.in_use -= freed;
    AsanPoison(b->ptr, b->size);
    FreeLocked(b);
  }
  budget_->SubInUse(freed);
}

// Marks `b` free, merges it with free neighbours, and bins the result.
void CachingAllocator::FreeLocked(Block* b) {
  b->allocated = false;
  if (Block* p = b->prev; p != nullptr && !p->allocated) {
    BinsOf(p).Remove(p);
    p->size += b->size;
    p->next = b->next;
    if (b->next != nullptr) b->next->prev = p;
    RecycleBlock(b);
    b = p;
  }
  if (Block* n = b->next; n != nullptr && !n->allocated) {
    BinsOf(n).Remove(n);
    b->size += n->size;
    b->next = n->next;
    if (n->next != nullptr) n->next->prev = b;
    RecycleBlock(n);
  }
  BinsOf(b).Insert(b);
}

void CachingAllocator::Shrink() {
  base::MutexLock lock(&mu_);
  ShrinkLocked();
}

void CachingAllocator::ShrinkLocked() {
  const int64_t before = c_.reserved;
  for (FreeBins* bins : {&small_, &large_}) {
    bins->ForEach([&](Block* b) {
      mu_.AssertHeld();  // a lambda is analysed on its own; ShrinkLocked holds mu_
      if (!b->whole_segment()) return;
      bins->Remove(b);
      AsanUnpoison(b->ptr, b->size);
      backend_->Free(b->ptr, b->size);
      ++c_.system_frees;
      c_.reserved -= static_cast<int64_t>(b->size);
      budget_->Unreserve(static_cast<int64_t>(b->size));
      RecycleBlock(b);
    });
  }
  if (c_.reserved != before) {
    EAGERVM_LOG_EVERY_MS(kDebug, 1000, "", budget_->device().ToString(), " allocator trimmed ",
                         base::FormatByteSize(before - c_.reserved), " of cached segments (",
                         base::FormatByteSize(c_.reserved), " reserved)");
  }
}

MemoryStats CachingAllocator::GetStats() const {
  base::MutexLock lock(&mu_);
  MemoryStats s;
  s.device = budget_->device();
  s.bytes_in_use = c_.in_use;
  s.peak_bytes_in_use = c_.peak;
  s.bytes_reserved = c_.reserved;
  s.system_allocs = c_.system_allocs;
  s.cache_hits = c_.hits;
  s.cache_misses = c_.misses;
  s.oom_recoveries = c_.oom_recoveries;
  s.oom_failures = c_.oom_failures;
  return s;
}

Block* CachingAllocator::NewBlock() {
  if (spare_blocks_ == nullptr) {
    block_chunks_.push_back(std::make_unique<Block[]>(kBlocksPerChunk));
    Block* chunk = block_chunks_.back().get();
    for (size_t i = 0; i < kBlocksPerChunk; ++i) RecycleBlock(&chunk[i]);
  }
  Block* b = spare_blocks_;
  spare_blocks_ = b->next;
  *b = Block();
  return b;
}

void CachingAllocator::RecycleBlock(Block* b) {
  b->next = spare_blocks_;
  spare_blocks_ = b;
}

}  // namespace eagervm::memory
