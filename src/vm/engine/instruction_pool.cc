#include "vm/engine/instruction_pool.h"

#include <atomic>
#include <utility>
#include <vector>

#include "base/mutex.h"

namespace eagervm::vm {
namespace {

using internal_pool::kBatch;

using internal_pool::FreeList;

// Whole lists move between a thread and here, so the lock is taken once per
// batch and never held for a walk.
struct GlobalFreeList {
  base::Mutex mu;
  std::vector<FreeList> lists ABSL_GUARDED_BY(mu);

  FreeList Take() {
    base::MutexLock lock(&mu);
    if (lists.empty()) return FreeList();
    FreeList l = lists.back();
    lists.pop_back();
    return l;
  }
  // Every block ever allocated (never freed, like the instructions in it):
  // keeps them reachable for leak checkers whichever thread holds them.
  std::vector<Instruction*> blocks ABSL_GUARDED_BY(mu);
  void AddBlock(Instruction* block) {
    base::MutexLock lock(&mu);
    blocks.push_back(block);
  }
  void Give(FreeList l) {
    if (l.empty()) return;
    base::MutexLock lock(&mu);
    lists.push_back(l);
  }
};
// Leaked on purpose: instructions must outlive every thread and static destructor.
GlobalFreeList& Global() {
  static auto* g = new GlobalFreeList;
  return *g;
}

std::atomic<uint64_t> next_id{1};
std::atomic<uint64_t> allocated{0};
constexpr uint64_t kIdBlock = 1024;  // ids taken from next_id at a time (internal_pool::t_next_id)

// This thread's cache: plain constinit thread-locals, so the hot path is a
// TLS load with no initialisation guard (a thread_local object with a
// destructor is reached through a wrapper call on every access).
using internal_pool::t_acquire;
using internal_pool::t_cache_gone;
using internal_pool::t_recycle;

// Gives the cache back when its thread exits. Touched (armed) only when a
// cache list goes from empty to non-empty, off the hot path.
struct CacheReturner {
  bool armed = false;
  ~CacheReturner() {
    t_cache_gone = true;
    Global().Give(std::exchange(t_acquire, FreeList()));
    Global().Give(std::exchange(t_recycle, FreeList()));
  }
};
thread_local CacheReturner t_returner;

// `new Instruction`, not `new Instruction()`: the constructor is defaulted, so
// value-initialisation would first zero the whole object, policy buffer
// included (~300 instructions for bytes that Emplace overwrites).
// kBatch instructions from one allocation: while the pool grows (the first
// ops of a long chain, when many are in flight), a malloc per instruction was
// ~190 instructions per op; one per block is a few. Blocks are never freed,
// like the instructions in them.
FreeList NewInstructions() {
  Instruction* block = new Instruction[kBatch];
  Global().AddBlock(block);
  allocated.fetch_add(kBatch, std::memory_order_relaxed);
  FreeList l;
  for (size_t k = 0; k < kBatch; ++k) l.Push(&block[k]);
  return l;
}

// After the cache is gone: one instruction from the shared list.
Instruction* AcquireUncached() {
  FreeList l = Global().Take();
  if (l.empty()) l = NewInstructions();
  Instruction* i = l.Pop();
  Global().Give(l);
  return i;
}

}  // namespace

namespace internal_pool {
constinit thread_local FreeList t_acquire;
constinit thread_local FreeList t_recycle;
// Thread-local destructors of the main thread run before atexit handlers
// (where the VM drains), so the pool must keep working without the cache.
constinit thread_local bool t_cache_gone = false;
constinit thread_local uint64_t t_next_id = 0, t_end_id = 0;
}  // namespace internal_pool

// t_acquire is empty: refill it (from this thread's recycled instructions,
// then the shared list, then a new block) and take one.
Instruction* InstructionPool::Refill() {
  if (t_cache_gone) [[unlikely]]
    return AcquireUncached();
  t_returner.armed = true;
  if (!t_recycle.empty()) {
    std::swap(t_acquire, t_recycle);
  } else {
    t_acquire = Global().Take();
    if (t_acquire.empty()) t_acquire = NewInstructions();
  }
  return t_acquire.Pop();
}

uint64_t InstructionPool::NewIdBlock() {
  internal_pool::t_next_id = next_id.fetch_add(kIdBlock, std::memory_order_relaxed);
  internal_pool::t_end_id = internal_pool::t_next_id + kIdBlock;
  return internal_pool::t_next_id++;
}

void InstructionPool::RecycleSlow(Instruction* instr) {
  if (t_cache_gone) [[unlikely]] {
    FreeList l;
    l.Push(instr);
    Global().Give(l);
    return;
  }
  t_returner.armed = true;
  // A thread that also acquires (one donating its ops: vm/lifecycle/donate.h
  // acquires and recycles each instruction itself) keeps it at hand: with
  // every recycle given back through the shared list, each of its ops took
  // that list's lock.
  if (t_acquire.size < kBatch) {
    t_acquire.Push(instr);
    return;
  }
  t_recycle.Push(instr);
  if (t_recycle.size >= kBatch) [[unlikely]]
    Global().Give(std::exchange(t_recycle, FreeList()));
}

uint64_t InstructionPool::Allocated() { return allocated.load(std::memory_order_relaxed); }

void InstructionPool::LockForFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { Global().mu.Lock(); }
void InstructionPool::UnlockAfterFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { Global().mu.Unlock(); }

}  // namespace eagervm::vm
