// InstructionPool: recycles instructions so steady state allocates nothing per
// op. Instructions are allocated in blocks and never returned to the system
// (dependences may hold stale pointers to them; see dependence.h).
//
// Threads: Acquire on any submitting thread, Recycle on the scheduler (or in
// the synchronous mode, the submitting thread). A global free list under a
// mutex, fronted by a per-thread cache so the lock is taken once per batch.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_ENGINE_INSTRUCTION_POOL_H_
#define EAGERVM_VM_ENGINE_INSTRUCTION_POOL_H_

#include "vm/engine/instruction.h"

namespace eagervm::vm {

namespace internal_pool {
// A stack of free instructions linked through Instruction::next (a free
// instruction is in no other list).
struct FreeList {
  Instruction* head = nullptr;
  size_t size = 0;

  bool empty() const { return head == nullptr; }
  void Push(Instruction* i) {
    i->next = head;
    head = i;
    ++size;
  }
  Instruction* Pop() {
    Instruction* i = head;
    head = i->next;
    i->next = nullptr;
    --size;
    return i;
  }
};
// This thread's cache (instruction_pool.cc): plain constinit thread-locals,
// so the inline Acquire is a TLS load with no initialisation guard.
extern constinit thread_local FreeList t_acquire;  // handed out by Acquire
extern constinit thread_local FreeList t_recycle;  // filled by Recycle, given back in batches
// Set once this thread's cache has been given back at thread exit.
extern constinit thread_local bool t_cache_gone;
inline constexpr size_t kBatch = 64;  // instructions moved to or from the shared list at a time
// Ids are handed to each thread in blocks: a fetch_add per instruction on
// one shared line made every submitting thread take that line exclusive.
extern constinit thread_local uint64_t t_next_id, t_end_id;
}  // namespace internal_pool

class InstructionPool {
 public:
  // A fresh instruction in state kBuilding with a new id. Inline: it is on
  // every op's path.
  [[gnu::always_inline]] static Instruction* Acquire() {
    internal_pool::FreeList& cache = internal_pool::t_acquire;
    Instruction* i = cache.head;
    if (i == nullptr) [[unlikely]] {
      i = Refill();
    } else {
      cache.head = i->next;
      --cache.size;
    }
    Reset(i);
    return i;
  }
  // Destroys the policy and returns the instruction (state kFree); its id goes
  // stale. Only from kBuilding (never handed to the engine), kRunning or
  // kBarrier (retired): Instruction::set_state checks it.
  [[gnu::always_inline]] static void Recycle(Instruction* instr) {
    instr->set_state(InstrState::kFree);  // first: a failed check still names the policy
    instr->DestroyPolicy();
    instr->id_.store(0, std::memory_order_relaxed);
    internal_pool::FreeList& cache = internal_pool::t_recycle;
    if (cache.empty() || cache.size + 1 >= internal_pool::kBatch || internal_pool::t_cache_gone)
        [[unlikely]] {
      RecycleSlow(instr);
      return;
    }
    cache.Push(instr);
  }
  // The fork handlers (fork_guard.cc) hold the shared free list's lock across
  // fork(), so a child never inherits it locked by a thread it does not have.
  // Any thread: instructions allocated so far (never freed), process-wide.
  static uint64_t Allocated();

  static void LockForFork();
  static void UnlockAfterFork();

 private:
  [[gnu::always_inline]] static void Reset(Instruction* i) {
    i->id_.store(NewId(), std::memory_order_relaxed);
    i->set_state(InstrState::kBuilding);
    i->done_.store(false, std::memory_order_relaxed);
    i->stream_ = nullptr;
    i->next = i->lively_prev = i->lively_next = nullptr;
    i->in_degree = 0;
    i->donated = false;
    i->donatable = false;
    i->operand_bytes = 0;
    i->on_dispatch.clear();
    i->on_retire.clear();
    i->accesses.clear();
    i->prepared = false;
  }
  static uint64_t NewId() {
    if (internal_pool::t_next_id == internal_pool::t_end_id) [[unlikely]]
      return NewIdBlock();
    return internal_pool::t_next_id++;
  }
  static uint64_t NewIdBlock();
  // t_acquire is empty: refills it and takes one.
  static Instruction* Refill();
  // Recycle's cases off the hot path: the cache is empty (its thread-exit
  // hook is armed), full (given back), or gone (thread exit).
  static void RecycleSlow(Instruction* instr);
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ENGINE_INSTRUCTION_POOL_H_
