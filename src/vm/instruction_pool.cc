#include "vm/instruction_pool.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace eagervm::vm {
namespace {

constexpr size_t kBatch = 64;

struct GlobalFreeList {
  std::mutex mu;
  std::vector<Instruction*> free;
};
// Leaked on purpose: instructions must outlive every thread and static destructor.
GlobalFreeList& Global() {
  static auto* g = new GlobalFreeList;
  return *g;
}

std::atomic<uint64_t> next_id{1};

struct LocalCache {
  std::vector<Instruction*> acquire;  // ready to hand out
  std::vector<Instruction*> recycle;  // to give back in batches
  ~LocalCache() {
    GlobalFreeList& g = Global();
    std::lock_guard<std::mutex> lock(g.mu);
    g.free.insert(g.free.end(), acquire.begin(), acquire.end());
    g.free.insert(g.free.end(), recycle.begin(), recycle.end());
  }
};
thread_local LocalCache cache;

}  // namespace

Instruction* InstructionPool::Acquire() {
  LocalCache& c = cache;
  if (c.acquire.empty()) {
    if (!c.recycle.empty()) {
      c.acquire.swap(c.recycle);
    } else {
      GlobalFreeList& g = Global();
      std::lock_guard<std::mutex> lock(g.mu);
      const size_t n = std::min(kBatch, g.free.size());
      c.acquire.insert(c.acquire.end(), g.free.end() - n, g.free.end());
      g.free.resize(g.free.size() - n);
    }
  }
  Instruction* i;
  if (c.acquire.empty()) {
    i = new Instruction();
  } else {
    i = c.acquire.back();
    c.acquire.pop_back();
  }
  i->id_ = next_id.fetch_add(1, std::memory_order_relaxed);
  i->state_ = InstrState::kBuilding;
  i->done_.store(false, std::memory_order_relaxed);
  i->stream_ = nullptr;
  i->next = i->lively_prev = i->lively_next = nullptr;
  i->in_degree = 0;
  i->on_dispatch.clear();
  i->on_release.clear();
  return i;
}

void InstructionPool::Recycle(Instruction* instr) {
  instr->DestroyPolicy();
  instr->id_ = 0;
  instr->state_ = InstrState::kFree;
  LocalCache& c = cache;
  c.recycle.push_back(instr);
  if (c.recycle.size() >= 2 * kBatch) {
    GlobalFreeList& g = Global();
    std::lock_guard<std::mutex> lock(g.mu);
    g.free.insert(g.free.end(), c.recycle.end() - kBatch, c.recycle.end());
    c.recycle.resize(c.recycle.size() - kBatch);
  }
}

}  // namespace eagervm::vm
