// CallerRunsScope: lets the submitting thread run its own instructions when
// the VM is idle, instead of handing them to the scheduler thread and
// waiting to be woken (VmImpl::Receive). Used by calls that wait for their
// result anyway or whose latency is the point: host reads (Wait, Item,
// CopyToHost), Sync, and CPU collectives (docs/distributed.md).
//
// Why: a collective through the scheduler costs user thread -> scheduler ->
// comm worker -> user thread, a wake-up per hop; with an idle VM the caller
// can call MPI itself, as a program calling MPI directly would
// (docs/performance.md, "Collectives").
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_CALLER_RUNS_H_
#define EAGERVM_VM_LIFECYCLE_CALLER_RUNS_H_

namespace eagervm::vm {

// What the scope lets the caller run.
enum class CallerRuns {
  kNone,
  // Instructions that finish on their own (host reads, barriers).
  kShort,
  // Also instructions that block until other processes join (collectives):
  // the caller then returns only when the collective is done. Honoured only
  // with VmOptions::collectives_on_caller (and hang_timeout_ms off).
  kMayBlock,
};

namespace internal_caller_runs {
extern constinit thread_local CallerRuns t_mode;
}  // namespace internal_caller_runs

// This thread's CallerRuns (kNone outside any scope). Inline: VmImpl::Receive
// checks it on every op.
inline CallerRuns CurrentCallerRuns() { return internal_caller_runs::t_mode; }

// Sets this thread's CallerRuns for the scope's lifetime; nests, restoring
// the previous one. User threads; the scope does nothing on VM threads, in
// the synchronous mode (the caller runs everything there already), or when
// the VM is not idle.
class CallerRunsScope {
 public:
  explicit CallerRunsScope(CallerRuns mode) : previous_(internal_caller_runs::t_mode) {
    internal_caller_runs::t_mode = mode;
  }
  ~CallerRunsScope() { internal_caller_runs::t_mode = previous_; }
  CallerRunsScope(const CallerRunsScope&) = delete;
  CallerRunsScope& operator=(const CallerRunsScope&) = delete;

 private:
  CallerRuns previous_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_CALLER_RUNS_H_
