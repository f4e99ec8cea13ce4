// CompletionSignal: how stream workers tell the scheduler that instructions
// finished, and when they need not.
//
// The scheduler learns of completions by polling: each pass asks the head
// of every active stream's running list whether it is done
// (Engine::RetireFinished). A worker's notice only wakes it to poll. That
// is needed when a completion can unblock something: an instruction waiting
// for a retirement (a successor on another stream, a read), a barrier (Sync,
// GlobalSync, shutdown's drain), or a thread outside the engine waiting for
// the VM to drain (back-pressure). Otherwise, a worker with more of its batch
// to run skips the notice: a busy worker keeps its core, and a parked
// scheduler stays parked, instead of waking per instruction to retire what
// no one waits for. A worker always notifies after the last instruction of
// a batch, so every completion is polled by the time the worker goes idle.
//
// No notice is lost where it matters: a worker publishes the instruction's
// completion, then reads `want_` with a read-modify-write; the engine's
// driver sets `want_` with another, then polls again before it sleeps
// (SetEngineWaiting returns true). The two RMWs are ordered in want_'s
// modification order: either the worker's reads the wish and notifies, or
// it came first, and the driver's RMW acquires it (release sequence), so its
// poll sees the completion. (RMWs, not fences: TSan does not model fences.)
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_STREAMS_COMPLETION_SIGNAL_H_
#define EAGERVM_VM_STREAMS_COMPLETION_SIGNAL_H_

#include <atomic>
#include <cstdint>

#include "base/notifier.h"

namespace eagervm::vm {

class CompletionSignal {
 public:
  explicit CompletionSignal(base::Notifier* scheduler) : scheduler_(scheduler) {}
  CompletionSignal(const CompletionSignal&) = delete;
  CompletionSignal& operator=(const CompletionSignal&) = delete;

  // A stream worker, after an instruction's completion is published (its
  // done mark stored). `more`: the worker runs another instruction of the
  // same batch next (so it will call again). Never blocks.
  void Finished(bool more) {
    if (more) {
      if (want_.fetch_or(0, std::memory_order_acq_rel) == 0) {
        unreported_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    scheduler_->Notify();
  }

  // Any thread: how many completions skipped their notice so far. With
  // VmCounters::finished (retirements), a measure of progress that moves while
  // a worker runs a batch no one waits for (hang detection, vm/lifecycle/reply_slot.cc).
  uint64_t unreported() const { return unreported_.load(std::memory_order_relaxed); }

  // The engine's driver (scheduler thread, or a user thread holding the
  // engine lock), at the end of a pass: whether the engine holds anything a
  // completion may unblock. Returns true when this turned the wish on: the
  // driver must then poll once more before it sleeps (a completion published
  // before this call may have skipped its notice).
  bool SetEngineWaiting(bool waiting) {
    const bool was = (want_.load(std::memory_order_relaxed) & kEngineBit) != 0;
    if (was == waiting) return false;
    if (waiting) {
      want_.fetch_or(kEngineBit, std::memory_order_acq_rel);
    } else {
      want_.fetch_and(~kEngineBit, std::memory_order_acq_rel);
    }
    return waiting;
  }

  // Any thread outside the engine that waits for instructions to be
  // retired (back-pressure): brackets the wait. AddWaiter also wakes the
  // scheduler, whose pass then polls what finished before it.
  void AddWaiter() {
    want_.fetch_add(kWaiterUnit, std::memory_order_acq_rel);
    scheduler_->Notify();
  }
  void RemoveWaiter() { want_.fetch_sub(kWaiterUnit, std::memory_order_acq_rel); }

 private:
  static constexpr uint32_t kEngineBit = 1;
  static constexpr uint32_t kWaiterUnit = 2;
  base::Notifier* scheduler_;
  // Bit 0: the engine waits for a completion; above it: outside waiters.
  std::atomic<uint32_t> want_{0};
  // Written by the workers only when they skip a notice; its own line, so
  // the scheduler's reads of want_ do not share it.
  alignas(64) std::atomic<uint64_t> unreported_{0};
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAMS_COMPLETION_SIGNAL_H_
