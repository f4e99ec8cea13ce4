// SubmissionQueue: the VM's intake. Submitting threads append instruction
// lists to the pending list (one lock per list, a scheduler wake-up only on
// empty -> non-empty) and wait here when too much is in flight
// (back-pressure, VmOptions::max_in_flight); the scheduler takes the whole
// pending list at the start of each pass.
#ifndef EAGERVM_VM_SUBMISSION_QUEUE_H_
#define EAGERVM_VM_SUBMISSION_QUEUE_H_

#include <atomic>
#include <cstddef>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "base/notifier.h"
#include "eagervm/virtual_machine.h"
#include "vm/instruction.h"
#include "vm/vm_counters.h"

namespace eagervm::vm {

// Whether a submission may wait for back-pressure. Releases never wait: they
// come from destructors on any thread and only ever lower the memory in use.
enum class Backpressure { kWait, kNoWait };

class SubmissionQueue {
 public:
  // All three outlive the queue.
  SubmissionQueue(const VmOptions& options, VmCounters* counters, base::Notifier* scheduler);
  SubmissionQueue(const SubmissionQueue&) = delete;
  SubmissionQueue& operator=(const SubmissionQueue&) = delete;

  // Any thread. Marks `list` pending and appends it; blocks first for
  // back-pressure unless `backpressure` is kNoWait or the caller is a VM
  // thread. Wakes the scheduler unless `wake_scheduler` is false (a caller
  // that takes the list in itself, holding the engine lock). After Close():
  // FailedPrecondition, and the list is discarded.
  absl::Status Append(InstructionList* list, Backpressure backpressure, bool wake_scheduler = true);
  // Scheduler thread: moves everything pending to the end of `into`.
  void TakeAll(InstructionList* into);
  // Scheduler thread, after a pass: wakes back-pressure waiters once in
  // flight has fallen to half the limit.
  void ReleaseWaitersIfDrained();
  // Stops accepting (shutdown) and wakes every back-pressure waiter.
  void Close();

 private:
  bool CheckDue(size_t n) const;
  void WaitForRoom();

  const VmOptions& options_;
  VmCounters* counters_;
  base::Notifier* scheduler_;

  base::Mutex mu_;
  InstructionList pending_ ABSL_GUARDED_BY(mu_);
  bool accepting_ ABSL_GUARDED_BY(mu_) = true;

  // Back-pressure: waiters count themselves (seq_cst, paired with the
  // scheduler's load in ReleaseWaitersIfDrained) so that the scheduler takes
  // bp_mu_ only when someone waits.
  base::Mutex bp_mu_;
  base::CondVar bp_cv_;
  std::atomic<int> bp_waiters_{0};
  std::atomic<bool> closed_{false};
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_SUBMISSION_QUEUE_H_
