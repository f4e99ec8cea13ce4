// VmImpl: the virtual machine behind VirtualMachine: the scheduler loop and
// the VM's lifecycle, over its parts: the stream registry, the submission
// queue (pending list, back-pressure), the error ledger and the engine.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_VM_IMPL_H_
#define EAGERVM_VM_LIFECYCLE_VM_IMPL_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/notifier.h"
#include "eagervm/stream.h"
#include "eagervm/virtual_machine.h"
#include "memory/device_memory_budget.h"
#include "vm/diagnostics/vm_counters.h"
#include "vm/engine/engine.h"
#include "vm/engine/instruction.h"
#include "vm/intake/submission_queue.h"
#include "vm/lifecycle/caller_runs.h"
#include "vm/lifecycle/error_ledger.h"
#include "vm/lifecycle/fork_guard.h"
#include "vm/streams/stream_registry.h"
#include "vm/vm_context.h"

namespace eagervm::vm {

class VmImpl final : public VmContext {
 public:
  static constexpr int kMaxStreamsPerDevice = StreamRegistry::kMaxStreamsPerDevice;
  static constexpr int kMaxCudaDevices = StreamRegistry::kMaxCudaDevices;

  // Starts the scheduler thread (none in the synchronous mode).
  explicit VmImpl(VmOptions options);
  ~VmImpl() override;  // Shutdown()
  VmImpl(const VmImpl&) = delete;
  VmImpl& operator=(const VmImpl&) = delete;

  VmCounters& counters() { return counters_; }
  // ForkGeneration() when this VM was made: another value means it belongs
  // to the parent of a fork() and has no threads in this process.
  uint32_t fork_generation() const { return fork_generation_; }

  // Any thread. The runtime stream for `s`, created (with its worker) on first use.
  absl::StatusOr<VmStream*> GetStream(Stream s) { return streams_.Get(s); }
  // Any thread; the builders' only way in (EagerBuilder::Finish). Appends
  // `list` to the pending list (SubmissionQueue::Append); in the synchronous
  // mode, then runs the engine on this thread until it has nothing to do.
  // Inside a CallerRunsScope on a user thread, when the VM is idle, does
  // the same on this thread (RunOnCaller), running `list` itself.
  // Inline: it is on every op's path.
  // Receive of a list of one prepared instruction with Backpressure::kWait
  // (vm::SubmitKernelCall: the ops' path), without the list's loops.
  [[gnu::always_inline]] absl::Status ReceiveOne(Instruction* instr) {
    if (CurrentCallerRuns() != CallerRuns::kNone || options_.synchronous) [[unlikely]] {
      InstructionList list;
      list.PushBack(instr);
      return Receive(&list, Backpressure::kWait);
    }
    NoteThreadSubmitted();
    return submissions_.AppendOne(instr);
  }
  absl::Status Receive(InstructionList* list, Backpressure backpressure) {
    NoteThreadSubmitted();
    if (CurrentCallerRuns() != CallerRuns::kNone && !options_.synchronous) [[unlikely]] {
      if (std::optional<absl::Status> ran = RunOnCaller(list, backpressure)) return *ran;
    }
    absl::Status s = submissions_.Append(list, backpressure);
    if (options_.synchronous && s.ok()) [[unlikely]]
      DrainOnThisThread();
    return s;
  }

  // User thread (vm::CheckMayBlock first), outside any capture: a host read
  // of `bytes` at `offset` of `blob` (a CPU storage) answered with no
  // instruction when no write of the storage is unreleased (the VM may be
  // busy with other work) once what has finished is released and every
  // received instruction is taken in: its bytes and error are then final, so
  // the read is its error, or a copy to `dst` (when not null). Takes the
  // engine lock (waiting out a scheduler pass, as RunOnCaller does) and
  // holds it while it copies. It counts in GetStats() as the instruction it
  // stands for (received, dispatched, finished), so counts do not depend on
  // timing. nullopt, nothing done, when a write is still due (*busy set),
  // the lock could not be had (*busy set), the VM is shut down or recording
  // a trace (the read then appears in it), or the storage was never written
  // (the queued read says why).
  std::optional<absl::Status> ReadIfFinal(BlobObject& blob, size_t offset, void* dst, size_t bytes,
                                          bool* busy);

  // Blocking waits (user threads; vm::CheckMayBlock first).
  // Waits until every instruction received before it is released.
  absl::Status WaitAll();
  // WaitAll(), then TakeUnreportedErrors().
  absl::Status Sync();
  // Any thread, never blocks: the first runtime error that no sync point has
  // reported yet (noting how many more there are); each counts as reported now.
  absl::Status TakeUnreportedErrors() { return errors_.TakeUnreported(); }

