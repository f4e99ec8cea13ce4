// The composition root's half for the VM: every backend this build has, its
// device count and stream-policy factory. The only file that names both the
// VM's registry and the backends (the layers below may not include each
// other; docs/architecture.md, "Layers").
#include "vm/streams/backends.h"

#include "device/cpu/cpu_backend.h"
#include "eagervm/device.h"

#ifdef EAGERVM_WITH_CUDA
#include "device/cuda/cuda_backend.h"
#endif

namespace eagervm::vm {

void InstallBackends(BackendRegistry& registry) {
  registry.Register(
      DeviceType::kCPU, [] { return 1; }, device::MakeCpuStreamPolicy);
#ifdef EAGERVM_WITH_CUDA
  registry.Register(DeviceType::kCUDA, CudaDeviceCount, device::cuda::MakeCudaStreamPolicy);
#endif
}

}  // namespace eagervm::vm
