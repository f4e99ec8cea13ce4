#include "device/cuda/cuda_stream_policy.h"

#include <cstring>
#include <typeinfo>

#include "base/str_cat.h"
#include "device/cuda/cuda_status.h"
#include "device/cuda/event_poller.h"
#include "device/cuda/scoped_device.h"
#include "vm/blob_object.h"
#include "vm/engine/instruction.h"
#include "vm/policies/access_blob_policy.h"
#include "vm/policies/release_tensor_policy.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::device::cuda {
namespace {
bool TouchesHost(const vm::Instruction& i) { return i.policy()->TouchesHostMemory(); }
}  // namespace

bool CudaStreamPolicy::OrdersOnDevice(const vm::Instruction& src,
                                      const vm::Instruction& dst) const {
  return AsCudaPolicy(src.stream()->policy()) != nullptr && !TouchesHost(src) && !TouchesHost(dst);
}

CudaStreamPolicy* AsCudaPolicy(vm::StreamPolicy* policy) {
  if (policy == nullptr || typeid(*policy) != typeid(CudaStreamPolicy)) return nullptr;
  return static_cast<CudaStreamPolicy*>(policy);
}

absl::StatusOr<std::unique_ptr<CudaStreamPolicy>> CudaStreamPolicy::Create(Stream stream,
                                                                           CudaStreamRole role,
                                                                           vm::VmContext* context,
                                                                           EventPoller* poller) {
  const VmOptions& options = context->options();
  const int dev = stream.device().index();
  // Runs on the user thread that first submitted to the stream: the stream
  // is created on its device, and the user's current device is restored.
  ScopedDevice on(dev);
  if (!on.status().ok()) return on.status();
  absl::StatusOr<DeviceMemory*> memory = DeviceMemory::Get(dev, options.cuda_memory_limit);
  if (!memory.ok()) return memory.status();
  absl::StatusOr<CudaStream> cs = CudaStream::Create();
  if (!cs.ok()) return cs.status();
  std::unique_ptr<CudaStreamPolicy> policy(
      new CudaStreamPolicy(stream, role, std::move(cs).value(), *memory, context, poller,
                           options.synchronous || poller == nullptr));
  if (role == CudaStreamRole::kCompute) {
    // cuBLAS's handle and workspace now, on this user thread: the first
    // cublasCreate of a process loads cuBLAS (tens to hundreds of ms), which
    // on the scheduler thread (the first MatMul) would stall every stream.
    // A failure here is not the stream's: the first MatMul retries and
    // reports it.
    (void)policy->cublas_handle();
    (void)cudaGetLastError();
    policy->PrepareFinalReads();
  }
  return policy;
}

CudaStreamPolicy::CudaStreamPolicy(Stream stream, CudaStreamRole role, CudaStream cuda_stream,
                                   DeviceMemory* memory, vm::VmContext* context,
                                   EventPoller* poller, bool synchronous)
    : device_(stream.device()),
      role_(role),
      stream_(std::move(cuda_stream)),
      synchronous_(synchronous),
      context_(context),
      poller_(poller),
      allocator_(std::make_unique<CudaStreamAllocator>(memory, stream_.get())),
      pinned_(std::make_unique<PinnedHostPool>(&launched_seq_, &completed_seq_)),
      events_(stream.device().index()) {}

void CudaStreamPolicy::ReportError(const absl::Status& s) const {
  // An error of the device itself (a fault in an earlier kernel, a failed
  // event) belongs to no one instruction: Sync() reports it.
  context_->RecordError(std::make_shared<vm::ErrorRecord>(
      absl::Status(s.code(), base::Cat(device_.ToString(), ": ", s.message()))));
}

void CudaStreamPolicy::NoteDeviceError(const absl::Status& s) const {
  ReportError(s);
  if (device_error_ == nullptr) {
    // Its own record (not the one Sync() reports): every delivery reports it.
    device_error_ = std::make_shared<vm::ErrorRecord>(
        absl::Status(s.code(), base::Cat(device_.ToString(), ": ", s.message())));
  }
}

void CudaStreamPolicy::SynchronizeHost(const char* why) const {
  cudaError_t e = cudaStreamSynchronize(stream_.get());
  if (e != cudaSuccess) NoteDeviceError(CudaStatus(e, why));
  completed_seq_.store(launched_seq_.load(std::memory_order_relaxed), std::memory_order_release);
}

