#include "vm/lifecycle/vm_impl.h"

#include <pthread.h>

#include <cstring>
#include <sstream>

#include "base/log.h"
#include "base/spin.h"
#include "base/str_cat.h"
#include "base/thread_role.h"
#include "profiler/tracer.h"
#include "vm/diagnostics/trace_hooks.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/caller_runs.h"
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

// The trade-off: while this thread blocks in a collective it holds the
// engine lock, so work that other threads submit meanwhile waits for the
// collective (as if it had arrived after it, which it did). Only taken when
// nothing else is in flight, so no running work is held up.
std::optional<absl::Status> VmImpl::RunOnCaller(InstructionList* list, Backpressure backpressure) {
  if (base::OnVmThread()) return std::nullopt;  // a kernel dropping a tensor
  // A collective blocks here: only on request (collectives never block
  // otherwise), and not with hang detection on (it could not time out;
  // queued, the caller's later Wait times out instead).
  if (CurrentCallerRuns() == CallerRuns::kMayBlock &&
      (!options_.collectives_on_caller || options_.hang_timeout_ms > 0)) {
    return std::nullopt;
  }
  for (const Instruction* i = list->head; i != nullptr; i = i->next) {
    if (i->stream() != nullptr && !i->stream()->policy()->device().is_cpu()) return std::nullopt;
  }
  if (!LockEngineForCaller()) return std::nullopt;
  std::optional<absl::Status> result;
  {
    base::ScopedThreadRole role(base::ThreadRole::kScheduler);
    // (`received` may grow meanwhile: those are taken in below, after this
    // list, in arrival order.)
    Instruction* only = list->size == 1 ? list->head : nullptr;
    if (!IdleAfterRelease()) {
      // Busy: the queued path.
    } else if (only != nullptr && only->stream() != nullptr && !only->policy()->IsBarrier() &&
               submissions_.AcceptForDriver(*list)) {
      // One instruction on an idle VM (a collective, a read): nothing to
      // link it to or order it behind, so it runs and is released here
      // without the pending stack or a scheduling pass.
      SubmitSlice trace(list);
      *list = InstructionList();
      caller_drives_.store(true, std::memory_order_relaxed);
      engine_.RunAlone(only);
      caller_drives_.store(false, std::memory_order_relaxed);
      result = absl::OkStatus();
    } else {
      for (Instruction* i = list->head; i != nullptr; i = i->next) i->caller_runs = true;
      result = submissions_.Append(list, backpressure, /*wake_scheduler=*/false);
      if (result->ok()) {
        caller_drives_.store(true, std::memory_order_relaxed);
        engine_.set_caller_driving(true);
        // Until everything taken in is released; no idle pass at the end to
        // prove it: a list pushed after the last pass's intake found the
        // pending stack empty, so its submitter woke the scheduler.
        while (SchedulePass() && !engine_.Empty()) {
        }
        engine_.set_caller_driving(false);
        caller_drives_.store(false, std::memory_order_relaxed);
      }
    }
  }
  engine_mu_.Unlock();
  return result;
}

void VmImpl::ReleaseAllFinished() {
  base::ScopedThreadRole role(base::ThreadRole::kScheduler);
  while (!engine_.Empty() && ReleasePass()) {
  }
}

bool VmImpl::IdleAfterRelease() {
  // Release what finished since the last pass: a Wait returns as soon as
  // its read has run, before the scheduler has released it, so without
  // this the VM would look busy at the next call of a loop of
  // collective + Wait, and every later call would take the queued path.
  ReleaseAllFinished();
  // Under the lock nothing is mid-pass: in flight 0 means nothing pending,
  // nothing lively.
  return engine_.Empty() && counters_.in_flight() == 0;
}

