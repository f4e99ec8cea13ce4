// Engine: the scheduler-thread state of the VM and one scheduling pass.
//
//   pending --intake--> link dependence edges --> ready (in-degree 0) | waiting
//   ready --dispatch--> stream running list + compute handed to the stream
//   running (head, done) --release--> successors unblocked, instruction recycled
//   barrier list: run when every instruction received before it is released
//
// Every member is touched by the scheduler thread only (in the synchronous
// mode: by whichever thread holds the VM's engine lock).
#ifndef EAGERVM_VM_ENGINE_H_
#define EAGERVM_VM_ENGINE_H_

#include <vector>

#include "vm/instruction.h"
#include "vm/instruction_policy.h"
#include "vm/vm_counters.h"

namespace eagervm::vm {

class VmStream;

class Engine {
 public:
  // `inline_max_bytes`: VmOptions::inline_max_bytes.
  Engine(VmCounters* counters, int64_t inline_max_bytes)
      : counters_(counters), inline_max_bytes_(static_cast<size_t>(inline_max_bytes)) {}
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // One pass over the lists with `incoming` (received instructions, in
  // order) taken in. Returns true if anything moved. The calling thread must
  // play ThreadRole::kScheduler (checked in debug and sanitizer builds).
  bool Schedule(InstructionList* incoming);
  // No instruction between intake and release.
  bool Empty() const { return lively_count_ == 0; }
  size_t lively_count() const { return lively_count_; }

 private:
  bool ReleaseFinished();
  bool RunBarriers();
  void Intake(InstructionList* list);
  void Link(Instruction* instr);
  void AddEdge(const InstrRef& src, Instruction* dst);
  bool DispatchReady();
  void Dispatch(Instruction* instr);
  bool RunsInline(const VmStream* s, const Instruction* instr) const;
  void FlushHandoffs();
  void Release(Instruction* instr);
  void MakeReady(Instruction* instr);
  void LivelyPush(Instruction* instr);
  void LivelyErase(Instruction* instr);

  VmCounters* counters_;
  const size_t inline_max_bytes_;
  // Streams with instructions dispatched in this pass and not yet handed to
  // their worker: one handoff (one lock, at most one wake) per stream per pass.
  std::vector<VmStream*> handoff_streams_;
  InstructionList ready_;
  InstructionList barriers_;
  Instruction* lively_head_ = nullptr;
  Instruction* lively_tail_ = nullptr;
  size_t lively_count_ = 0;
  std::vector<VmStream*> active_streams_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ENGINE_H_
