// Donation: the submitting thread runs its own instructions when the VM is
// idle, instead of handing them to the scheduler thread and a worker and
// being woken (IREE's "donate the caller", TBB's caller-runs). A wake-up
// costs tens of microseconds where the kernel of a small op costs a few, so
// on an idle VM running it here is what a program calling the kernels
// directly would do (docs/architecture.md, "An idle VM: the caller runs").
//
// Two ways in (VmImpl::Receive, VmImpl::Donate):
// - Automatic, for every op: a single instruction that never blocks (an op
//   call of a built-in or small_runs_inline op, a tensor release) with
//   operands of at most VmOptions::donate_max_bytes, submitted while nothing
//   is in flight, runs on the submitting thread before the call returns.
//   When something is in flight (a long op handed to a worker, another
//   stream's work, a queue building up), it is queued as usual, so work
//   overlaps again. EAGERVM_DONATE_MAX_BYTES=0 turns it off.
//   A larger op on an idle VM is handed off only while that is measured to
//   pay: the thread then had work of its own to overlap with it
//   (VmOptions::handoff_min_gap_us); otherwise it runs here too.
// - A DonateScope, for calls that wait for their result anyway or whose
//   latency is the point: host reads (Wait, Item, CopyToHost), Sync, and CPU
//   collectives (docs/distributed.md), whatever their size.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_DONATE_H_
#define EAGERVM_VM_LIFECYCLE_DONATE_H_

#include <cstdint>

namespace eagervm::vm {

class VmStream;

// What a DonateScope lets the caller run.
enum class DonateMode {
  kNone,
  // Instructions that finish on their own (host reads, barriers).
  kShort,
  // Also instructions that block until other processes join (collectives):
  // the caller then returns only when the collective is done. Honoured only
  // with VmOptions::collectives_on_caller (and hang_timeout_ms off).
  kMayBlock,
};

namespace internal_donate {
extern constinit thread_local DonateMode t_mode;
// Automatic donation: ops left before this thread looks at the in-flight
// count again, after it found the VM busy (the count is written by the
// scheduler on every completion: reading it costs a cache miss per op).
extern constinit thread_local int32_t t_busy_skip;
// Bounded run-ahead: the estimated cost (VmImpl::kQueuedOpCost per
// instruction plus its operand bytes) of what this thread queued since it
// last saw the VM idle (VmOptions::run_ahead_max_bytes).
extern constinit thread_local int64_t t_run_ahead;
// Large ops (above VmOptions::donate_max_bytes), measured: when this thread
// last handed one off on an idle VM to see whether that pays (its CPU time,
// base::ThreadCpuNanos; 0: no handoff being measured; -1: one being queued),
// how many more it runs itself on an idle VM before the next such try, and
// the last such count (1, 3, 7, ... 127).
extern constinit thread_local int64_t t_handoff_at_ns;
extern constinit thread_local int32_t t_large_on_caller;
extern constinit thread_local int32_t t_large_backoff;
// The stream of this thread's last large op handed off on an idle VM (null:
// none yet, or a list).
extern constinit thread_local const VmStream* t_handoff_stream;
}  // namespace internal_donate

// This thread's DonateMode (kNone outside any scope). Inline: VmImpl::Receive
// checks it on every op.
inline DonateMode CurrentDonateMode() { return internal_donate::t_mode; }

// Sets this thread's DonateMode for the scope's lifetime; nests, restoring
// the previous one. User threads; the scope does nothing on VM threads, in
// the synchronous mode (the caller runs everything there already), or when
// the VM is not idle.
class DonateScope {
 public:
  explicit DonateScope(DonateMode mode) : previous_(internal_donate::t_mode) {
    internal_donate::t_mode = mode;
  }
  ~DonateScope() { internal_donate::t_mode = previous_; }
  DonateScope(const DonateScope&) = delete;
  DonateScope& operator=(const DonateScope&) = delete;

 private:
  DonateMode previous_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_DONATE_H_
