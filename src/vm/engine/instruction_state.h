// The life of an instruction, and where it is in each state:
//   kFree      in the pool (InstructionPool): no policy, id 0, so every
//              reference to it is stale
//   kBuilding  held by the thread building it (its own list or a builder)
//   kPending   accepted by VmImpl::Receive: in the VM's pending list, or in
//              the engine's incoming list until intake
//   kWaiting   linked, in-degree > 0: reachable only through its
//              predecessors' on_dispatch / on_retire edges
//   kReady     in the engine's ready list
//   kRunning   in its stream's running list, and until its stream's thread
//              takes it also in the stream's handoff batch and the worker's
//              queue. `done` is set by whoever ran the compute; the state stays
//              kRunning until it is retired
//   kBarrier   in the engine's barrier list
// From intake to retirement every instruction is also in the engine's lively
// list (which orders barriers).
//
// Legal transitions (and who makes them):
//   kFree     -> kBuilding  (InstructionPool::Acquire)
//   kBuilding -> kPending   (VmImpl::Receive accepted it)
//             -> kFree      (dropped unsubmitted: a builder discarded it, or
//                            Receive refused it after shutdown)
//   kPending  -> kWaiting   (intake: linked, in-degree > 0)
//             -> kReady     (intake: linked, in-degree 0)
//             -> kBarrier   (intake: barriers are not linked)
//             -> kBuilding  (its push onto the pending stack lost the race
//                            with Close(): the scheduler never saw it; it is
//                            then recycled as a refused list is)
//   kWaiting  -> kReady     (last in-edge satisfied: a predecessor on the same
//                            stream, or one its device orders, was dispatched;
//                            any other predecessor was retired)
//   kReady    -> kRunning   (dispatched)
//   kRunning  -> kFree      (retired: done and at the head of its stream's
//                            running list)
//   kBarrier  -> kFree      (run and retired once every instruction taken in
//                            before it is retired)
// Nothing else. In particular kPending never returns to kFree: "pending"
// means the scheduler will take it in, so a pending instruction freed is lost
// work. A refused list is recycled from kBuilding (SubmissionQueue::Refuse).
// Instruction::set_state, which InstructionPool also goes through, checks every move against this
// table in debug and sanitizer builds.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_ENGINE_INSTRUCTION_STATE_H_
#define EAGERVM_VM_ENGINE_INSTRUCTION_STATE_H_

#include <cstdint>
#include <string>

namespace eagervm::vm {

enum class InstrState : uint8_t {
  kFree,
  kBuilding,
  kPending,
  kWaiting,
  kReady,
  kRunning,
  kBarrier,
};

const char* ToString(InstrState s);
bool IsLegalTransition(InstrState from, InstrState to);
// The message of a failed transition check: the move, and the instruction's
// policy name (nullptr: none) and id.
std::string DescribeTransition(InstrState from, InstrState to, const char* policy_name,
                               uint64_t id);

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ENGINE_INSTRUCTION_STATE_H_
