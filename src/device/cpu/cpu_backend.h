// The CPU backend's stream-policy factory: what the composition root
// (src/runtime/backends.cc) registers for DeviceType::kCPU.
#ifndef EAGERVM_DEVICE_CPU_CPU_BACKEND_H_
#define EAGERVM_DEVICE_CPU_CPU_BACKEND_H_

#include <memory>

#include "absl/status/statusor.h"
#include "eagervm/stream.h"
#include "vm/streams/stream_policy.h"

namespace eagervm::vm {
class VmContext;
}

namespace eagervm::device {

// A vm::StreamPolicyFactory (vm/streams/backends.h): a CpuStreamPolicy whose
// CachingAllocator draws on the VM's CPU budget. Its compute runs inline on
// the scheduler thread when the VM is synchronous or computes there.
absl::StatusOr<std::unique_ptr<vm::StreamPolicy>> MakeCpuStreamPolicy(Stream stream,
                                                                      vm::VmContext& context);

}  // namespace eagervm::device

#endif  // EAGERVM_DEVICE_CPU_CPU_BACKEND_H_
