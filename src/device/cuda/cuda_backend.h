// The CUDA backend's stream-policy factory: what the composition root
// (src/runtime/backends.cc) registers for DeviceType::kCUDA when CUDA is built.
#ifndef EAGERVM_DEVICE_CUDA_CUDA_BACKEND_H_
#define EAGERVM_DEVICE_CUDA_CUDA_BACKEND_H_

#include <memory>

#include "absl/status/statusor.h"
#include "eagervm/stream.h"
#include "vm/streams/stream_policy.h"

namespace eagervm::vm {
class VmContext;
}

namespace eagervm::device::cuda {

// A vm::StreamPolicyFactory (vm/streams/backends.h): a CudaStreamPolicy whose role
// (compute, host-to-device, device-to-host copies) follows the stream index.
// Asynchronous VMs share one EventPoller, created by the first call from the
// scheduler notifier of `context`.
absl::StatusOr<std::unique_ptr<vm::StreamPolicy>> MakeCudaStreamPolicy(Stream stream,
                                                                       vm::VmContext& context);

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_CUDA_BACKEND_H_
