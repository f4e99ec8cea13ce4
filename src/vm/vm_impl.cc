#include "vm/vm_impl.h"

#include <pthread.h>

#include "base/str_cat.h"
#include "base/sync_waiter.h"
#include "base/thread_role.h"
#include "memory/memory_stats.h"
#include "vm/instruction_pool.h"
#include "vm/physical_run.h"
#include "vm/process_vm.h"
#include "vm/trace_hooks.h"

namespace eagervm::vm {

VmImpl::VmImpl(VmOptions options)
    : options_(std::move(options)),
      cpu_budget_(std::make_shared<memory::DeviceMemoryBudget>(Device::Cpu(),
                                                               options_.cpu_memory_limit)) {
  InstallBackends(backends_);  // src/runtime/: the CPU and CUDA backends
  if (!options_.synchronous) {
    scheduler_ = std::thread([this] { SchedulerLoop(); });
  }
}

VmImpl::~VmImpl() { (void)Shutdown(); }

absl::StatusOr<VmStream*> VmImpl::GetStream(Stream s) {
  const Device d = s.device();
  const int index = s.index();
  std::atomic<VmStream*>* slot = nullptr;
  if (d.is_cpu()) {
    if (index < 0 || index >= options_.cpu_streams) {
      return absl::InvalidArgumentError(base::Cat("stream index ", index, " on cpu is out of range: ",
                                                     "VmOptions::cpu_streams is ", options_.cpu_streams));
    }
    slot = &cpu_streams_[index];
  } else {
    const int count = backends_.DeviceCount(d.type());  // CudaDeviceCount(), 0 without CUDA
    if (d.index() < 0 || d.index() >= kMaxCudaDevices || d.index() >= count) {
      return absl::FailedPreconditionError(base::Cat(
          "device ", d.ToString(), " is not available: CudaDeviceCount() is ", count,
          count == 0 ? " (no CUDA driver or GPU, or eagervm was built without CUDA)" : ""));
    }
    if (index < 0 || index >= kMaxStreamsPerDevice) {
      return absl::InvalidArgumentError(base::Cat("stream index ", index, " on ", d.ToString(),
                                                     " is out of range [0, ", kMaxStreamsPerDevice, ")"));
    }
    slot = &cuda_streams_[d.index()][index];
  }
  if (VmStream* existing = slot->load(std::memory_order_acquire)) return existing;

  base::MutexLock lock(&streams_mu_);
  if (VmStream* existing = slot->load(std::memory_order_acquire)) return existing;
  if (shut_down()) return absl::FailedPreconditionError("the eagervm VM has been shut down");
  const StreamPolicyFactory* factory = backends_.FindFactory(d.type());
  if (factory == nullptr) {
    return absl::FailedPreconditionError(
        base::Cat("device ", d.ToString(), " has no stream backend in this build"));
  }
  absl::StatusOr<std::unique_ptr<StreamPolicy>> made = (*factory)(s, *this);
  if (!made.ok()) return made.status();
  std::unique_ptr<StreamPolicy> policy = std::move(made).value();
  ThreadCtx* ctx = nullptr;
  if (!policy->OnSchedulerThread()) {
    thread_ctxs_.push_back(std::make_unique<ThreadCtx>(
        base::Cat("evm-", d.is_cpu() ? "cpu" : "cuda", index), &scheduler_notifier_,
        sync_spin_ns()));
    ctx = thread_ctxs_.back().get();
  }
  owned_streams_.push_back(std::make_unique<VmStream>(s, std::move(policy), ctx, this));
  VmStream* created = owned_streams_.back().get();
  slot->store(created, std::memory_order_release);
  return created;
}

absl::Status VmImpl::Receive(InstructionList* list, Backpressure backpressure) {
  if (list->empty()) return absl::OkStatus();
  SubmitSlice trace(list);
  if (backpressure == Backpressure::kWait && !options_.synchronous &&
      BackpressureCheckDue(list->size) &&
      !base::OnVmThread() && counters_.in_flight() >= options_.max_in_flight) {
    absl::Status s = WaitForBackpressure();
    if (!s.ok()) return s;
  }
  absl::Status s = AppendPending(list);
  if (!s.ok()) return s;
  if (options_.synchronous) DrainOnThisThread();
  return absl::OkStatus();
}

// Reading the in-flight count costs a cache miss per op (the scheduler writes
// `finished` all the time), so with a large limit each submitting thread
// checks once per kBackpressureStride instructions: it may overshoot the
// limit by that many, which a limit of thousands absorbs.
bool VmImpl::BackpressureCheckDue(size_t n) const {
  constexpr int64_t kBackpressureStride = 64;
  if (options_.max_in_flight < 64 * kBackpressureStride) return true;
  thread_local int64_t since_check = 0;
  since_check += static_cast<int64_t>(n);
  if (since_check < kBackpressureStride) return false;
  since_check = 0;
  return true;
}

absl::Status VmImpl::AppendPending(InstructionList* list) {
  const size_t n = list->size;
  for (Instruction* i = list->head; i != nullptr; i = i->next) i->PrepareForScheduler();
  bool accepted;
  bool was_empty = false;
  {
    base::MutexLock lock(&pending_mu_);
    accepted = accepting_;
    if (accepted) {
      // Pending only once accepted (instruction_state.h): the scheduler may
      // take them in as soon as the lock is released.
      for (Instruction* i = list->head; i != nullptr; i = i->next) {
        i->set_state(InstrState::kPending);
      }
      was_empty = pending_.empty();
      pending_.Splice(list);
      counters_.pending_depth.store(static_cast<int64_t>(pending_.size), std::memory_order_relaxed);
      VmCounters::Add<uint64_t>(counters_.received, n);  // under pending_mu_
    }
  }
  if (!accepted) {
    // Refused: nothing will ever run them. Still kBuilding, so they go back
    // to the pool as a discarded build does. Outside pending_mu_: destroying
    // a policy may drop the last reference to a storage, whose release
    // instruction comes back through Receive.
    while (!list->empty()) InstructionPool::Recycle(list->PopFront());
    return absl::FailedPreconditionError(
        "the eagervm VM has been shut down; no more work is accepted");
  }
  if (was_empty && !options_.synchronous) scheduler_notifier_.Notify();
  return absl::OkStatus();
}

absl::Status VmImpl::WaitForBackpressure() {
  VmCounters::Bump(counters_.backpressure_waits);
  const int64_t low = options_.max_in_flight / 2;
  base::MutexLock lock(&bp_mu_);
  bp_waiters_.fetch_add(1, std::memory_order_seq_cst);
  while (counters_.in_flight() > low && !shut_down()) bp_cv_.Wait(&bp_mu_);
  bp_waiters_.fetch_sub(1, std::memory_order_seq_cst);
  return absl::OkStatus();
}

bool VmImpl::SchedulePass() {
  PassTrace trace;
  {
    base::MutexLock lock(&pending_mu_);
    incoming_.Splice(&pending_);
    counters_.pending_depth.store(0, std::memory_order_relaxed);
  }
  // In flight peaks just before a pass takes new work in: `finished` only
  // grows during passes.
  if (!incoming_.empty()) counters_.NotePeak(counters_.in_flight());
  const int64_t taken_in = static_cast<int64_t>(incoming_.size);
  const bool progress = engine_.Schedule(&incoming_);
  trace.End(progress, taken_in, this);
  if (bp_waiters_.load(std::memory_order_seq_cst) > 0 &&
      counters_.in_flight() <= options_.max_in_flight / 2) {
    base::MutexLock lock(&bp_mu_);
    bp_cv_.NotifyAll();
  }
  return progress;
}

void VmImpl::SchedulerLoop() {
  base::SetCurrentThreadRole(base::ThreadRole::kScheduler);
  pthread_setname_np(pthread_self(), "evm-scheduler");
  for (;;) {
    bool parked = false;
    const bool open = scheduler_notifier_.Wait(sync_spin_ns(), &parked);
    if (parked) VmCounters::Bump(counters_.scheduler_wakeups);
    while (SchedulePass()) {
    }
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
  base::SyncWaiter waiter;
  s = PhysicalRun([&](Builder* b) { return b->AddBarrier([&waiter] { waiter.Signal(); }, "Barrier"); });
  if (!s.ok()) return s;
  waiter.Wait(sync_spin_ns());
  return absl::OkStatus();
}

absl::Status VmImpl::Sync() {
  absl::Status s = WaitAll();
  if (!s.ok()) return s;
  return TakeUnreportedErrors();
}

absl::Status VmImpl::TakeUnreportedErrors() {
  std::deque<ErrorPtr> errors;
  {
    base::MutexLock lock(&error_mu_);
    errors.swap(unreported_);
  }
  ErrorPtr first;
  int more = 0;
  for (const ErrorPtr& e : errors) {
    if (!e->MarkReported()) continue;
    if (first == nullptr) first = e; else ++more;
  }
  if (first == nullptr) return absl::OkStatus();
  if (more == 0) return first->status;
  return absl::Status(first->status.code(),
                      base::Cat(first->status.message(), " (and ", more,
                                   " more error(s) since the last sync)"));
}

void VmImpl::RecordError(const ErrorPtr& e) {
  VmCounters::Bump(counters_.failed);
  base::MutexLock lock(&error_mu_);
  unreported_.push_back(e);
}

void VmImpl::ForEachAllocator(const std::function<void(memory::Allocator*)>& fn) const {
  base::MutexLock lock(&streams_mu_);
  for (const auto& s : owned_streams_) fn(s->allocator());
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
  s.pending_depth = c.pending_depth.load(std::memory_order_relaxed);
  s.ready_depth = c.ready_depth.load(std::memory_order_relaxed);
  s.running_depth = c.running_depth.load(std::memory_order_relaxed);
  s.backpressure_waits = c.backpressure_waits.load(std::memory_order_relaxed);
  {
    base::MutexLock lock(&streams_mu_);
    for (const auto& t : thread_ctxs_) s.worker_wakeups += t->wakeups();
    std::vector<const memory::Allocator*> allocators;
    for (const auto& st : owned_streams_) allocators.push_back(st->allocator());
    s.memory = memory::StatsByDevice(allocators);
  }
  return s;
}

absl::Status VmImpl::Shutdown() {
  base::MutexLock shutdown_lock(&shutdown_mu_);
  if (shut_down()) return absl::OkStatus();
  absl::Status s = vm::CheckMayBlock("VirtualMachine::Shutdown()");
  if (!s.ok()) return s;
  // Drain everything received so far, then stop accepting.
  s = WaitAll();
  {
    base::MutexLock lock(&pending_mu_);
    accepting_ = false;
  }
  shut_down_.store(true, std::memory_order_release);
  if (scheduler_.joinable()) {
    scheduler_notifier_.Close();
    scheduler_.join();
  }
  {
    base::MutexLock lock(&bp_mu_);
    bp_cv_.NotifyAll();
  }
  {
    base::MutexLock lock(&streams_mu_);
    for (auto& t : thread_ctxs_) t->Close();
  }
  return s;
}

}  // namespace eagervm::vm
