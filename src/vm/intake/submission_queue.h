// SubmissionQueue: the VM's intake. Submitting threads push instruction
// lists onto the pending stack (one CAS per list, no lock; a scheduler
// wake-up only on empty -> non-empty) and wait here when too much is in flight
// (back-pressure, VmOptions::max_in_flight); the scheduler takes the whole
// pending list at the start of each pass.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_SUBMISSION_QUEUE_H_
#define EAGERVM_VM_INTAKE_SUBMISSION_QUEUE_H_

#include <atomic>
#include <cstddef>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "base/notifier.h"
#include "base/thread_role.h"
#include "eagervm/virtual_machine.h"
#include "vm/diagnostics/trace_hooks.h"
#include "vm/diagnostics/vm_counters.h"
#include "vm/engine/instruction.h"
#include "vm/streams/completion_signal.h"

namespace eagervm::vm {

namespace internal_queue {
// Instructions this thread appended since it last read the in-flight count.
extern constinit thread_local int64_t t_since_check;
}  // namespace internal_queue

// Whether a submission may wait for back-pressure. Releases never wait: they
// come from destructors on any thread and only ever lower the memory in use.
enum class Backpressure { kWait, kNoWait };

class SubmissionQueue {
 public:
  // All three outlive the queue.
  // `completions`: a back-pressured thread registers there, so that workers
  // report each completion while it waits.
  SubmissionQueue(const VmOptions& options, VmCounters* counters, base::Notifier* scheduler,
                  CompletionSignal* completions);
  SubmissionQueue(const SubmissionQueue&) = delete;
  SubmissionQueue& operator=(const SubmissionQueue&) = delete;

  // Any thread. Marks `list` pending and appends it; blocks first for
  // back-pressure unless `backpressure` is kNoWait or the caller is a VM
  // thread. Wakes the scheduler unless `wake_scheduler` is false (a caller
  // that takes the list in itself, holding the engine lock). After Close():
  // FailedPrecondition, and the list is discarded.
  absl::Status Append(InstructionList* list, Backpressure backpressure, bool wake_scheduler = true);
  // Append of a list of one prepared instruction (kBuilding, accesses
  // filled), with Backpressure::kWait and a wake-up: the ops' path, without
  // the list's loops. Same thread rule and errors.
  [[gnu::always_inline]] absl::Status AppendOne(Instruction* instr) {
    EAGERVM_DCHECK(instr->prepared, "SubmissionQueue::AppendOne: not prepared");
    if (profiler::Enabled()) [[unlikely]]
      return AppendOneTraced(instr);
    return AppendOneUntraced(instr);
  }
  [[gnu::always_inline]] absl::Status AppendOneUntraced(Instruction* instr) {
    WaitForRoomIfDue(1);
    instr->next = nullptr;
    if (!Push(instr, instr, 1, /*wake_scheduler=*/true)) [[unlikely]]
      return RefuseOne(instr);
    return absl::OkStatus();
  }
  // The engine's driver, holding the engine lock with the VM idle
  // (VmImpl::Donate): accepts `list` as Append would (pending, counted
  // received and taken in), for the caller to run at once instead of
  // pushing and popping it. False, `list` untouched, once closed (Append
  // then refuses it).
  bool AcceptForDriver(const InstructionList& list);
  // Scheduler thread: moves everything pending to the end of `into`.
  void TakeAll(InstructionList* into);
  // Scheduler thread, after a pass: wakes back-pressure waiters once in
  // flight has fallen to half the limit.
  void WakeWaitersIfDrained();
  // Stops accepting (shutdown) and wakes every back-pressure waiter.
  void Close();
  // Shutdown, once nothing runs instructions any more (the scheduler has
  // joined): recycles what Append refused since Close(); later refusals are
  // recycled at once. Until then refusals wait: their operands do not own
  // their storages (kernel_args.h), so a refused release must not free a
  // storage that an instruction still in flight reads.
  void RecycleRefused();

 private:
  // Reading the in-flight count costs a cache miss per op (the scheduler
  // writes `finished` all the time), so with a large limit each submitting
  // thread checks once per kStride instructions: it may overshoot the limit
  // by that many, which a limit of thousands absorbs.
  [[gnu::always_inline]] bool CheckDue(size_t n) const {
    constexpr int64_t kStride = 64;
    if (options_.max_in_flight < 64 * kStride) return true;
    int64_t& since_check = internal_queue::t_since_check;
    since_check += static_cast<int64_t>(n);
    if (since_check < kStride) [[likely]]
      return false;
    since_check = 0;
    return true;
  }
  void WaitForRoom();
  // Back-pressure for `n` more instructions (Backpressure::kWait).
  [[gnu::always_inline]] void WaitForRoomIfDue(size_t n) {
    if (!options_.synchronous && CheckDue(n) && !base::OnVmThread() &&
        counters_->in_flight() >= options_.max_in_flight) {
      WaitForRoom();
    }
  }
  // Marks the list head..tail (n instructions) pending and pushes it; false,
  // nothing pushed, once closed.
  [[gnu::always_inline]] bool Push(Instruction* head, Instruction* tail, size_t n,
                                   bool wake_scheduler) {
    head->batch_tail = tail;
    head->batch_size = n;
    // Counted before the push: the scheduler may finish them before this
    // thread runs again, and in flight (received - finished) must not go negative.
    VmCounters::Bump(counters_->received, n);
    Instruction* top = top_.load(std::memory_order_relaxed);
    if (top != Closed()) [[likely]] {
      // Pending before the push: the scheduler may take them in as soon as
      // it lands (instruction_state.h).
      for (Instruction* i = head; i != nullptr; i = i->next) i->set_state(InstrState::kPending);
      do {
        head->batch_next = top;
      } while (top != Closed() && !top_.compare_exchange_weak(top, head, std::memory_order_release,
                                                              std::memory_order_relaxed));
    }
    if (top == Closed()) [[unlikely]] {
      counters_->received.fetch_sub(n, std::memory_order_relaxed);
      return false;
    }
    if (top == nullptr && wake_scheduler && !options_.synchronous) scheduler_->Notify();
    return true;
  }
  absl::Status RefuseOne(Instruction* instr);
  absl::Status AppendOneTraced(Instruction* instr);  // in a "submit" slice

  const VmOptions& options_;
  VmCounters* counters_;
  base::Notifier* scheduler_;
  CompletionSignal* completions_;

  absl::Status Refuse(InstructionList* list);
  void Drain(Instruction* top, InstructionList* into);  // scheduler thread

  // The pending lists: a lock-free stack (Treiber) of pushed lists, linked
  // through their heads' batch_next; the scheduler takes all of it with one
  // CAS and reverses it, so lists run in push order. Closed() marks a closed
  // queue: a push that finds it is refused.
  static Instruction* Closed() { return reinterpret_cast<Instruction*>(uintptr_t{1}); }
  std::atomic<Instruction*> top_{nullptr};

  base::Mutex mu_;  // Close(), refusals: never on the accepting path
  Instruction* closed_with_ ABSL_GUARDED_BY(mu_) = nullptr;  // pushed before Close()
  InstructionList refused_ ABSL_GUARDED_BY(mu_);
  bool engine_stopped_ ABSL_GUARDED_BY(mu_) = false;

  // Back-pressure: waiters count themselves (seq_cst, paired with the
  // scheduler's load in WakeWaitersIfDrained) so that the scheduler takes
  // bp_mu_ only when someone waits.
  base::Mutex bp_mu_;
  base::CondVar bp_cv_;
  std::atomic<int> bp_waiters_{0};
  std::atomic<bool> closed_{false};
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_SUBMISSION_QUEUE_H_
