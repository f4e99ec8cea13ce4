// InstructionPool: recycles instructions so steady state allocates nothing per
// op. Instructions are allocated in blocks and never returned to the system
// (dependences may hold stale pointers to them; see dependence.h).
//
// Threads: Acquire on any submitting thread, Recycle on the scheduler (or in
// the synchronous mode, the submitting thread). A global free list under a
// mutex, fronted by a per-thread cache so the lock is taken once per batch.
#ifndef EAGERVM_VM_INSTRUCTION_POOL_H_
#define EAGERVM_VM_INSTRUCTION_POOL_H_

#include "vm/instruction.h"

namespace eagervm::vm {

class InstructionPool {
 public:
  // A fresh instruction in state kBuilding with a new id.
  static Instruction* Acquire();
  // Destroys the policy and returns the instruction (state kFree); its id goes
  // stale. Only from kBuilding (never handed to the engine), kRunning or
  // kBarrier (released): Instruction::set_state checks it.
  static void Recycle(Instruction* instr);
  // The fork handlers (fork_guard.cc) hold the shared free list's lock across
  // fork(), so a child never inherits it locked by a thread it does not have.
  static void LockForFork();
  static void UnlockAfterFork();

 private:
  static void Reset(Instruction* instr);
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INSTRUCTION_POOL_H_