void CudaStreamPolicy::Run(vm::VmStream* stream, vm::Instruction* instr) {
  // A failed non-launch call of an earlier instruction (already that
  // instruction's status) may have left this thread's CUDA error set; the
  // launchers read it back with cudaGetLastError(), so clear it first. A
  // sticky device error survives this and keeps failing every call.
  (void)cudaGetLastError();
  PrepareVmOwnedCudaThread();  // the scheduler thread: relaxed capture mode, once
  // The stream's device for the launches, and the thread's own device back
  // afterwards: Run() is on the scheduler thread, but on the submitting user
  // thread in synchronous mode. (One cudaGetDevice when it is current.)
  ScopedDevice on(device_.index());
  if (!on.status().ok()) ReportError(on.status());
  ScopedFreeStream free_here(device_.index(), stream_.get());
  WaitOnDevice(instr);
  instr->policy_word = launched_seq_.fetch_add(1, std::memory_order_acq_rel) + 1;
  vm::InstructionPolicy* p = instr->policy();
  if (typeid(*p) == typeid(vm::AccessBlobPolicy)) {
    RunHostAccess(instr, static_cast<vm::AccessBlobPolicy*>(p));
  } else if (typeid(*p) == typeid(vm::ReleaseTensorPolicy) &&
             static_cast<vm::ReleaseTensorPolicy*>(p)->runs_user_deleter()) {
    // A user's memory (FromDLPack) goes back to its owner, who may reuse it at
    // once: the kernels this stream (and, through WaitOnDevice, other streams)
    // queued on it must be done first. The builder sends these releases to a
    // CPU stream (vm/intake/eager_builder.cc, ReleaseBlob), whose edges wait for
    // completion and whose worker runs the deleter; this blocking fallback
    // runs only if that CPU stream could not be had.
    cudaError_t e = cudaStreamSynchronize(stream_.get());
    if (e != cudaSuccess) NoteDeviceError(CudaStatus(e, "cudaStreamSynchronize"));
    p->Compute(stream);
  } else {
    p->Compute(stream);  // kernels enqueue on native_handle(); failures poison outputs
  }
  if (synchronous_ || degraded_) SynchronizeHost("cudaStreamSynchronize");
}

void CudaStreamPolicy::WaitOnDevice(vm::Instruction* instr) {
  for (const vm::InstrRef& ref : instr->device_waits) {
    if (!ref.alive()) continue;  // released, hence completed on its device
    CudaStreamPolicy* src = AsCudaPolicy(ref.instr->stream()->policy());
    if (src == nullptr || src == this) continue;
    cudaEvent_t e = src->EventCovering(ref.instr->policy_word);
    if (e == nullptr) continue;
    cudaError_t err = cudaStreamWaitEvent(stream_.get(), e, 0);
    if (err != cudaSuccess) {
      // Without the device-side wait the order is not guaranteed: fall back
      // to waiting on the host (rare; this is a failing device anyway).
      ReportError(CudaStatus(err, "cudaStreamWaitEvent"));
      (void)cudaEventSynchronize(e);
    }
  }
  instr->device_waits.clear();
}

cudaEvent_t CudaStreamPolicy::EventCovering(uint64_t seq) const {
  if (seq <= completed_seq_.load(std::memory_order_relaxed)) return nullptr;
  if (recorded_seq_ < seq) RecordEvent();
  for (const Recorded& r : recorded_) {
    if (r.seq >= seq) return r.event;
  }
  return nullptr;  // RecordEvent() degraded to a synchronisation: completed
}

void CudaStreamPolicy::RecordEvent() const {
  // Synchronous and degraded streams need no events: Run() waits for the
  // device after each launch, so everything launched is completed by the
  // time anyone asks (an event here would never be polled: a leak per host
  // access).
  if (synchronous_ || degraded_) return;
  const uint64_t seq = launched_seq_.load(std::memory_order_relaxed);
  if (recorded_seq_ >= seq) return;
  absl::StatusOr<cudaEvent_t> e = events_.Get();
  cudaError_t err = e.ok() ? cudaEventRecord(*e, stream_.get()) : cudaErrorUnknown;
  if (!e.ok() || err != cudaSuccess) {
    ReportError(e.ok() ? CudaStatus(err, "cudaEventRecord") : e.status());
    if (e.ok()) events_.Put(*e);
    // Cannot track completion with events: wait on the host instead, now and
    // for every later launch, so nothing waits forever. The events recorded
    // so far are complete after the wait: back to the pool.
    degraded_ = true;
    SynchronizeHost("cudaStreamSynchronize (events failed)");
    for (const Recorded& r : recorded_) events_.Put(r.event);
    recorded_.clear();
    recorded_seq_ = seq;
    return;
  }
  recorded_.push_back(Recorded{*e, seq});
  recorded_seq_ = seq;
  if (poller_ != nullptr) poller_->Watch(*e);
}

