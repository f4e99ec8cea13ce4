// StreamPolicy: the per-device backend of a stream. CPU and CUDA implement it;
// the engine only talks to this interface.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_STREAMS_STREAM_POLICY_H_
#define EAGERVM_VM_STREAMS_STREAM_POLICY_H_

#include <cstddef>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eagervm/device.h"
#include "memory/allocator.h"

namespace eagervm::vm {

class Instruction;
class VmStream;
struct DeviceCopy;

// Device work recorded once and replayed as one launch (CUDA graphs).
class DeviceGraph {
 public:
  virtual ~DeviceGraph() = default;
  // The stream's thread, inside Run(): enqueues the recorded work on the
  // stream it was recorded on.
  virtual absl::Status Launch() = 0;
};

class StreamPolicy {
 public:
  virtual ~StreamPolicy() = default;
  virtual Device device() const = 0;
  virtual memory::Allocator* allocator() = 0;
  // Host memory the stream caches for its own use (CUDA: the pinned staging
  // pool), or nullptr. GetStats() counts it and EmptyCache() shrinks it.
  // Any thread; lives as long as the policy.
  virtual memory::Allocator* host_allocator() { return nullptr; }
  // The submitting thread, before it queues an instruction of this stream
  // that will stage `bytes` through host memory (a host read or write of a
  // device tensor, a copy between host and device): makes the slow system
  // allocation (CUDA: cudaHostAlloc, ~ms) happen here, not on the thread that
  // runs the stream. Best effort: the stream still allocates if the block is
  // gone by then. Any thread; may block for the allocation.
  virtual void ReserveHostStaging(size_t bytes) {}
  // Shutdown, once the scheduler and the workers have stopped (nothing runs
  // on the stream any more): stops threads of the policy's own (CUDA: the
  // event poller), so none is left running into the runtime's unloading at
  // exit. The shutting-down thread; may block briefly to join.
  virtual void Close() {}
  // True if instructions run inline on the scheduler thread at dispatch.
  virtual bool OnSchedulerThread() const = 0;
  // Runs the instruction's compute on the stream's thread and marks it done
  // (for asynchronous devices: launched, with an event recorded where the host
  // must observe completion).
  virtual void Run(VmStream* stream, Instruction* instr) = 0;
  // Scheduler thread: is the instruction finished as far as its successors on
  // other streams and the release of its memory are concerned?
  virtual bool QueryDone(const Instruction* instr) const = 0;
  // True if Run(stream, instr) is exactly instr->policy()->Compute(stream)
  // followed by instr->MarkDone() (a host stream): the engine then computes
  // what it runs inline itself, and retires it without asking QueryDone().
  virtual bool RunIsCompute() const { return false; }
  virtual void* native_handle() const { return nullptr; }
  // The stream's thread, inside Run(): copies `copy` between this device and
  // another (DeviceCopyPolicy), allocating the destination if needed. Only
  // the copy streams of devices with their own memory implement it.
  virtual absl::Status CopyAcrossDevices(VmStream* stream, const DeviceCopy& copy) {
    return absl::InternalError("a copy between devices ran on a stream that cannot copy");
  }
  // True if this stream's device can order `dst` (one of its instructions)
  // after `src` (of another stream) by itself, without the host waiting
  // (CUDA: cudaStreamWaitEvent). The engine then satisfies the edge when
  // `src` is *dispatched* (as within one stream) and records it in
  // dst's Instruction::device_waits, which Run() must honour. Only sound when
  // both streams run on the scheduler thread, so that dispatched means
  // launched, and when neither instruction touches host memory outside the
  // device's order.
  virtual bool OrdersOnDevice(const Instruction& src, const Instruction& dst) const {
    return false;
  }

  // Device graphs (graph mode's replay), for backends that have them. The
  // stream's thread, inside Run(): records what `body` enqueues on this
  // stream without running it. On an error nothing was recorded and
  // nothing ran (the caller runs the work normally).
  virtual absl::StatusOr<std::unique_ptr<DeviceGraph>> CaptureGraph(
      absl::FunctionRef<absl::Status()> body) {
    return absl::UnimplementedError("this stream cannot record device graphs");
  }
  // Enqueues a copy between two buffers of this device on the stream.
  virtual absl::Status CopyOnDevice(void* dst, const void* src, size_t bytes) {
    return absl::UnimplementedError("this stream cannot copy on its device");
  }
  // The stream's thread, inside Run() (graph mode's host-write nodes: a
  // FromVector captured for this device): enqueues a copy of `bytes` host
  // bytes at `src` into `dst` (this device's memory). `src` may be freed as
  // soon as this returns.
  virtual absl::Status CopyFromHost(void* dst, const void* src, size_t bytes) {
    return absl::UnimplementedError("this stream cannot copy host bytes to its device");
  }
  // A host read of a storage of this device whose every write has retired
  // (completed on the device): copies `bytes` at `src` (device memory) to
  // host `dst` and returns once they are there (a synchronous copy of its
  // own, which waits for no queued work). The reading user thread, holding
  // the engine lock (VmImpl::ReadIfFinal), outside any capture; blocks for
  // the copy (microseconds). `dst` null or `bytes` 0: a Wait(), OK unless
  // the device has failed. An error of the device (a fault in any earlier
  // work) is returned, never bytes. Unimplemented: the queued path.
  virtual absl::Status ReadFinalToHost(void* dst, const void* src, size_t bytes) {
    return absl::UnimplementedError("this stream cannot read its device's memory directly");
  }
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAMS_STREAM_POLICY_H_
