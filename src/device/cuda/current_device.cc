#include "device/cuda/current_device.h"

#include <cuda_runtime_api.h>

#include "device/cuda/cuda_status.h"

namespace eagervm::device::cuda {

absl::Status SetCurrentDevice(int device) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == device) return absl::OkStatus();
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  return absl::OkStatus();
}

}  // namespace eagervm::device::cuda
