// The process-wide virtual machine: options, statistics, lifetime.
//
// "VM thread" below means a thread while eagervm runs kernels and callbacks
// on it: the scheduler and the stream workers; in VmOptions::synchronous
// mode, a user thread while it drains; and a user thread blocked in a host
// read (Tensor::Wait, Item, ToVector, CopyToHost) or Sync() while it runs the
// scheduler's passes itself, which it does when the VM is nearly idle. Such a
// thread may then run small kernels (OpOptions::small_runs_inline) that other
// threads submitted: see RegisterKernel in custom_op.h. Functions that block
// refuse to run on a VM thread with FailedPrecondition instead of waiting for
// themselves.
#ifndef EAGERVM_VIRTUAL_MACHINE_H_
#define EAGERVM_VIRTUAL_MACHINE_H_

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "eagervm/device.h"
#include "eagervm/export.h"
#include "eagervm/memory_stats.h"

namespace eagervm {

struct EAGERVM_EXPORT VmOptions {
  // Compute streams (and worker threads) per CPU; Stream(cpu, i) needs i < cpu_streams.
  int cpu_streams = 2;
  // Run CPU kernels on the scheduler thread instead of stream workers (saves a
  // thread handoff per op; loses stream parallelism).
  bool compute_on_scheduler_thread = false;
  // Small instructions run on the scheduler thread: a CPU op call whose
  // operands total at most this many bytes, of an op that allows it
  // (OpOptions::small_runs_inline; every built-in but MatMul), runs inline at
  // dispatch when nothing earlier on its stream is still running, instead of
  // being handed to the stream's worker (a handoff costs more than a 1-float
  // add). Stream order and dependences are unchanged. 0 turns it off. Such a
  // call may also run on a user thread blocked in a read or Sync() that runs
  // the scheduler's passes itself (RegisterKernel in custom_op.h).
  int64_t inline_max_bytes = 16 << 10;
  // Donation: an op call (of a built-in, or an op with small_runs_inline)
  // or a tensor release whose operands total at most this many bytes, made
  // while nothing is in flight in the VM, runs on the calling thread before
  // the call returns, as in the synchronous mode: no thread is woken for it.
  // When anything is in flight (a larger op handed to a worker, work on
  // another stream or thread) calls are queued as usual and overlap with
  // it. Order, dependences and errors are the same either way. 0 turns it
  // off (every call is queued, whatever handoff_min_gap_us says), and so
  // does hang_timeout_ms (a kernel that blocks would block the caller where
  // no timeout can report it). EAGERVM_DONATE_MAX_BYTES.
  int64_t donate_max_bytes = 1 << 20;
  // Larger ops, measured: a call above donate_max_bytes made while nothing
  // is in flight is handed to a worker only while that pays, i.e. while the
  // calling thread has other work to overlap with it. The VM measures the
  // thread's CPU time from such a handoff to its next call into the VM (an
  // op, a graph's run, a read, Sync; not a tensor's release): at least this
  // many microseconds (the thread computed something of its own meanwhile),
  // or an op on another stream (it runs beside the large one), and it keeps
  // handing them off; less (it went straight on to the next
  // op, which then queues behind the large one, or to a read of the result;
  // time asleep or preempted does not count) and its next 1, 3, 7, ... (at
  // most 127) large calls on an idle VM run on the thread as the small ones
  // do, before it tries a handoff again. 0: always hand them off. 200 us:
  // a handoff wakes two threads (~40 us each here), and in a virtual
  // machine the waker's CPU clock shows up to ~100 us of such wake-ups
  // after one, which less would take for work of its own.
  // EAGERVM_HANDOFF_MIN_GAP_US.
  int64_t handoff_min_gap_us = 200;
  // Bounded run-ahead: when the ops a thread queued since it last found the
  // VM idle are estimated to cost more than this (their operand bytes, at
  // most 64 KiB an op, plus 4 KiB per op for the handoff; an op above
  // donate_max_bytes counts the 4 KiB alone: large ops queued are the
  // overlap), the thread yields its core until the VM
  // has finished what it received so far (2 ms at most), so that a queue of
  // small ops the VM works off slower than the thread adds to it drains, and
  // the next ops run on the caller again (donation) instead of each paying a
  // handoff. 0: unbounded (back-pressure, max_in_flight, still applies).
  // EAGERVM_RUN_AHEAD_MAX_BYTES.
  int64_t run_ahead_max_bytes = 256 << 10;
  // Deterministic mode for tests and debugging: no VM threads at all; every
  // submission is scheduled and computed on the submitting thread before it returns.
  bool synchronous = false;
  // Limit of bytes of live tensors per CUDA device (all its streams); 0 =
  // unlimited (the device's memory). Allocations past it fail with
  // ResourceExhausted. EAGERVM_CUDA_MEMORY_LIMIT (bytes).
  int64_t cuda_memory_limit = 0;
  // Back-pressure: a submitting thread blocks while more than this many
  // instructions are in flight, until the VM drains to half of it. Limits of
  // 4096 and more are checked once per 64 instructions a thread submits (the
  // check costs a cache miss), so each thread may overshoot by up to 64.
  int64_t max_in_flight = 1 << 16;
  // How long VM threads spin for more work after finishing some, before they
  // park (a park/wake costs ~20-40 us). 0 parks at once.
  int64_t spin_us = 100;
  // Limit of bytes the CPU device's allocators may hold from the system
  // (in use + cached), shared by all CPU streams; 0 = unlimited.
  // EAGERVM_CPU_MEMORY_LIMIT accepts suffixes: 64MiB, 1.5GiB, 512k.
  int64_t cpu_memory_limit = 0;
  // Out of memory: after shrinking every cache of the device, an allocation
  // waits up to this long for other streams to free memory before it fails
  // with ResourceExhausted (docs/memory.md). Ignored (0) when no other VM
  // thread can free memory concurrently (synchronous, compute_on_scheduler_thread).
  int64_t oom_wait_ms = 250;
  // Hang diagnostics: a blocking call (Sync, Wait, Item, ToVector,
  // CopyToHost, EmptyCache) that sees no instruction finish anywhere in the
  // VM for this long returns DeadlineExceeded and logs (warning) a dump of the
  // lively instructions (VirtualMachine::DumpState()). The work stays queued:
  // call again to keep waiting. 0 (default) waits forever. While on, the
  // scheduler stamps each dispatch with the time (~20 ns an instruction).
  // EAGERVM_HANG_TIMEOUT_MS.
  int64_t hang_timeout_ms = 0;
  // Opt-in latency mode for CPU collectives (docs/distributed.md): one
  // submitted while the VM is idle (nothing else in flight) runs on the
  // submitting thread, which calls MPI itself and so *blocks until the
  // collective is done*, instead of queueing it and returning at once (no
  // thread hop: ~1 us of VM overhead instead of several wake-ups). Off by
  // default because the collectives' contract is that they never block: a
  // program that submits a collective and then does something a peer needs
  // first (another device's collective, a message of its own) may deadlock
  // with it on. Ignored with hang_timeout_ms on. EAGERVM_COLLECTIVES_ON_CALLER.
  bool collectives_on_caller = false;
  // Dtypes: off (default), a binary op on two dtypes (Add of int32 and
  // float32, Eq, Where, Minimum, ...) computes in their promoted dtype, by
  // numpy's table (docs/ops.md, "Dtype promotion"); on, it is InvalidArgument
  // naming both dtypes (use Cast). EAGERVM_STRICT_DTYPES.
  bool strict_dtypes = false;

