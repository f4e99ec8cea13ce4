// CudaStreamPolicy: one CUDA stream of the VM (a compute stream, or the
// device's H2D or D2H copy stream).
//
// Threads. CUDA streams run on the scheduler thread (OnSchedulerThread()):
// Run() only *launches* work (kernels, async copies, event records), so the
// scheduler never blocks on the device, and "dispatched" means "launched".
// Kernels registered for CUDA must therefore only enqueue work on
// ctx.cuda_stream(), never synchronise. One deliberate exception: the index
// ops' run-time index check (kernels/cuda/index_check.h) waits for its own
// stream, since its error must be known before dependents are launched.
//
// Done. Each Run() takes the next launch sequence number of the stream. An
// instruction is done (and released, in stream order) once the device has
// completed its work: the policy records an event lazily, when the scheduler
// asks about an instruction no recorded event covers yet, so a burst of
// launches costs one event. Because release means completion, memory release,
// CPU successors and Sync() need no special cases.
//
// Cross-stream order. An edge between two CUDA streams is satisfied when its
// source is dispatched (OrdersOnDevice); the destination's Run() makes its
// stream wait, on the device, for an event covering the source
// (cudaStreamWaitEvent): no host wait. Edges with a CPU end wait for
// completion as usual.
//
// Host access. The runtime's AccessBlob instructions (Item, ToVector, Wait,
// FromVector) on a CUDA stream go through a pinned staging buffer; a read's
// callback (a brief memcpy) runs on the scheduler thread once the copy
// completed; a write (FromVector) overwrites the whole staging block before
// the upload. A user's AccessBlobByCallback never comes here: the builder
// stages it through a CPU tensor (copies on the copy streams, the callback on
// a CPU stream's thread), so a blocking callback stalls no CUDA stream.
//
// Errors. After a device fault every event query fails: the work counts as
// finished (nothing may hang) but every later host delivery of the stream
// gets the error, never stale staging bytes (NoteDeviceError).
//
// Frees. While Run() executes, device memory freed on this thread is freed
// on *this* stream (ScopedFreeStream), the stream that made the device waits
// for the blob's readers on other streams, whichever stream allocated it.
//
// Completion wake-up: an EventPoller thread notifies the scheduler when an
// event it waits for completes (the scheduler itself never spins on the GPU).
#ifndef EAGERVM_DEVICE_CUDA_CUDA_STREAM_POLICY_H_
#define EAGERVM_DEVICE_CUDA_CUDA_STREAM_POLICY_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "device/cuda/cuda_handles.h"
#include "device/cuda/device_memory.h"
#include "device/cuda/event_pool.h"
#include "device/cuda/pinned_host_pool.h"
#include "eagervm/stream.h"
#include "eagervm/virtual_machine.h"
#include "vm/error_record.h"
#include "vm/streams/stream_policy.h"

namespace eagervm::vm {
class AccessBlobPolicy;
class BlobObject;
class VmContext;
}  // namespace eagervm::vm

namespace eagervm::device::cuda {

class EventPoller;

enum class CudaStreamRole { kCompute, kHostToDevice, kDeviceToHost };

class CudaStreamPolicy final : public vm::StreamPolicy {
 public:
  // `poller` may be null (synchronous VM: every Run() waits for the device).
  // `context` (the owning VM's) outlives the policy.
  static absl::StatusOr<std::unique_ptr<CudaStreamPolicy>> Create(Stream stream,
                                                                  CudaStreamRole role,
                                                                  vm::VmContext* context,
                                                                  EventPoller* poller);
  ~CudaStreamPolicy() override;

  Device device() const override { return device_; }
  memory::Allocator* allocator() override { return allocator_.get(); }
  // The pinned staging pool: counted in GetStats() (as CPU memory: it also
  // holds the CPU tensors that D2H copies produce) and shrunk by EmptyCache().
  memory::Allocator* host_allocator() override { return pinned_.get(); }
  // The user thread's cudaHostAlloc of a staging block (PinnedHostPool::
  // Reserve), so that the scheduler thread finds it cached.
  void ReserveHostStaging(size_t bytes) override { pinned_->Reserve(bytes); }
  // Stops the (shared) event poller: nothing runs after shutdown.
  void Close() override;
  bool OnSchedulerThread() const override { return true; }
  // Between two CUDA streams, unless either instruction touches host memory
  // (host access, cross-device copies): host-side work is not in the device's
  // order, so those edges wait for completion on the host.
  bool OrdersOnDevice(const vm::Instruction& src, const vm::Instruction& dst) const override;
  void Run(vm::VmStream* stream, vm::Instruction* instr) override;
  bool QueryDone(const vm::Instruction* instr) const override;
  void* native_handle() const override { return stream_.get(); }
  // Copy streams: H2D (staged through pinned memory from pageable memory),
  // D2H (straight into fresh pinned memory, else through a deferred host
  // copy in stream order) and peer copies. Scheduler thread.
  absl::Status CopyAcrossDevices(vm::VmStream* stream, const vm::DeviceCopy& copy) override;
  // CUDA graphs: stream capture in thread-local mode (the scheduler polls
  // other streams' events meanwhile), instantiated for cudaGraphLaunch
  // (src/device/cuda/cuda_graph.cc).
  absl::StatusOr<std::unique_ptr<vm::DeviceGraph>> CaptureGraph(
      absl::FunctionRef<absl::Status()> body) override;
  absl::Status CopyOnDevice(void* dst, const void* src, size_t bytes) override;
  // From pageable memory: the driver has staged the bytes when it returns.
  absl::Status CopyFromHost(void* dst, const void* src, size_t bytes) override;
  // A read of a final storage on the reading thread (cuda_final_read.cc): a
  // D2H copy on a stream of the policy's own, through a small pinned block
  // (up to kFinalReadStagingBytes; larger reads copy straight into `dst`),
  // then cudaStreamSynchronize. Waits for nothing else queued on the device.
  absl::Status ReadFinalToHost(void* dst, const void* src, size_t bytes) override;
  // Makes ReadFinalToHost's stream and pinned block (Create(), for compute
  // streams): cudaHostAlloc may synchronise the whole device, so never on
  // the read's path. Best effort.
  void PrepareFinalReads();

