#include "vm/submission_queue.h"

#include "base/thread_role.h"
#include "vm/instruction_pool.h"
#include "vm/trace_hooks.h"

namespace eagervm::vm {

SubmissionQueue::SubmissionQueue(const VmOptions& options, VmCounters* counters,
                                 base::Notifier* scheduler)
    : options_(options), counters_(counters), scheduler_(scheduler) {}

absl::Status SubmissionQueue::Append(InstructionList* list, Backpressure backpressure,
                                     bool wake_scheduler) {
  if (list->empty()) return absl::OkStatus();
  SubmitSlice trace(list);
  if (backpressure == Backpressure::kWait && !options_.synchronous && CheckDue(list->size) &&
      !base::OnVmThread() && counters_->in_flight() >= options_.max_in_flight) {
    WaitForRoom();
  }
  const size_t n = list->size;
  for (Instruction* i = list->head; i != nullptr; i = i->next) i->PrepareForScheduler();
  bool accepted;
  bool was_empty = false;
  {
    base::MutexLock lock(&mu_);
    accepted = accepting_;
    if (accepted) {
      // Pending only once accepted (instruction_state.h): the scheduler may
      // take them in as soon as the lock is released.
      for (Instruction* i = list->head; i != nullptr; i = i->next) {
        i->set_state(InstrState::kPending);
      }
      was_empty = pending_.empty();
      pending_.Splice(list);
      counters_->pending_depth.store(static_cast<int64_t>(pending_.size),
                                     std::memory_order_relaxed);
      VmCounters::Add<uint64_t>(counters_->received, n);  // under mu_
    }
  }
  if (!accepted) {
    // Refused: nothing will ever run them. Still kBuilding, so they go back
    // to the pool as a discarded build does. Outside mu_: destroying a
    // policy may drop the last reference to a storage, whose release
    // instruction comes back through Append.
    while (!list->empty()) InstructionPool::Recycle(list->PopFront());
    return absl::FailedPreconditionError(
        "the eagervm VM has been shut down; no more work is accepted");
  }
  if (was_empty && wake_scheduler && !options_.synchronous) scheduler_->Notify();
  return absl::OkStatus();
}

// Reading the in-flight count costs a cache miss per op (the scheduler writes
// `finished` all the time), so with a large limit each submitting thread
// checks once per kStride instructions: it may overshoot the limit by that
// many, which a limit of thousands absorbs.
bool SubmissionQueue::CheckDue(size_t n) const {
  constexpr int64_t kStride = 64;
  if (options_.max_in_flight < 64 * kStride) return true;
  thread_local int64_t since_check = 0;
  since_check += static_cast<int64_t>(n);
  if (since_check < kStride) return false;
  since_check = 0;
  return true;
}

void SubmissionQueue::WaitForRoom() {
  VmCounters::Bump(counters_->backpressure_waits);
  const int64_t low = options_.max_in_flight / 2;
  base::MutexLock lock(&bp_mu_);
  bp_waiters_.fetch_add(1, std::memory_order_seq_cst);
  while (counters_->in_flight() > low && !closed_.load(std::memory_order_acquire)) {
    bp_cv_.Wait(&bp_mu_);
  }
  bp_waiters_.fetch_sub(1, std::memory_order_seq_cst);
}

void SubmissionQueue::TakeAll(InstructionList* into) {
  base::MutexLock lock(&mu_);
  into->Splice(&pending_);
  counters_->pending_depth.store(0, std::memory_order_relaxed);
}

void SubmissionQueue::ReleaseWaitersIfDrained() {
  if (bp_waiters_.load(std::memory_order_seq_cst) > 0 &&
      counters_->in_flight() <= options_.max_in_flight / 2) {
    base::MutexLock lock(&bp_mu_);
    bp_cv_.NotifyAll();
  }
}

void SubmissionQueue::Close() {
  {
    base::MutexLock lock(&mu_);
    accepting_ = false;
  }
  closed_.store(true, std::memory_order_release);
  base::MutexLock lock(&bp_mu_);
  bp_cv_.NotifyAll();
}

}  // namespace eagervm::vm
