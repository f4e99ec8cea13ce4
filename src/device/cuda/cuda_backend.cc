// Registration of the CUDA backend with the VM: the stream policy factory.
// Called explicitly from VmImpl's constructor (no static initialiser that a
// static link could drop); the CUDA kernels register from RegisterBuiltinOps.
#include <mutex>

#include "device/cuda/cuda_stream_policy.h"
#include "device/cuda/event_poller.h"
#include "eagervm/virtual_machine.h"
#include "vm/device_copy_policy.h"
#include "vm/process_vm.h"
#include "vm/vm_impl.h"

namespace eagervm::device::cuda {
namespace {

// One poller per process: it wakes the (single) VM's scheduler. Leaked, like
// the VM: it must outlive every stream.
EventPoller* Poller(const VmOptions& options) {
  static EventPoller* poller =
      new EventPoller(vm::ProcessVm().scheduler_notifier(), options.spin_us * 1000);
  return poller;
}

absl::StatusOr<std::unique_ptr<vm::StreamPolicy>> MakePolicy(Stream stream, const VmOptions& options) {
  CudaStreamRole role = CudaStreamRole::kCompute;
  if (stream.index() == vm::kHostToDeviceStreamIndex) role = CudaStreamRole::kHostToDevice;
  if (stream.index() == vm::kDeviceToHostStreamIndex) role = CudaStreamRole::kDeviceToHost;
  EventPoller* poller = options.synchronous ? nullptr : Poller(options);
  absl::StatusOr<std::unique_ptr<CudaStreamPolicy>> p = CudaStreamPolicy::Create(stream, role, &vm::ProcessVm(), poller);
  if (!p.ok()) return p.status();
  return std::unique_ptr<vm::StreamPolicy>(std::move(p).value());
}

}  // namespace

void RegisterCudaBackend() {
  static std::once_flag once;
  std::call_once(once, [] { vm::RegisterStreamPolicyFactory(DeviceType::kCUDA, MakePolicy); });
}

}  // namespace eagervm::device::cuda
