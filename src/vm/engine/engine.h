// Engine: the scheduler-thread state of the VM and one scheduling pass.
//
//   pending --intake--> link dependence edges --> ready (in-degree 0) | waiting
//   ready --dispatch--> stream running list + compute handed to the stream
//   running (head, done) --retire--> successors unblocked, instruction recycled
//   barrier list: run when every instruction received before it is retired
//
// Every member is touched by the thread driving the engine only: the
// scheduler thread, or a user thread that holds the VM's engine lock (the
// synchronous mode; a donating thread on an idle VM, vm/lifecycle/donate.h). The
// lock's hand-over orders one driver's writes before the next one's reads.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_ENGINE_ENGINE_H_
#define EAGERVM_VM_ENGINE_ENGINE_H_

#include <atomic>
#include <string>
#include <vector>

#include "vm/diagnostics/vm_counters.h"
#include "vm/engine/instruction.h"
#include "vm/engine/instruction_policy.h"
#include "vm/streams/completion_signal.h"

namespace eagervm::vm {

class VmStream;

class Engine {
 public:
  // `inline_max_bytes`: VmOptions::inline_max_bytes. `stamp_dispatch`: note
  // each dispatch's time and the op run inline, for Describe() (hang
  // diagnostics on: VmOptions::hang_timeout_ms). `completions`: the
  // workers' signal, told after each pass whether the engine waits for a
  // completion (null: workers always notify, as in tests that drive an
  // engine by hand).
  Engine(VmCounters* counters, int64_t inline_max_bytes, bool stamp_dispatch = false,
         CompletionSignal* completions = nullptr)
      : counters_(counters),
        inline_max_bytes_(static_cast<size_t>(inline_max_bytes)),
        stamp_dispatch_(stamp_dispatch),
        completions_(completions) {}
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // One pass over the lists with `incoming` (received instructions, in
  // order) taken in. Returns true if anything moved. The calling thread must
  // play ThreadRole::kScheduler (checked in debug and sanitizer builds).
  bool Schedule(InstructionList* incoming);
  // Retires what has finished, and nothing else: successors this makes
  // ready stay in the ready list, and barriers it makes due stay queued, for
  // the next Schedule() (the scheduler has been notified of every
  // completion, so it runs one). For a user thread asking whether the VM is
  // idle in all but name (VmImpl::Donate): it runs no kernel and no
  // callback of anyone else's. Returns true if anything moved. Same thread
  // rule as Schedule().
  bool RetireOnly();
  // With the engine empty (nothing lively, so it can have no predecessor):
  // takes `instr` in (pending, not a barrier, on a stream whose Run
  // finishes it, as the CPU's does), runs it on this thread and retires
  // it. What intake, dispatch and retirement would do, minus the linking: the
  // dependences it would join name retired instructions only, and a later
  // instruction finds it retired too. Same thread rule as Schedule().
  void RunAlone(Instruction* instr);
  // True if an instruction taken in that writes `blob` is not retired yet.
  // Instructions received but not taken in are not seen. Same thread rule
  // as Schedule().
  bool HasUnretiredWriter(BlobObject& blob) const;
  // No instruction between intake and retirement.
  bool Empty() const { return lively_count_ == 0; }
  size_t lively_count() const { return lively_count_; }
  // The lively instructions (intake to retirement), oldest first, at most `max`
  // of them, one line each: id, op, stream, state, the lively instructions it
  // waits for, and (with stamp_dispatch) how long it has run. Scheduler thread.
  std::string Describe(size_t max) const;
  // Any thread: the op the scheduler thread is running inline right now
  // (stamp_dispatch only; nullptr otherwise). A name, never freed.
  const char* inline_op() const { return inline_op_.load(std::memory_order_relaxed); }
  // True while a submitting thread drives the engine (VmImpl::Donate, its
  // donor): instructions with Instruction::donated then run on
  // that thread when their stream is idle. Never set on the scheduler
  // thread, which must not block in a collective.
  void set_donor(bool on) { donor_ = on; }

 private:
  bool RetireFinished();
  bool RunBarriers();
  void Intake(InstructionList* list);
  void Link(Instruction* instr);
  void AddEdge(const InstrRef& src, Instruction* dst);
  bool DispatchReady();
  // `lively`: the instruction is in the lively list already; if not (taken
  // in and dispatched at once), it joins it unless it is retired here.
  void Dispatch(Instruction* instr, bool lively = true);
  bool RunsInline(const VmStream* s, const Instruction* instr) const;
  void FlushHandoffs();
  void Retire(Instruction* instr, bool lively = true);
  void MakeReady(Instruction* instr);
  void LivelyPush(Instruction* instr);
  void LivelyErase(Instruction* instr);
  // End of a pass: tells the workers whether a completion may unblock
  // something here; true if that has to be polled for once more.
  bool UpdateCompletionWish();

  VmCounters* counters_;
  const size_t inline_max_bytes_;
  const bool stamp_dispatch_;
  CompletionSignal* const completions_;
  bool donor_ = false;
  std::atomic<const char*> inline_op_{nullptr};
  // Streams with instructions dispatched in this pass and not yet handed to
  // their worker: one handoff (one lock, at most one wake) per stream per pass.
  std::vector<VmStream*> handoff_streams_;
  InstructionList ready_;
  InstructionList barriers_;
  Instruction* lively_head_ = nullptr;
  Instruction* lively_tail_ = nullptr;
  size_t lively_count_ = 0;
  size_t waiting_count_ = 0;  // instructions in InstrState::kWaiting
  std::vector<VmStream*> active_streams_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ENGINE_ENGINE_H_