// No write of the storage is unreleased, and a release is ordered after its
// write's completion (the worker's completion, acquired by the pass that
// released it, which held this lock): its bytes and error are final, and no
// instruction can write them while the lock is held. Every received
// instruction must be taken in first (pending_depth 0): a write received but
// not yet linked is not the storage's last writer yet. A write received
// after that check was submitted concurrently with this read, which may
// then come before it.
std::optional<absl::Status> VmImpl::ReadIfFinal(BlobObject& blob, size_t offset, void* dst,
                                                size_t bytes, bool* busy) {
  *busy = false;
  if (shut_down() || profiler::Enabled()) return std::nullopt;
  if (!LockEngineForCaller()) {
    *busy = true;
    return std::nullopt;
  }
  std::optional<absl::Status> result;
  {
    base::ScopedThreadRole role(base::ThreadRole::kScheduler);
    // A few instructions received but not taken in (an op, then its Item):
    // this thread, which would wait for them anyway, runs the scheduler's
    // passes itself (small kernels inline, as the scheduler would; others
    // handed to their workers) rather than queue a read behind them. A
    // deeper queue is left to the scheduler.
    constexpr int64_t kDriveAtMost = 8;
    constexpr int kMaxPasses = 4;
    bool final = false;
    for (int pass = 0;; ++pass) {
      ReleaseAllFinished();
      const int64_t pending = counters_.pending_depth();
      final = pending == 0 && !engine_.HasUnreleasedWriter(blob);
      if (final || pending == 0 || pending > kDriveAtMost || pass == kMaxPasses) break;
      if (!SchedulePass()) break;
    }
    *busy = !final;
    if (final && !shut_down() &&
        (blob.error() != nullptr || (blob.allocated() && blob.Written(offset, offset + bytes)))) {
      if (const ErrorPtr& e = blob.error(); e != nullptr) {
        e->MarkReported();
        result = e->status;
      } else {
        if (dst != nullptr && bytes > 0) {
          std::memcpy(dst, static_cast<const char*>(blob.data()) + offset, bytes);
        }
        result = absl::OkStatus();
      }
      // The counts of the read instruction this stands for: received first,
      // so in flight (received - finished) never dips below zero. The others
      // have one writer, the engine's driver, which this thread is now.
      VmCounters::Bump(counters_.received);
      VmCounters::Add<uint64_t>(counters_.taken_in, 1);
      VmCounters::Add<uint64_t>(counters_.dispatched, 1);
      VmCounters::Add<uint64_t>(counters_.finished, 1);
    }
  }
  engine_mu_.Unlock();
  return result;
}

// Usually the lock is the scheduler's, in a pass of a few microseconds (a
// worker's completion woke it): waiting that out keeps the caller on this
// path, where falling back would leave work in flight that makes the next
// call fall back too. Never waits behind another caller, which may be
// blocked in a collective for as long as its peers take.
bool VmImpl::LockEngineForCaller() {
  constexpr int64_t kWaitForPassNs = 50'000;
  if (engine_mu_.TryLock()) return true;
  const int64_t deadline = base::NowNanos() + kWaitForPassNs;
  while (!caller_drives_.load(std::memory_order_relaxed) && base::NowNanos() < deadline) {
    base::CpuRelax();
    if (engine_mu_.TryLock()) return true;
  }
  return false;
}

bool VmImpl::ReleasePass() {
  const bool progress = engine_.RetireOnly();
  submissions_.ReleaseWaitersIfDrained();
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
  submissions_.ReleaseWaitersIfDrained();
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
    // own (ReadIfFinal, RunOnCaller): waited out spinning, not asleep.
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
  ReplySlotHolder holder(options_.hang_timeout_ms > 0);
  ReplySlot* h = holder.get();
  CallerRunsScope caller_runs(CallerRuns::kShort);  // an idle VM: the barrier runs here
  s = PhysicalRun([&](Builder* b) {
    return b->AddBarrier(
        [h, keep = holder.keep()] {
          if (h->Claim()) h->Signal();
        },
        "Barrier");
  });
  if (!s.ok()) return s;
  return h->Await(*this, "Sync()");
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
  s.barriers = c.barriers.load(std::memory_order_relaxed);
  s.scheduler_wakeups = c.scheduler_wakeups.load(std::memory_order_relaxed);
  s.in_flight = c.in_flight();
  s.peak_in_flight = c.peak_in_flight.load(std::memory_order_relaxed);
  s.pending_depth = c.pending_depth();
  s.ready_depth = c.ready_depth.load(std::memory_order_relaxed);
  s.running_depth = c.running_depth.load(std::memory_order_relaxed);
  s.backpressure_waits = c.backpressure_waits.load(std::memory_order_relaxed);
  s.worker_wakeups = streams_.WorkerWakeups();
  s.memory = streams_.MemoryByDevice();
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