  // --- for kernels and copies, on the scheduler thread ---
  cudaStream_t cuda_stream() const { return stream_.get(); }
  CudaStreamRole role() const { return role_; }
  PinnedHostPool* pinned() { return pinned_.get(); }
  // The stream's cuBLAS handle, bound to the stream: made by Create() for a
  // compute stream (on the user thread), else (or if that failed) on first use.
  absl::StatusOr<void*> cublas_handle();
  // Once the work launched so far on this stream has completed, copies
  // `bytes` from the pinned `staging` block to `host_dst` and frees the
  // block: D2H copies into pageable host memory, which cannot be async.
  // `dst_blob` (alive until this instruction is released) is the storage
  // `host_dst` lies in: it is poisoned instead if the device failed.
  void CopyToHostWhenDone(vm::BlobObject* dst_blob, void* host_dst, void* staging, size_t bytes);
  // Once the work launched so far on this stream has completed: if the
  // device failed by then, `dst_blob` (a fresh host tensor a DMA wrote
  // directly) gets the device's error instead of looking healthy with bytes
  // the DMA may never have written. `dst_blob` lives until this instruction
  // is released.
  void PoisonOnDeviceError(vm::BlobObject* dst_blob);

 private:
  // Work to run on the scheduler thread once an instruction completed.
  struct Deferred {
    // kPoisonOnError: nothing to do unless the device failed, then `blob`
    // gets the device's error (a DMA straight into a fresh host tensor).
    enum class Kind { kDeliver, kDeliverStaging, kCopyOut, kPoisonOnError } kind;
    uint64_t seq;                  // runs once the launch with this sequence number completed
    vm::AccessBlobPolicy* access;  // kDeliver*
    vm::BlobObject* blob;          // kCopyOut, kPoisonOnError: the destination's storage
    void* host;                    // delivered pointer, or kCopyOut destination
    void* staging;
    size_t bytes;
  };
  struct Recorded {
    cudaEvent_t event;
    uint64_t seq;  // covers every launch with a sequence number <= seq
  };

  CudaStreamPolicy(Stream stream, CudaStreamRole role, CudaStream cuda_stream, DeviceMemory* memory,
                   vm::VmContext* context, EventPoller* poller, bool synchronous);
  void WaitOnDevice(vm::Instruction* instr);
  void RunHostAccess(vm::Instruction* instr, vm::AccessBlobPolicy* access);
  // An event covering launch `seq`, or nullptr if `seq` already completed.
  cudaEvent_t EventCovering(uint64_t seq) const;
  void RecordEvent() const;
  void Poll() const;
  void FinishDeferred(uint64_t completed) const;
  void ReportError(const absl::Status& s) const;
  // A failure of the device itself (a failed event query or stream
  // synchronisation: a fault in earlier work, sticky for the context). It is
  // reported to Sync() and remembered: every later deferred delivery on this
  // stream gets it as its error instead of bytes the device never wrote.
  void NoteDeviceError(const absl::Status& s) const;
  // Waits on the host for everything launched so far (synchronous mode,
  // degraded streams) and marks it completed.
  void SynchronizeHost(const char* why) const;
  void DestroyCublas();

  const Device device_;
  const CudaStreamRole role_;
  CudaStream stream_;
  const bool synchronous_;
  vm::VmContext* context_;
  EventPoller* poller_;
  std::unique_ptr<CudaStreamAllocator> allocator_;
  std::unique_ptr<PinnedHostPool> pinned_;
  void* cublas_ = nullptr;
  // A fixed cuBLAS workspace: cuBLAS then allocates nothing while a CUDA
  // graph is captured.
  void* cublas_workspace_ = nullptr;

  // Written by the scheduler thread only (mutable: QueryDone is const in the
  // interface but advances the completion state). The two sequence numbers
  // are atomics because pinned_ also reads them, on whichever thread frees or
  // allocates pinned memory (PinnedHostPool tags a freed block with
  // launched_seq_ and reuses it once completed_seq_ has passed the tag). The
  // other fields are touched by the scheduler thread only.
  std::atomic<uint64_t> launched_seq_{0};
  mutable std::atomic<uint64_t> completed_seq_{0};
  mutable uint64_t recorded_seq_ = 0;
  mutable EventPool events_;
  mutable vm::ErrorPtr device_error_;  // set once: see NoteDeviceError
  mutable std::deque<Recorded> recorded_;
  mutable std::deque<Deferred> deferred_;
  mutable bool degraded_ = false;  // events failed: Run() synchronises instead

  // ReadFinalToHost's own stream and pinned block, made on first use.
  static constexpr size_t kFinalReadStagingBytes = 64 << 10;
  base::Mutex final_read_mu_;
  CudaStream final_read_stream_ ABSL_GUARDED_BY(final_read_mu_);
  void* final_read_staging_ ABSL_GUARDED_BY(final_read_mu_) = nullptr;
};

// The policy of a VM stream, or nullptr if it is not a CUDA stream.
CudaStreamPolicy* AsCudaPolicy(vm::StreamPolicy* policy);

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_CUDA_STREAM_POLICY_H_
