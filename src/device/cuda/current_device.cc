#include "device/cuda/current_device.h"

#include <cuda_runtime_api.h>

#include "device/cuda/cuda_status.h"

namespace eagervm::device::cuda {

absl::Status SetCurrentDevice(int device) {
  thread_local int current = -1;
  if (current == device) return absl::OkStatus();
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  current = device;
  return absl::OkStatus();
}

}  // namespace eagervm::device::cuda