void CudaStreamPolicy::Poll() const {
  while (!recorded_.empty()) {
    const Recorded& r = recorded_.front();
    cudaError_t err = cudaEventQuery(r.event);
    if (err == cudaErrorNotReady) break;
    if (err != cudaSuccess) {
      // A device fault (sticky) or the runtime unloading at exit: count the
      // work as finished so nothing hangs, and report the error.
      NoteDeviceError(CudaStatus(err, "cudaEventQuery"));
    }
    completed_seq_.store(r.seq, std::memory_order_release);
    events_.Put(r.event);
    recorded_.pop_front();
  }
}

bool CudaStreamPolicy::QueryDone(const vm::Instruction* instr) const {
  const uint64_t seq = instr->policy_word;
  if (seq > completed_seq_.load(std::memory_order_relaxed)) {
    Poll();
    if (seq > completed_seq_.load(std::memory_order_relaxed)) {
      // Not finished: make sure an event covers it, so the poller wakes the
      // scheduler when it is.
      if (recorded_seq_ < seq) RecordEvent();
      if (seq > completed_seq_.load(std::memory_order_relaxed)) return false;
    }
  }
  FinishDeferred(seq);
  pinned_->Reclaim(seq);
  return true;
}

void CudaStreamPolicy::FinishDeferred(uint64_t completed) const {
  while (!deferred_.empty() && deferred_.front().seq <= completed) {
    Deferred d = deferred_.front();
    deferred_.pop_front();
    if (device_error_ != nullptr) {
      // The device failed: the copies this delivery depends on may never
      // have run. Hand over the error, never the (stale) bytes.
      switch (d.kind) {
        case Deferred::Kind::kDeliver:
          d.access->Deliver(device_error_, nullptr, 0);
          break;
        case Deferred::Kind::kDeliverStaging:
          d.access->Deliver(device_error_, nullptr, 0);
          pinned_->Deallocate(d.staging, d.bytes);
          break;
        case Deferred::Kind::kCopyOut:
          d.blob->set_error(device_error_);
          pinned_->Deallocate(d.staging, d.bytes);
          break;
        case Deferred::Kind::kPoisonOnError:
          d.blob->set_error(device_error_);
          break;
      }
      continue;
    }
    switch (d.kind) {
      case Deferred::Kind::kDeliver:
        d.access->Deliver(nullptr, d.host, d.bytes);
        break;
      case Deferred::Kind::kDeliverStaging:
        d.access->Deliver(nullptr, d.staging, d.bytes);
        pinned_->Deallocate(d.staging, d.bytes);
        break;
      case Deferred::Kind::kCopyOut:
        if (d.bytes > 0) std::memcpy(d.host, d.staging, d.bytes);
        pinned_->Deallocate(d.staging, d.bytes);
        break;
      case Deferred::Kind::kPoisonOnError:
        break;
    }
  }
}

void CudaStreamPolicy::CopyToHostWhenDone(vm::BlobObject* dst_blob, void* host_dst, void* staging,
                                          size_t bytes) {
  deferred_.push_back(Deferred{Deferred::Kind::kCopyOut,
                               launched_seq_.load(std::memory_order_relaxed), nullptr, dst_blob,
                               host_dst, staging, bytes});
  RecordEvent();
}

void CudaStreamPolicy::PoisonOnDeviceError(vm::BlobObject* dst_blob) {
  // No event of its own: the instruction's own completion query (QueryDone
  // of this launch) runs FinishDeferred before anyone can read `dst_blob`.
  deferred_.push_back(Deferred{Deferred::Kind::kPoisonOnError,
                               launched_seq_.load(std::memory_order_relaxed), nullptr, dst_blob,
                               nullptr, nullptr, 0});
}

void CudaStreamPolicy::Close() {
  if (poller_ != nullptr) poller_->Stop();
}

CudaStreamPolicy::~CudaStreamPolicy() {
  // Streams live as long as the VM (the whole process); this runs only for a
  // policy that failed half way, or at exit. Errors are irrelevant here.
  (void)cudaStreamSynchronize(stream_.get());
  DestroyCublas();
}

}  // namespace eagervm::device::cuda
