#include "device/cuda/scoped_device.h"

#include <cuda_runtime_api.h>

#include "device/cuda/cuda_status.h"

namespace eagervm::device::cuda {

ScopedDevice::ScopedDevice(int device) {
  int current = -1;
  cudaError_t e = cudaGetDevice(&current);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    current = -1;
  }
  if (current == device) return;
  e = cudaSetDevice(device);
  if (e != cudaSuccess) {
    status_ = CudaStatus(e, "cudaSetDevice");
    return;
  }
  previous_ = current;
}

ScopedDevice::~ScopedDevice() {
  if (previous_ < 0) return;
  if (cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace eagervm::device::cuda
