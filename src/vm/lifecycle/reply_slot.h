// ReplySlot: where a VM thread leaves a result for a user thread blocked on it
// (Sync, Wait, Item, ToVector, CopyToHost), which may give up when the VM
// makes no progress for VmOptions::hang_timeout_ms (docs/reliability.md).
//
// The VM thread Claim()s the slot before it touches anything the waiter
// owns (the buffer a read copies into); a waiter gives up only while the
// slot is unclaimed, so a late result never lands in a buffer that is gone.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_REPLY_SLOT_H_
#define EAGERVM_VM_LIFECYCLE_REPLY_SLOT_H_

#include <atomic>
#include <memory>

#include "absl/status/status.h"
#include "base/sync_waiter.h"
#include "vm/error_record.h"

namespace eagervm::vm {

class VmImpl;

class ReplySlot {
 public:
  // VM thread, once. False when the waiter has given up: then touch nothing
  // of the waiter's and do not Signal().
  bool Claim() {
    int expected = kOpen;
    return state_.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel);
  }
  // VM thread, after a successful Claim(); everything written before it is
  // visible to the waiter.
  void Signal() { waiter_.Signal(); }
  // Written by the VM thread between Claim() and Signal().
  ErrorPtr error;

  // The waiting user thread. OK once signalled. With hang_timeout_ms on:
  // DeadlineExceeded naming `what` (and a warning logged with the VM's
  // DumpState()) when no instruction finished VM-wide for that long.
  absl::Status Await(VmImpl& vm, const char* what);

 private:
  enum : int { kOpen, kClaimed, kAbandoned };
  std::atomic<int> state_{kOpen};
  base::SyncWaiter waiter_;
};

// Owns a ReplySlot: on the waiter's stack when hang detection is off (the
// common case costs no allocation), shared with the instruction otherwise (a
// waiter that gives up returns while the VM still holds the slot).
class ReplySlotHolder {
 public:
  explicit ReplySlotHolder(bool may_give_up) {
    if (may_give_up) shared_ = std::make_shared<ReplySlot>();
  }
  ReplySlot* get() { return shared_ ? shared_.get() : &local_; }
  // For the instruction's callback to keep (null when on the stack).
  const std::shared_ptr<ReplySlot>& keep() const { return shared_; }

 private:
  ReplySlot local_;
  std::shared_ptr<ReplySlot> shared_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_REPLY_SLOT_H_
