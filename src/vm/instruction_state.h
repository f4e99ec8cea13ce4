// The life of an instruction. An instruction is in exactly one engine list at a
// time (except the lively list, which tracks every received instruction until
// its release to order barriers).
//
// Legal transitions:
//   kFree     -> kBuilding  (taken from the pool by a builder)
//   kBuilding -> kFree      (builder discarded)     | kPending (VirtualMachine::Receive)
//   kPending  -> kWaiting   (linked, in-degree > 0) | kReady (linked, in-degree 0)
//             -> kBarrier   (barriers are not linked)
//   kWaiting  -> kReady     (last in-edge satisfied)
//   kReady    -> kRunning   (dispatched: appended to its stream's running list,
//                            compute handed to the stream; `done` set when finished)
//   kRunning  -> kFree      (released: done and at the head of its stream's running list)
//   kBarrier  -> kFree      (run and released once every earlier instruction is released)
#ifndef EAGERVM_VM_INSTRUCTION_STATE_H_
#define EAGERVM_VM_INSTRUCTION_STATE_H_

#include <cstdint>

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

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INSTRUCTION_STATE_H_
