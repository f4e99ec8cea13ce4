// The CUDA backend's stream-policy factory (registered by src/runtime/; the
// CUDA kernels register from there too).
#include "device/cuda/cuda_backend.h"

#include "device/cuda/cuda_stream_policy.h"
#include "device/cuda/event_poller.h"
#include "vm/policies/device_copy_policy.h"
#include "vm/vm_context.h"

namespace eagervm::device::cuda {
namespace {

// One poller per process: it wakes the scheduler of the VM that created the
// first CUDA stream (the process has one VM). Leaked, like the VM: it must
// outlive every stream.
EventPoller* Poller(vm::VmContext& context) {
  static EventPoller* poller =
      new EventPoller(context.scheduler_notifier(), context.options().spin_us * 1000);
  return poller;
}

}  // namespace

absl::StatusOr<std::unique_ptr<vm::StreamPolicy>> MakeCudaStreamPolicy(Stream stream,
                                                                       vm::VmContext& context) {
  const VmOptions& options = context.options();
  CudaStreamRole role = CudaStreamRole::kCompute;
  if (stream.index() == vm::kHostToDeviceStreamIndex) role = CudaStreamRole::kHostToDevice;
  if (stream.index() == vm::kDeviceToHostStreamIndex) role = CudaStreamRole::kDeviceToHost;
  EventPoller* poller = options.synchronous ? nullptr : Poller(context);
  absl::StatusOr<std::unique_ptr<CudaStreamPolicy>> p =
      CudaStreamPolicy::Create(stream, role, &context, poller);
  if (!p.ok()) return p.status();
  return std::unique_ptr<vm::StreamPolicy>(std::move(p).value());
}

}  // namespace eagervm::device::cuda
