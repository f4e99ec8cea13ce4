#include "vm/intake/submission_queue.h"

#include "base/log.h"
#include "base/thread_role.h"
#include "vm/diagnostics/trace_hooks.h"
#include "vm/engine/instruction_pool.h"

namespace eagervm::vm {

SubmissionQueue::SubmissionQueue(const VmOptions& options, VmCounters* counters,
                                 base::Notifier* scheduler, CompletionSignal* completions)
    : options_(options), counters_(counters), scheduler_(scheduler), completions_(completions) {}

absl::Status SubmissionQueue::Append(InstructionList* list, Backpressure backpressure,
                                     bool wake_scheduler) {
  if (list->empty()) return absl::OkStatus();
  SubmitSlice trace(list);
  if (backpressure == Backpressure::kWait) WaitForRoomIfDue(list->size);
  for (Instruction* i = list->head; i != nullptr; i = i->next) i->PrepareForScheduler();
  if (!Push(list->head, list->tail, list->size, wake_scheduler)) [[unlikely]]
    return Refuse(list);
  *list = InstructionList();
  return absl::OkStatus();
}

bool SubmissionQueue::AcceptForDriver(const InstructionList& list) {
  if (top_.load(std::memory_order_acquire) == Closed()) return false;
  for (Instruction* i = list.head; i != nullptr; i = i->next) {
    i->PrepareForScheduler();
    i->set_state(InstrState::kPending);
  }
  VmCounters::Bump(counters_->received, list.size);
  VmCounters::Add<uint64_t>(counters_->taken_in, list.size);
  return true;
}

absl::Status SubmissionQueue::Refuse(InstructionList* list) {
  // A push that lost the race with Close() was never visible to the
  // scheduler: back to kBuilding, so it is recycled as a discarded build is.
  for (Instruction* i = list->head; i != nullptr; i = i->next) {
    if (i->state() == InstrState::kPending) i->set_state(InstrState::kBuilding);
  }
  bool recycle_now;
  {
    base::MutexLock lock(&mu_);
    recycle_now = engine_stopped_;
    if (!recycle_now) refused_.Splice(list);  // RecycleRefused
  }
  // Outside mu_: destroying a policy may drop the last reference to a
  // storage, whose release instruction comes back through Append.
  while (recycle_now && !list->empty()) InstructionPool::Recycle(list->PopFront());
  *list = InstructionList();
  return absl::FailedPreconditionError(
      "the eagervm VM has been shut down; no more work is accepted");
}

// Takes the stack of pushed lists and appends them to `into` in push order:
// walking down from the newest list, each one goes in front of those above it.
void SubmissionQueue::Drain(Instruction* top, InstructionList* into) {
  InstructionList fifo;
  while (top != nullptr) {
    Instruction* below = top->batch_next;
    top->batch_tail->next = fifo.head;
    if (fifo.tail == nullptr) fifo.tail = top->batch_tail;
    fifo.head = top;
    fifo.size += top->batch_size;
    top = below;
  }
  VmCounters::Add<uint64_t>(counters_->taken_in, static_cast<uint64_t>(fifo.size));
  into->Splice(&fifo);
}

namespace internal_queue {
constinit thread_local int64_t t_since_check = 0;
}  // namespace internal_queue

absl::Status SubmissionQueue::AppendOneTraced(Instruction* instr) {
  SubmitSlice trace(instr);
  return AppendOneUntraced(instr);
}

absl::Status SubmissionQueue::RefuseOne(Instruction* instr) {
  InstructionList list;
  list.PushBack(instr);
  return Refuse(&list);
}

void SubmissionQueue::WaitForRoom() {
  VmCounters::Bump(counters_->backpressure_waits);
  EAGERVM_LOG_EVERY_MS(kDebug, 1000, "back-pressure: a submitting thread waits, ",
                       counters_->in_flight(), " instructions in flight (VmOptions::max_in_flight ",
                       options_.max_in_flight, ")");
  const int64_t low = options_.max_in_flight / 2;
  // Retirements are what this waits for: workers report every completion
  // meanwhile, not only their batches' last (vm/streams/completion_signal.h).
  completions_->AddWaiter();
  {
    base::MutexLock lock(&bp_mu_);
    bp_waiters_.fetch_add(1, std::memory_order_seq_cst);
    while (counters_->in_flight() > low && !closed_.load(std::memory_order_acquire)) {
      bp_cv_.Wait(&bp_mu_);
    }
    bp_waiters_.fetch_sub(1, std::memory_order_seq_cst);
  }
  completions_->RemoveWaiter();
}

void SubmissionQueue::TakeAll(InstructionList* into) {
  Instruction* top = top_.load(std::memory_order_relaxed);
  while (top != nullptr && top != Closed() &&
         !top_.compare_exchange_weak(top, nullptr, std::memory_order_acquire,
                                     std::memory_order_relaxed)) {
  }
  if (top == Closed()) [[unlikely]] {
    base::MutexLock lock(&mu_);
    top = closed_with_;  // what was pushed before Close()
    closed_with_ = nullptr;
  }
  if (top != nullptr && top != Closed()) Drain(top, into);
}

void SubmissionQueue::WakeWaitersIfDrained() {
  if (bp_waiters_.load(std::memory_order_seq_cst) > 0 &&
      counters_->in_flight() <= options_.max_in_flight / 2) {
    base::MutexLock lock(&bp_mu_);
    bp_cv_.NotifyAll();
  }
}

void SubmissionQueue::Close() {
  {
    base::MutexLock lock(&mu_);
    Instruction* top = top_.exchange(Closed(), std::memory_order_acq_rel);
    if (top != Closed()) closed_with_ = top;
  }
  closed_.store(true, std::memory_order_release);
  base::MutexLock lock(&bp_mu_);
  bp_cv_.NotifyAll();
}

void SubmissionQueue::RecycleRefused() {
  InstructionList refused;
  {
    base::MutexLock lock(&mu_);
    engine_stopped_ = true;
    refused.Splice(&refused_);
  }
  while (!refused.empty()) InstructionPool::Recycle(refused.PopFront());
}

}  // namespace eagervm::vm
