#include "vm/lifecycle/vm_impl.h"

#include <pthread.h>

#include <cstring>
#include <sstream>
#include <thread>

#include "base/log.h"
#include "base/spin.h"
#include "base/str_cat.h"
#include "base/thread_cpu_clock.h"
#include "base/thread_role.h"
#include "profiler/tracer.h"
#include "vm/diagnostics/trace_hooks.h"
#include "vm/engine/instruction_pool.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/donate.h"
#include "vm/lifecycle/fork_guard.h"
#include "vm/lifecycle/reply_slot.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::vm {

VmImpl::VmImpl(VmOptions options)
    : options_(std::move(options)),
      fork_generation_(ForkGeneration()),
      cpu_budget_(
          std::make_shared<memory::DeviceMemoryBudget>(Device::Cpu(), options_.cpu_memory_limit)) {
  if (!options_.synchronous) {
    scheduler_ = std::thread([this] { SchedulerLoop(); });
  }
  if (base::LogEnabled(LogLevel::kDebug)) {
    std::ostringstream o;
    o << options_;
    EAGERVM_LOG(kDebug, "VM started (", options_.synchronous ? "synchronous" : "scheduler thread",
                "): ", o.str());
  }
}

VmImpl::~VmImpl() { (void)Shutdown(); }

// How long a donor inside a DonateScope waits for a scheduler pass to end
// (usually a few microseconds: a worker's completion woke it). Waiting that
// out keeps the caller on this path, where falling back would leave work in
// flight that makes the next call fall back too. Automatic donation does
// not wait: a pass in progress means the VM is busy.
constexpr int64_t kDonorWaitForPassNs = 50'000;

// The engine lock for a donating user thread, which plays the scheduler's
// role while it holds it; unlocks in its destructor. Drive() marks that
// this thread runs instructions (it may block in a collective): other
// donors then do not wait for the lock.
class VmImpl::DonorLease {
 public:
  DonorLease(VmImpl* vm, int64_t wait_for_pass_ns) ABSL_NO_THREAD_SAFETY_ANALYSIS
      : vm_(vm),
        held_(vm->TryLockEngineForDonor(wait_for_pass_ns)) {
    if (held_) role_.emplace(base::ThreadRole::kScheduler);
  }
  ~DonorLease() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (driving_) vm_->donor_active_.store(false, std::memory_order_relaxed);
    role_.reset();
    if (held_) vm_->engine_mu_.Unlock();
  }
  DonorLease(const DonorLease&) = delete;
  DonorLease& operator=(const DonorLease&) = delete;

  bool held() const { return held_; }
  void Drive() {
    driving_ = true;
    vm_->donor_active_.store(true, std::memory_order_relaxed);
  }

 private:
  VmImpl* const vm_;
  const bool held_;
  bool driving_ = false;
  std::optional<base::ScopedThreadRole> role_;
};

constexpr int64_t kRunAheadWaitNs = 2'000'000;

void VmImpl::ThrottleRunAhead() {
  internal_donate::t_run_ahead = 0;
  if (base::OnVmThread()) return;
  VmCounters::Bump(counters_.run_ahead_waits);
  const uint64_t target = counters_.received.load(std::memory_order_acquire);
  const int64_t deadline = base::NowNanos() + kRunAheadWaitNs;
  while (counters_.finished.load(std::memory_order_acquire) < target &&
         base::NowNanos() < deadline) {
    std::this_thread::yield();
  }
  internal_donate::t_busy_skip = 0;
}

// Short: with other threads keeping the scheduler busy, its passes release
// what finished anyway, and a Sync should not spin long for it.
constexpr int64_t kSettleWaitForPassNs = 10'000;

bool VmImpl::MayDonateList(const InstructionList& list) {
  bool donatable = list.head != nullptr;
  uint64_t bytes = 0;
  for (const Instruction* i = list.head; i != nullptr && donatable; i = i->next) {
    donatable = i->donatable;
    bytes += i->operand_bytes;
  }
  return MayDonateBytes(donatable, static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX)),
                        nullptr);
}

