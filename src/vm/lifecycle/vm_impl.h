// VmImpl: the virtual machine behind VirtualMachine: the scheduler loop and
// the VM's lifecycle, over its parts: the stream registry, the submission
// queue (pending list, back-pressure), the error ledger and the engine.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_VM_IMPL_H_
#define EAGERVM_VM_LIFECYCLE_VM_IMPL_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
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
#include "vm/lifecycle/donate.h"
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
  // On a user thread with the VM idle, runs `list` on this thread instead
  // (Donate): inside a DonateScope, or automatically for one small
  // instruction that never blocks (vm/lifecycle/donate.h).
  absl::Status Receive(InstructionList* list, Backpressure backpressure) {
    NoteThreadSubmitted();
    // Releases (kNoWait lists) come with the op that dropped a tensor: not
    // the thread's next call.
    if (backpressure == Backpressure::kWait)
      NoteCallAfterHandoff(list->size == 1 ? list->head : nullptr);
    if (!options_.synchronous &&
        (CurrentDonateMode() != DonateMode::kNone ||
         (list->size == 1 ? MayDonate(*list->head) : MayDonateList(*list)))) [[unlikely]] {
      if (std::optional<absl::Status> ran = Donate(list, backpressure)) return *ran;
    }
    int64_t cost = 0;
    if (run_ahead_max_ > 0 && backpressure == Backpressure::kWait) {
      for (const Instruction* i = list->head; i != nullptr; i = i->next) cost += QueuedCost(*i);
    }
    absl::Status s = submissions_.Append(list, backpressure);
    if (internal_donate::t_handoff_at_ns == kHandoffClockDue) [[unlikely]]
      StartHandoffClock(list->size == 1 ? list->head : nullptr);
    if (cost > 0) NoteQueued(cost);
    if (options_.synchronous && s.ok()) [[unlikely]]
      DrainOnThisThread();
    return s;
  }
  // Receive of a list of one prepared instruction with Backpressure::kWait
  // (vm::SubmitKernelCall: the ops' path), without the list's loops.
  // Inline: it is on every op's path.
  [[gnu::always_inline]] absl::Status ReceiveOne(Instruction* instr) {
    if (CurrentDonateMode() != DonateMode::kNone || options_.synchronous) [[unlikely]] {
      InstructionList list;
      list.PushBack(instr);
      return Receive(&list, Backpressure::kWait);
    }
    NoteThreadSubmitted();
    NoteCallAfterHandoff(instr);
    if (MayDonate(*instr)) {
      if (std::optional<absl::Status> ran = DonateOne(instr)) return *ran;
    }
    const int64_t cost = QueuedCost(*instr);
    absl::Status s = submissions_.AppendOne(instr);
    if (internal_donate::t_handoff_at_ns == kHandoffClockDue) [[unlikely]]
      StartHandoffClock(instr);
    NoteQueued(cost);
    return s;
  }

  // User thread (vm::CheckMayBlock first), outside any capture: a host read
  // of `bytes` at `offset` of `blob` answered with no instruction, on this
  // thread, when its bytes and error are final. A device's storage is copied
  // by the device's StreamPolicy::ReadFinalToHost (CUDA: a synchronous copy
  // on a stream of its own, ~ the raw driver's latency).
  // - Final: once what has finished is retired and every received
  //   instruction is taken in, no write of the storage is unretired (the
  //   VM may be busy with other work). A few received instructions are
  //   driven here first (DriveUntilFinal).
  // - Then returns the storage's error, or OK after copying the bytes to
  //   `dst` (when not null), holding the engine lock (a DonorLease, which
  //   waits out a scheduler pass) while it copies.
  // - nullopt, nothing done, with *busy set: a write is still due, or the
  //   lock could not be had. nullopt with *busy clear: the VM is shut down
  //   or recording a trace (the read then appears in it), or the storage
  //   was never written (the queued read says why).
  // - GetStats() counts an answered read as the read instruction it stands
  //   for (received, taken in, dispatched, finished), so counts do not
  //   depend on timing.
  std::optional<absl::Status> ReadIfFinal(BlobObject& blob, size_t offset, void* dst, size_t bytes,
                                          bool* busy);

  // User thread: an op call (`next`), a graph's run, a host read or a Sync()
  // (before it may wait; `next` null), not a tensor's release, ends the
  // measurement of a large op's handoff (MayDonateLarge), if one is running
  // on this thread. Inline: on every op's path.
  [[gnu::always_inline]] void NoteCallAfterHandoff(const Instruction* next = nullptr) {
    if (internal_donate::t_handoff_at_ns > 0) [[unlikely]]
      NoteHandoffGap(next);
  }

  // Blocking waits (user threads; vm::CheckMayBlock first).
  // Waits until every instruction received before it is retired.
  absl::Status WaitAll();
  // WaitAll(), then TakeUnreportedErrors().
  absl::Status Sync();
  // User thread, after a blocking wait for an instruction it queued (a
  // Sync's barrier, a host read) has returned: the VM may be idle now, so
  // this thread's next small op should be donated. Clears the thread's
  // busy-skip and run-ahead state and, if anything is still counted in
  // flight, releases what has finished (the instruction just waited for:
  // it signalled its waiter before the scheduler could release it), taking
  // the engine lock if a scheduler pass lets it within kSettleWaitForPassNs
  // (else the scheduler's pass releases it). Never waits for unfinished work.
  void SettleAfterWait();
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
  // Automatic donation's test, on every op outside a DonateScope (not the
  // synchronous mode): `instr` may run on this thread and the VM looks idle
  // (nothing in flight). After finding it busy, this thread skips the test
  // for the next kBusySkip ops (the in-flight count is the scheduler's cache
  // line): up to that many ops are queued after the VM drains, unless a wait
  // (SettleAfterWait) or the run-ahead bound (ThrottleRunAhead) saw it drain.
  // Above donate_max_bytes, MayDonateLarge decides.
  static constexpr int32_t kBusySkip = 8;
  [[gnu::always_inline]] bool MayDonate(const Instruction& instr) {
    return MayDonateBytes(instr.donatable, instr.operand_bytes, &instr);
  }
  // MayDonate of a list of several instructions (a graph's run, one per
  // segment), which runs on this thread as a whole: every instruction
  // donatable, their operand bytes summed.
  bool MayDonateList(const InstructionList& list);
  // `single`: the one instruction (null: a list).
  [[gnu::always_inline]] bool MayDonateBytes(bool donatable, uint32_t operand_bytes,
                                             const Instruction* single) {
    if (!donatable) return false;
    if (operand_bytes >= donate_below_) [[unlikely]]
      return MayDonateLarge(single);
    int32_t& skip = internal_donate::t_busy_skip;
    if (skip > 0) [[unlikely]] {
      --skip;
      return false;
    }
    if (counters_.in_flight() != 0) {
      skip = kBusySkip;
      return false;
    }
    internal_donate::t_run_ahead = 0;
    return true;
  }
  // Larger ops, measured (VmOptions::handoff_min_gap_us): a donatable
  // instruction above donate_max_bytes on an idle VM runs here while
  // t_large_on_caller lasts; otherwise it is handed off and the handoff
  // timed (t_handoff_at_ns: kHandoffClockDue until it is queued, then
  // StartHandoffClock). On a busy VM it is queued; if it is an op on
  // another stream than this thread's last large op handed off, that
  // handoff paid after all (the two streams' ops run side by side: one
  // chain queued, then another's), and the back-off ends. Never inline:
  // only large ops come here.
  bool MayDonateLarge(const Instruction* single);
  static constexpr int64_t kHandoffClockDue = -1;
  // `handed_off`: the single instruction handed off (null: a list).
  void StartHandoffClock(const Instruction* handed_off);
  // This thread's next call into the VM after a timed handoff: the handoff
  // paid if the thread spent at least handoff_min_gap_us on its own work in
  // between, or if that call is an op (`next`) on another stream than the
  // op handed off (it runs beside it: two streams of large ops); if not,
  // its next 1, 3, 7, ... large ops on an idle VM run here.
  void NoteHandoffGap(const Instruction* next);
  // Bounded run-ahead (VmOptions::run_ahead_max_bytes): a queued
  // instruction's estimated cost, its operand bytes (what its kernel reads
  // and writes; at most kQueuedBytesCap) plus kQueuedOpCost for the
  // handoff itself (a few microseconds of scheduler and worker time: about
  // what a core moves in that time). An op above donate_max_bytes costs the
  // handoff alone: large ops queued are what overlap is for (a chain on one
  // stream while the thread queues another's), not a queue to drain, and
  // their handoffs are a small part of their kernels. Only host streams count
  // (StreamPolicy::RunIsCompute): a device stream's work queues on the device, which bounds it
  // itself (the driver's launch queue, then max_in_flight), and waiting for it to *finish* would
  // empty the device's pipeline every few dozen launches (H200: 20,000 one-float kernels ran at
  // 0.67x a raw launch loop).
  static constexpr int64_t kQueuedOpCost = 4096;
  static constexpr uint32_t kQueuedBytesCap = 64 << 10;
  int64_t QueuedCost(const Instruction& instr) const {
    if (instr.stream() != nullptr && !instr.stream()->run_is_compute()) return 0;
    if (instr.operand_bytes >= donate_below_) return kQueuedOpCost;
    return static_cast<int64_t>(std::min(instr.operand_bytes, kQueuedBytesCap)) + kQueuedOpCost;
  }
  // After queuing `cost` more: past the bound, this thread waits for the VM
  // to finish what was received so far (ThrottleRunAhead).
  [[gnu::always_inline]] void NoteQueued(int64_t cost) {
    if (run_ahead_max_ <= 0) return;
    int64_t& queued = internal_donate::t_run_ahead;
    queued += cost;
    if (queued > run_ahead_max_) [[unlikely]]
      ThrottleRunAhead();
  }
  // Yields the core until every instruction received before the call has
  // been released, or for kRunAheadWaitNs at most (an instruction in flight
  // may wait for something this thread does later, e.g. a custom kernel
  // polling a flag): then the VM is idle, and this thread's next small ops
  // run on it again instead of queuing behind each other. Not on VM threads.
  void ThrottleRunAhead();
  // Donate() of a list of one prepared instruction; nullopt, `instr`
  // untouched, when it must be queued.
  std::optional<absl::Status> DonateOne(Instruction* instr);
  // User thread, not the synchronous mode; `list` is for the CPU. Runs
  // `list` on this thread, holding the engine lock (a DonorLease), and
  // returns its submission's status, or returns nullopt, `list` untouched,
  // for the caller to queue it:
  // - when this is a VM thread (a kernel dropping a tensor), `list` is not
  //   for the CPU, or a collective may block and that is not allowed here
  //   (VmOptions::collectives_on_caller off, or hang_timeout_ms on);
  // - when the lock is taken (the scheduler in a pass: waited out for up to
  //   kDonorWaitForPassNs inside a DonateScope, not at all otherwise; never
  //   another donor, which may be blocked in a collective);
  // - when the VM is not idle once what has finished is retired (something
  //   received is unretired);
  // - automatic donation (no DonateScope) of one instruction that cannot
  //   run alone (not accepted: back-pressure, shutdown).
  // One instruction runs alone (Engine::RunAlone: no linking, no pass);
  // a longer list (a barrier, a Sync, a graph's run that MayDonateList
  // let through) is taken in and the engine driven on
  // this thread until it is empty, `list`'s instructions running here
  // (Engine::set_donor).
  std::optional<absl::Status> Donate(InstructionList* list, Backpressure backpressure);
  class DonorLease;
  // ReadIfFinal, holding the lease: drives up to kReadDriveAtMost received
  // instructions through at most kReadMaxPasses passes until no write of
  // `blob` is unretired; true if its bytes and error are then final.
  bool DriveUntilFinal(BlobObject& blob) ABSL_EXCLUSIVE_LOCKS_REQUIRED(engine_mu_);
  struct DumpRequest;
  void ServeDumpRequests();  // scheduler thread
  bool SchedulePass();
  // With the engine lock: retires what has finished (RetirePass until
  // nothing moves), then, for IdleAfterRetire, true if nothing received is
  // unretired.
  void RetireAllFinished() ABSL_EXCLUSIVE_LOCKS_REQUIRED(engine_mu_);
  bool IdleAfterRetire() ABSL_EXCLUSIVE_LOCKS_REQUIRED(engine_mu_);
  // DonorLease: takes engine_mu_, waiting up to `wait_for_pass_ns` for a
  // scheduler pass to end, never for another donor (donor_active_). True if
  // taken.
  bool TryLockEngineForDonor(int64_t wait_for_pass_ns)
      ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true, engine_mu_);
  // The engine's driver: Engine::RetireOnly (retires what has finished;
  // takes nothing in, runs nothing), then wakes back-pressure waiters if
  // that drained the VM enough.
  bool RetirePass();

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

  // Automatic donation takes instructions with operand_bytes below this:
  // VmOptions::donate_max_bytes + 1 (clamped to operand_bytes' range), 0
  // when it is off. Off with hang detection (hang_timeout_ms): a custom
  // kernel that blocks despite small_runs_inline would block the caller
  // inside its op call, where no timeout can report it.
  const uint32_t donate_below_ =
      options_.donate_max_bytes <= 0 || options_.hang_timeout_ms > 0
          ? 0
          : static_cast<uint32_t>(std::min<int64_t>(options_.donate_max_bytes, UINT32_MAX - 1) + 1);
  // VmOptions::run_ahead_max_bytes; 0 when off, in the synchronous mode, or
  // with automatic donation off (the bound is there to let donation resume).
  const int64_t run_ahead_max_ =
      options_.synchronous || donate_below_ == 0 ? 0 : options_.run_ahead_max_bytes;
  // VmOptions::handoff_min_gap_us in ns; 0: large ops always handed off.
  const int64_t handoff_min_gap_ns_ = options_.handoff_min_gap_us * 1000;
  InstructionList incoming_;  // the engine's driver only
  // Who drives the engine: the scheduler thread around its passes, a user
  // thread in the synchronous mode or donating (Donate, ReadIfFinal).
  base::Mutex engine_mu_;
  // True while a user thread drives the engine in Donate (it may be
  // blocked in a collective): other callers then do not wait for the lock.
  std::atomic<bool> donor_active_{false};

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