  // Defaults overridden by EAGERVM_* environment variables (see docs/env.md).
  // Any thread, never blocks. The environment is read once per process (at
  // the first of: this call, the VM's creation, GetLogLevel() or the first
  // log message); later changes to it are not seen.
  static VmOptions FromEnv();
};

// A snapshot of the VM's counters (each read relaxed; not one atomic cut).
// A host read (Wait, Item, ...) of a CPU tensor on an idle VM is answered on
// the calling thread without an instruction; it still counts as the one
// read instruction it stands for (received, dispatched, finished), so the
// counts do not depend on timing.
struct EAGERVM_EXPORT VmStats {
  uint64_t received = 0;    // instructions received
  uint64_t dispatched = 0;  // handed to a stream
  // Retired: done (computed, failed or forwarded an error) and let go by the
  // scheduler, its successors free to run.
  uint64_t finished = 0;
  uint64_t failed = 0;   // instructions whose compute failed (not forwarded errors)
  uint64_t batched = 0;  // handed to a worker in one batch with the one before
  uint64_t inlined = 0;  // small ones run by the scheduler (VmOptions::inline_max_bytes)
  // Run on the submitting thread before its call returned, the VM being
  // idle (donation: VmOptions::donate_max_bytes, and Sync()/reads). Not
  // counted in the synchronous mode, where every instruction runs there.
  uint64_t donated = 0;
  uint64_t barriers = 0;
  uint64_t scheduler_wakeups = 0;  // parks of the scheduler that ended in a wake
  uint64_t worker_wakeups = 0;
  int64_t in_flight = 0;  // received - finished
  int64_t peak_in_flight = 0;
  int64_t pending_depth = 0, ready_depth = 0, running_depth = 0;
  uint64_t backpressure_waits = 0;
  // Waits of a submitting thread for the VM to drain (VmOptions::run_ahead_max_bytes).
  uint64_t run_ahead_waits = 0;
  // Compact copies made of strided views (Tensor::Permute, T, Expand, Slice
  // on an inner axis) for kernels that need compact input; process-wide.
  uint64_t contiguous_copies = 0;
  // Instruction records allocated so far, process-wide. Records are reused
  // and never freed: this grows with the most instructions ever in flight at
  // once (plus a batch per thread that submits or runs them), not with the
  // number of ops.
  uint64_t instructions_allocated = 0;
  std::vector<MemoryStats> memory;  // one entry per device that has allocated
  std::string ToString() const;     // one line, every field
};
// Any thread. Print every field.
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const VmStats& s);
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const VmOptions& o);