bool VmImpl::MayDonateLarge(const Instruction* single) {
  if (donate_below_ == 0 || handoff_min_gap_ns_ == 0) return false;
  // No busy-skip (MayDonate's): a large op's kernel dwarfs reading the
  // in-flight count, and a skip left by a small op (a release just after a
  // read, before the read's instruction was released) would hand it off.
  if (counters_.in_flight() != 0) {  // busy: queued behind it, not a try
    const VmStream* last = internal_donate::t_handoff_stream;
    if (single != nullptr && last != nullptr && single->stream() != last) {
      internal_donate::t_large_backoff = 0;
      internal_donate::t_large_on_caller = 0;
    }
    return false;
  }
  internal_donate::t_run_ahead = 0;  // idle: nothing of this thread's is queued
  if (internal_donate::t_large_on_caller > 0) {
    --internal_donate::t_large_on_caller;
    return true;
  }
  internal_donate::t_handoff_at_ns = kHandoffClockDue;  // started once it is queued
  return false;
}

void VmImpl::StartHandoffClock(const Instruction* handed_off) {
  internal_donate::t_handoff_stream = handed_off != nullptr ? handed_off->stream() : nullptr;
  // CPU time, not wall time: on a machine with fewer cores than busy
  // threads, the handoff wakes threads that preempt this one, and the wall
  // clock would count that as work overlapped. Started after the handoff
  // itself: waking a parked scheduler costs its waker tens of microseconds
  // of CPU in a virtual machine (the IPI's exit).
  internal_donate::t_handoff_at_ns = std::max<int64_t>(base::ThreadCpuNanos(), 1);
}

// 127 large ops of >= 1 MiB take a few ms at least: a try that does not pay
// (a handoff, and the few ops queued behind it) costs a small part of that.
constexpr int32_t kMaxLargeOnCaller = 127;

void VmImpl::NoteHandoffGap(const Instruction* next) {
  const int64_t gap = base::ThreadCpuNanos() - internal_donate::t_handoff_at_ns;
  internal_donate::t_handoff_at_ns = 0;
  int32_t& backoff = internal_donate::t_large_backoff;
  const bool other_stream = next != nullptr && internal_donate::t_handoff_stream != nullptr &&
                            next->stream() != internal_donate::t_handoff_stream;
  if (other_stream || gap >= handoff_min_gap_ns_) {
    backoff = 0;  // it paid: keep handing them off
    return;
  }
  backoff = std::min(kMaxLargeOnCaller, 2 * backoff + 1);
  internal_donate::t_large_on_caller = backoff;
}

void VmImpl::SettleAfterWait() {
  internal_donate::t_busy_skip = 0;
  internal_donate::t_run_ahead = 0;
  if (options_.synchronous || base::OnVmThread() || counters_.in_flight() == 0) return;
  DonorLease lease(this, kSettleWaitForPassNs);
  if (!lease.held()) return;
  engine_mu_.AssertHeld();
  RetireAllFinished();
}

std::optional<absl::Status> VmImpl::DonateOne(Instruction* instr) {
  InstructionList list;
  list.PushBack(instr);
  std::optional<absl::Status> ran = Donate(&list, Backpressure::kWait);
  instr->next = nullptr;  // untouched when nullopt: queued by the caller
  return ran;
}