  // VmContext.
  const VmOptions& options() const override { return options_; }
  void RecordError(const ErrorPtr& e) override;
  base::Notifier* scheduler_notifier() override { return &scheduler_notifier_; }
  const CompletionSignal& completions() const { return completions_; }
  std::shared_ptr<memory::DeviceMemoryBudget> cpu_budget() const override { return cpu_budget_; }

  int64_t sync_spin_ns() const { return options_.spin_us * 1000; }
  VmStats GetStats() const;
  void ForEachAllocator(const std::function<void(memory::Allocator*)>& fn) const {
    streams_.ForEachAllocator(fn);
  }
  // Any thread: what the VM is doing (VirtualMachine::DumpState); the
  // scheduler thread writes it at its next pass (src/vm/diagnostics/state_dump.cc).
  // Blocks up to ~0.5 s.
  std::string DumpState(size_t max_instructions);

  // Drains, stops accepting, joins the scheduler and the workers. Idempotent.
  absl::Status Shutdown();
  bool shut_down() const { return shut_down_.load(std::memory_order_acquire); }
  // Shutdown() has finished: every instruction that will ever run has run and
  // no VM thread is left, so a CPU storage holds its final bytes.
  bool drained() const { return drained_.load(std::memory_order_acquire); }
  // Any user thread, once drained(): reads `blob` (of a tensor on `device`)
  // with no instruction: its bytes, its error, or why it cannot be read.
  absl::Status ReadAfterShutdown(const BlobObject& blob, Device device, size_t offset, void* dst,
                                 size_t bytes, const char* what) const;

 private:
  void SchedulerLoop();
  void DrainOnThisThread();  // synchronous mode
  // User thread, inside a CallerRunsScope, not the synchronous mode: if
  // nothing received is unreleased and no other thread drives the engine,
  // takes `list` in and drives the engine on this thread, with the engine
  // lock held, until it has nothing left to do; `list`'s instructions run
  // here (Engine::set_caller_driving). Finished instructions the scheduler
  // has not released yet do not count as in flight: this thread releases
  // them first. Returns nullopt, `list` untouched, when the VM is not idle
  // or `list` is not for the CPU.
  std::optional<absl::Status> RunOnCaller(InstructionList* list, Backpressure backpressure);
  struct DumpRequest;
  void ServeDumpRequests();  // scheduler thread
  bool SchedulePass();
  // With the engine lock: releases what has finished (ReleasePass until
  // nothing moves), then, for IdleAfterRelease, true if nothing received is
  // unreleased.
  void ReleaseAllFinished() ABSL_EXCLUSIVE_LOCKS_REQUIRED(engine_mu_);
  bool IdleAfterRelease() ABSL_EXCLUSIVE_LOCKS_REQUIRED(engine_mu_);
  // RunOnCaller: takes engine_mu_, waiting up to ~50 us for a scheduler
  // pass to end, never for another caller (caller_drives_). True if taken.
  bool LockEngineForCaller() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true, engine_mu_);
  // The engine's driver: Engine::RetireOnly (releases what has finished;
  // takes nothing in, runs nothing), then wakes back-pressure waiters if
  // that drained the VM enough.
  bool ReleasePass();

  // Declaration order is construction order: the parts below read options_
  // and counters_ in their constructors.
  const VmOptions options_;
  const uint32_t fork_generation_;
  VmCounters counters_;
  base::Notifier scheduler_notifier_;
  CompletionSignal completions_{&scheduler_notifier_};
  // The CPU device's memory, shared by the allocators of all CPU streams.
  std::shared_ptr<memory::DeviceMemoryBudget> cpu_budget_;
  Engine engine_{&counters_, options_.inline_max_bytes, options_.hang_timeout_ms > 0,
                 &completions_};
  SubmissionQueue submissions_{options_, &counters_, &scheduler_notifier_, &completions_};
  ErrorLedger errors_;
  StreamRegistry streams_{this, &completions_};

  InstructionList incoming_;  // the engine's driver only
  // Who drives the engine: the scheduler thread around its passes, a user
  // thread in the synchronous mode or in RunOnCaller.
  base::Mutex engine_mu_;
  // True while a user thread drives the engine in RunOnCaller (it may be
  // blocked in a collective): other callers then do not wait for the lock.
  std::atomic<bool> caller_drives_{false};

  base::Mutex dump_mu_;
  std::vector<std::shared_ptr<DumpRequest>> dump_requests_ ABSL_GUARDED_BY(dump_mu_);
  std::atomic<bool> dump_requested_{false};

  std::atomic<bool> shut_down_{false};
  std::atomic<bool> drained_{false};
  base::Mutex shutdown_mu_;
  std::thread scheduler_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_VM_IMPL_H_
