#include "vm/instruction_pool.h"

#include <atomic>
#include <vector>

#include "base/mutex.h"

namespace eagervm::vm {
namespace {

constexpr size_t kBatch = 64;

struct GlobalFreeList {
  base::Mutex mu;
  std::vector<Instruction*> free ABSL_GUARDED_BY(mu);
};
// Leaked on purpose: instructions must outlive every thread and static destructor.
GlobalFreeList& Global() {
  static auto* g = new GlobalFreeList;
  return *g;
}

std::atomic<uint64_t> next_id{1};

// Set when this thread's cache has been destroyed. Thread-local destructors of
// the main thread run before atexit handlers (where the VM drains), so the
// pool must keep working without the cache: it falls back to the global list.
thread_local bool cache_destroyed = false;

struct LocalCache {
  std::vector<Instruction*> acquire;  // ready to hand out
  std::vector<Instruction*> recycle;  // to give back in batches
  ~LocalCache() {
    cache_destroyed = true;
    GlobalFreeList& g = Global();
    base::MutexLock lock(&g.mu);
    g.free.insert(g.free.end(), acquire.begin(), acquire.end());
    g.free.insert(g.free.end(), recycle.begin(), recycle.end());
  }
};
thread_local LocalCache cache;

// `new Instruction`, not `new Instruction()`: the constructor is defaulted, so
// value-initialisation would first zero the whole object, policy buffer
// included (~300 instructions for bytes that Emplace overwrites).
Instruction* NewInstruction() { return new Instruction; }

// Fills `out` with kBatch new (default-initialised) instructions from one
// allocation. While the pool grows (the first ops of a long chain, when many
// are in flight), a malloc per instruction was ~190 instructions per op; one
// per block is a few. Blocks are never freed, like the instructions in them.
void NewInstructions(std::vector<Instruction*>* out) {
  Instruction* block = new Instruction[kBatch];
  for (size_t k = 0; k < kBatch; ++k) out->push_back(&block[k]);
}

Instruction* AcquireUncached() {
  GlobalFreeList& g = Global();
  base::MutexLock lock(&g.mu);
  if (g.free.empty()) return NewInstruction();
  Instruction* i = g.free.back();
  g.free.pop_back();
  return i;
}

// Ids are handed to each thread in blocks: a fetch_add per instruction on
// one shared line made every submitting thread take that line exclusive.
constexpr uint64_t kIdBlock = 1024;
constinit thread_local uint64_t t_next_id = 0, t_end_id = 0;

uint64_t NewId() {
  if (t_next_id == t_end_id) [[unlikely]] {
    t_next_id = next_id.fetch_add(kIdBlock, std::memory_order_relaxed);
    t_end_id = t_next_id + kIdBlock;
  }
  return t_next_id++;
}

}  // namespace

void InstructionPool::Reset(Instruction* i) {
  i->id_.store(NewId(), std::memory_order_relaxed);
  i->set_state(InstrState::kBuilding);
  i->done_.store(false, std::memory_order_relaxed);
  i->stream_ = nullptr;
  i->next = i->lively_prev = i->lively_next = nullptr;
  i->in_degree = 0;
  i->caller_runs = false;
  i->on_dispatch.clear();
  i->on_release.clear();
  i->accesses.clear();
  i->prepared = false;
}

Instruction* InstructionPool::Acquire() {
  if (cache_destroyed) {
    Instruction* i = AcquireUncached();
    Reset(i);
    return i;
  }
  LocalCache& c = cache;
  if (c.acquire.empty()) {
    if (!c.recycle.empty()) {
      c.acquire.swap(c.recycle);
    } else {
      GlobalFreeList& g = Global();
      base::MutexLock lock(&g.mu);
      const size_t n = std::min(kBatch, g.free.size());
      c.acquire.insert(c.acquire.end(), g.free.end() - n, g.free.end());
      g.free.resize(g.free.size() - n);
    }
    if (c.acquire.empty()) NewInstructions(&c.acquire);
  }
  Instruction* i = c.acquire.back();
  c.acquire.pop_back();
  Reset(i);
  return i;
}

void InstructionPool::Recycle(Instruction* instr) {
  instr->set_state(InstrState::kFree);  // first: a failed check still names the policy
  instr->DestroyPolicy();
  instr->id_.store(0, std::memory_order_relaxed);
  if (cache_destroyed) {
    GlobalFreeList& g = Global();
    base::MutexLock lock(&g.mu);
    g.free.push_back(instr);
    return;
  }
  LocalCache& c = cache;
  c.recycle.push_back(instr);
  if (c.recycle.size() >= 2 * kBatch) {
    GlobalFreeList& g = Global();
    base::MutexLock lock(&g.mu);
    g.free.insert(g.free.end(), c.recycle.end() - kBatch, c.recycle.end());
    c.recycle.resize(c.recycle.size() - kBatch);
  }
}

void InstructionPool::LockForFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { Global().mu.Lock(); }
void InstructionPool::UnlockAfterFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { Global().mu.Unlock(); }

}  // namespace eagervm::vm