// The trade-off: while this thread blocks in a collective it holds the
// engine lock, so work that other threads submit meanwhile waits for the
// collective (as if it had arrived after it, which it did). Only taken when
// nothing else is in flight, so no running work is held up.
std::optional<absl::Status> VmImpl::Donate(InstructionList* list, Backpressure backpressure) {
  if (base::OnVmThread()) return std::nullopt;  // a kernel dropping a tensor
  const DonateMode mode = CurrentDonateMode();
  // A collective blocks here: only on request (collectives never block
  // otherwise), and not with hang detection on (it could not time out;
  // queued, the caller's later Wait times out instead).
  if (mode == DonateMode::kMayBlock &&
      (!options_.collectives_on_caller || options_.hang_timeout_ms > 0)) {
    return std::nullopt;
  }
  for (const Instruction* i = list->head; i != nullptr; i = i->next) {
    if (i->stream() != nullptr && !i->stream()->policy()->device().is_cpu()) return std::nullopt;
  }
  DonorLease lease(this, mode == DonateMode::kNone ? 0 : kDonorWaitForPassNs);
  if (!lease.held()) return std::nullopt;
  engine_mu_.AssertHeld();
  // (`received` may grow meanwhile: those are taken in below, after this
  // list, in arrival order.)
  if (!IdleAfterRetire()) return std::nullopt;  // busy: the caller queues it
  Instruction* only = list->size == 1 ? list->head : nullptr;
  if (only != nullptr && only->stream() != nullptr && !only->policy()->IsBarrier() &&
      submissions_.AcceptForDriver(*list)) {
    // One instruction on an idle VM (an op, a release, a collective, a
    // read): nothing to link it to or order it behind, so it runs and is
    // retired here without the pending stack or a scheduling pass.
    SubmitSlice trace(list);
    *list = InstructionList();
    lease.Drive();
    VmCounters::Add<uint64_t>(counters_.donated, 1);
    engine_.RunAlone(only);
    return absl::OkStatus();
  }
  // Automatic donation of one instruction that could not run alone (not
  // accepted: back-pressure, shutdown) leaves it to the queue; an automatic
  // list (MayDonateList: a graph's run) is driven here as a scope's is.
  if (mode == DonateMode::kNone && list->size == 1) return std::nullopt;
  for (Instruction* i = list->head; i != nullptr; i = i->next) i->donated = true;
  VmCounters::Add<uint64_t>(counters_.donated, list->size);
  absl::Status s = submissions_.Append(list, backpressure, /*wake_scheduler=*/false);
  if (!s.ok()) return s;
  lease.Drive();
  engine_.set_donor(true);
  // Until everything taken in is retired; no idle pass at the end to
  // prove it: a list pushed after the last pass's intake found the pending
  // stack empty, so its submitter woke the scheduler.
  while (SchedulePass() && !engine_.Empty()) {
  }
  engine_.set_donor(false);
  return s;
}

void VmImpl::RetireAllFinished() {
  base::ScopedThreadRole role(base::ThreadRole::kScheduler);
  while (!engine_.Empty() && RetirePass()) {
  }
}

bool VmImpl::IdleAfterRetire() {
  // Retire what finished since the last pass: a Wait returns as soon as
  // its read has run, before the scheduler has retired it, so without
  // this the VM would look busy at the next call of a loop of
  // collective + Wait, and every later call would take the queued path.
  RetireAllFinished();
  // Under the lock nothing is mid-pass: in flight 0 means nothing pending,
  // nothing lively.
  return engine_.Empty() && counters_.in_flight() == 0;
}

// No write of the storage is unretired, and a retirement is ordered after its
// write's completion (the worker's completion, acquired by the pass that
// retired it, which held this lock): its bytes and error are final, and no
// instruction can write them while the lock is held. Every received
// instruction must be taken in first (pending_depth 0): a write received but
// not yet linked is not the storage's last writer yet. A write received
// after that check was submitted concurrently with this read, which may
// then come before it.
std::optional<absl::Status> VmImpl::ReadIfFinal(BlobObject& blob, size_t offset, void* dst,
                                                size_t bytes, bool* busy) {
  *busy = false;
  if (shut_down() || profiler::Enabled()) return std::nullopt;
  DonorLease lease(this, kDonorWaitForPassNs);
  if (!lease.held()) {
    *busy = true;
    return std::nullopt;
  }
  engine_mu_.AssertHeld();
  if (!DriveUntilFinal(blob)) {
    *busy = true;
    return std::nullopt;
  }
  if (shut_down() ||
      (blob.error() == nullptr && (!blob.allocated() || !blob.Written(offset, offset + bytes)))) {
    return std::nullopt;
  }
  std::optional<absl::Status> result;
  if (const ErrorPtr& e = blob.error(); e != nullptr) {
    e->MarkReported();
    result = e->status;
  } else if (blob.device().is_cpu()) {
    if (dst != nullptr && bytes > 0) {
      std::memcpy(dst, static_cast<const char*>(blob.data()) + offset, bytes);
    }
    result = absl::OkStatus();
  } else {
    // Device memory: the device's own synchronous copy (no bytes: a Wait(),
    // which still asks whether the device has failed). Unimplemented (or no
    // stream of the device yet): the queued read, which stages it.
    VmStream* stream = ForkGeneration() == fork_generation_
                           ? streams_.Find(Stream::Default(blob.device()))
                           : nullptr;
    if (stream == nullptr) return std::nullopt;
    absl::Status s = stream->policy()->ReadFinalToHost(
        dst, static_cast<const char*>(blob.data()) + offset, bytes);
    if (absl::IsUnimplemented(s)) return std::nullopt;
    result = std::move(s);
  }
  // The counts of the read instruction this stands for: received first, so
  // in flight (received - finished) never dips below zero. The others have
  // one writer, the engine's driver, which this thread is now.
  VmCounters::Bump(counters_.received);
  VmCounters::Add<uint64_t>(counters_.taken_in, 1);
  VmCounters::Add<uint64_t>(counters_.dispatched, 1);
  VmCounters::Add<uint64_t>(counters_.finished, 1);
  return result;
}