namespace vm {
class VmImpl;
namespace internal_vm {
VmImpl& CreateProcessVm();  // internal (src/vm/intake/process_vm.h)
}
}  // namespace vm

class EAGERVM_EXPORT VirtualMachine {
 public:
  // Any thread. The VM, created on the first call (of this or of any op) with
  // Configure()'s options, or VmOptions::FromEnv() without them. The first
  // call starts the scheduler thread (stream workers start with their stream,
  // on first use) and blocks while another thread is creating the VM; later
  // calls never block. The reference is valid for the rest of the process:
  // the VM drains and joins at exit (Shutdown()) and is never destroyed.
  static VirtualMachine& Get();
  // After fork(), the child's first use of the VM (through this object or any
  // op) starts a fresh VM with the same options: the reference stays valid,
  // the parent's work and tensors stay behind (docs/reliability.md).
  // Any thread, before the VM is first used; never blocks. The options are
  // validated first: InvalidArgument naming the field and its range for a
  // bad one (then nothing changes), whether or not the VM exists; then
  // FailedPrecondition once the VM exists. The ranges are those of the
  // EAGERVM_* variables (docs/env.md): cpu_streams [1, 64], max_in_flight
  // >= 2, spin_us [0, 1e6], oom_wait_ms [0, 3.6e6], hang_timeout_ms
  // [0, 8.64e7], inline_max_bytes and the memory limits >= 0. A later call
  // before first use replaces the earlier options.
  [[nodiscard]] static absl::Status Configure(VmOptions opts);

  // Any thread, never blocks. Valid as long as the VM (forever).
  const VmOptions& options() const;
  // Any thread, VM threads included. Does not wait for queued work; takes the
  // VM's stream lock and each allocator's lock briefly.
  VmStats GetStats() const;
  // Any user thread. Blocks like Sync(): waits until all work submitted before
  // it (from any thread) is done, returns every stream's cached free memory
  // to the system, then returns what Sync() would: the first runtime error
  // that no Wait/Sync/Item has reported yet (the memory is given back even
  // then). FailedPrecondition on a VM thread or after Shutdown().
  [[nodiscard]] absl::Status EmptyCache();
  // Any user thread. Blocks: drains all queued work and joins the VM threads.
  // Afterwards ops return FailedPrecondition (no silent restart) and dropping
  // tensors is a no-op. Calling it again (from any thread, also concurrently)
  // is a no-op that returns OK. Returns FailedPrecondition on a VM thread.
  // Runtime errors not yet reported are not returned (they are dropped).
  [[nodiscard]] absl::Status Shutdown();
  // Any thread, never blocks.
  bool IsShutDown() const;
  // Any thread (a debugger's `call`, a watchdog; not a signal handler: it
  // allocates and takes locks). A multi-line report of what the VM is doing:
  // counters, and each lively instruction (received, not yet retired) with
  // its op, stream, state, the instructions it still waits for and how long it
  // has been running (times only with hang_timeout_ms on). Asks the scheduler
  // thread for it and blocks up to ~0.5 s; a scheduler that does not answer
  // (blocked in a kernel it runs inline) is reported as such, with the
  // counters. At most 200 instructions are listed.
  std::string DumpState() const;

 private:
  friend vm::VmImpl& vm::internal_vm::CreateProcessVm();
  explicit VirtualMachine(VmOptions opts);
  // The current process's VM: a fresh one after fork() (Renew).
  vm::VmImpl& impl() const;
  vm::VmImpl& Renew() const;
  // Owned; replaced (the old one leaked: its threads are gone) after fork().
  mutable std::atomic<vm::VmImpl*> impl_;
};

}  // namespace eagervm

#endif  // EAGERVM_VIRTUAL_MACHINE_H_