// A few instructions received but not taken in (an op, then its Item): this
// thread, which would wait for them anyway, runs the scheduler's passes
// itself (small kernels inline, as the scheduler would; others handed to
// their workers) rather than queue a read behind them. A deeper queue is
// left to the scheduler.
bool VmImpl::DriveUntilFinal(BlobObject& blob) {
  constexpr int64_t kReadDriveAtMost = 8;  // received, not taken in
  constexpr int kReadMaxPasses = 4;
  for (int pass = 0;; ++pass) {
    RetireAllFinished();
    const int64_t pending = counters_.pending_depth();
    if (pending == 0) return !engine_.HasUnretiredWriter(blob);
    if (pending > kReadDriveAtMost || pass == kReadMaxPasses || !SchedulePass()) return false;
  }
}

// Never waits behind another donor, which may be blocked in a collective
// for as long as its peers take.
bool VmImpl::TryLockEngineForDonor(int64_t wait_for_pass_ns) {
  if (engine_mu_.TryLock()) return true;
  if (wait_for_pass_ns <= 0) return false;
  const int64_t deadline = base::NowNanos() + wait_for_pass_ns;
  while (!donor_active_.load(std::memory_order_relaxed) && base::NowNanos() < deadline) {
    base::CpuRelax();
    if (engine_mu_.TryLock()) return true;
  }
  return false;
}

bool VmImpl::RetirePass() {
  const bool progress = engine_.RetireOnly();
  submissions_.WakeWaitersIfDrained();
  return progress;
}

bool VmImpl::SchedulePass() {
  PassTrace trace;
  submissions_.TakeAll(&incoming_);
  // In flight peaks just before a pass takes new work in: `finished` only
  // grows during passes.
  if (!incoming_.empty()) counters_.NotePeak(counters_.in_flight());
  const int64_t taken_in = static_cast<int64_t>(incoming_.size);
  const bool progress = engine_.Schedule(&incoming_);
  trace.End(progress, taken_in, this);
  submissions_.WakeWaitersIfDrained();
  return progress;
}

void VmImpl::SchedulerLoop() {
  base::SetCurrentThreadRole(base::ThreadRole::kScheduler);
  base::MarkVmOwnedThread();
  pthread_setname_np(pthread_self(), "evm-scheduler");
  for (;;) {
    bool parked = false;
    const bool open = scheduler_notifier_.Wait(sync_spin_ns(), &parked);
    if (parked) VmCounters::Bump(counters_.scheduler_wakeups);
    // A user thread may hold the lock for a read or a short drive of its
    // own (ReadIfFinal, Donate): waited out spinning, not asleep.
    base::SpinningMutexLock lock(&engine_mu_, sync_spin_ns());
    while (SchedulePass()) {
    }
    if (dump_requested_.load(std::memory_order_relaxed)) [[unlikely]]
      ServeDumpRequests();
    if (!open) {
      // Closed after the drain barrier: finish whatever is still lively.
      for (;;) {
        const bool progress = SchedulePass();
        if (!progress && engine_.Empty()) break;
        if (!progress) std::this_thread::yield();
      }
      return;
    }
  }
}

void VmImpl::DrainOnThisThread() {
  thread_local bool draining = false;
  if (draining) return;  // a kernel dropped a tensor: the running drain picks it up
  base::MutexLock lock(&engine_mu_);
  draining = true;
  {
    base::ScopedThreadRole role(base::ThreadRole::kScheduler);
    while (SchedulePass()) {
    }
  }
  draining = false;
}

absl::Status VmImpl::WaitAll() {
  absl::Status s = CheckMayBlock("Sync()");
  if (!s.ok()) return s;
  NoteCallAfterHandoff();  // a Sync right after a large op's handoff: nothing overlapped
  ReplySlotHolder holder(options_.hang_timeout_ms > 0);
  ReplySlot* h = holder.get();
  DonateScope donate(DonateMode::kShort);  // an idle VM: the barrier runs here
  s = PhysicalRun([&](Builder* b) {
    return b->AddBarrier(
        [h, keep = holder.keep()] {
          if (h->Claim()) h->Signal();
        },
        "Barrier");
  });
  if (!s.ok()) return s;
  s = h->Await(*this, "Sync()");
  if (s.ok()) SettleAfterWait();
  return s;
}

absl::Status VmImpl::Sync() {
  absl::Status s = WaitAll();
  if (!s.ok()) return s;
  return TakeUnreportedErrors();
}

void VmImpl::RecordError(const ErrorPtr& e) {
  VmCounters::Bump(counters_.failed);
  errors_.Record(e);
}

VmStats VmImpl::GetStats() const {
  VmStats s;
  const VmCounters& c = counters_;
  s.received = c.received.load(std::memory_order_relaxed);
  s.dispatched = c.dispatched.load(std::memory_order_relaxed);
  s.finished = c.finished.load(std::memory_order_relaxed);
  s.failed = c.failed.load(std::memory_order_relaxed);
  s.batched = c.batched.load(std::memory_order_relaxed);
  s.inlined = c.inlined.load(std::memory_order_relaxed);
  s.donated = c.donated.load(std::memory_order_relaxed);
  s.barriers = c.barriers.load(std::memory_order_relaxed);
  s.scheduler_wakeups = c.scheduler_wakeups.load(std::memory_order_relaxed);
  s.in_flight = c.in_flight();
  s.peak_in_flight = c.peak_in_flight.load(std::memory_order_relaxed);
  s.pending_depth = c.pending_depth();
  s.ready_depth = c.ready_depth.load(std::memory_order_relaxed);
  s.running_depth = c.running_depth.load(std::memory_order_relaxed);
  s.backpressure_waits = c.backpressure_waits.load(std::memory_order_relaxed);
  s.run_ahead_waits = c.run_ahead_waits.load(std::memory_order_relaxed);
  s.worker_wakeups = streams_.WorkerWakeups();
  s.memory = streams_.MemoryByDevice();
  s.instructions_allocated = InstructionPool::Allocated();
  return s;
}

absl::Status VmImpl::Shutdown() {
  base::MutexLock shutdown_lock(&shutdown_mu_);
  if (shut_down()) return absl::OkStatus();
  absl::Status s = CheckMayBlock("VirtualMachine::Shutdown()");
  if (!s.ok()) return s;
  // Drain everything received so far, then stop accepting.
  s = WaitAll();
  submissions_.Close();
  shut_down_.store(true, std::memory_order_release);
  if (scheduler_.joinable()) {
    scheduler_notifier_.Close();
    scheduler_.join();
  }
  submissions_.RecycleRefused();
  streams_.Close();
  drained_.store(true, std::memory_order_release);
  return s;
}

absl::Status VmImpl::ReadAfterShutdown(const BlobObject& blob, Device device, size_t offset,
                                       void* dst, size_t bytes, const char* what) const {
  if (!device.is_cpu()) {
    return absl::FailedPreconditionError(base::Cat(
        what, ": the eagervm VM has been shut down, and a tensor on ", device.ToString(),
        " cannot be read without it: copy it to the CPU (To(Device::Cpu())) before Shutdown()"));
  }
  if (const ErrorPtr& e = blob.error(); e != nullptr) {
    e->MarkReported();
    return e->status;
  }
  if (!blob.allocated() || !blob.Written(offset, offset + bytes)) {
    return absl::FailedPreconditionError(
        base::Cat(what,
                  ": the tensor was never written before the VM was shut down (or its storage "
                  "was released)"));
  }
  if (dst != nullptr && bytes > 0) {
    std::memcpy(dst, static_cast<const char*>(blob.data()) + offset, bytes);
  }
  return absl::OkStatus();
}

}  // namespace eagervm::vm
