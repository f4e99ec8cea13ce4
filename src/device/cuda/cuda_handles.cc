#include "device/cuda/cuda_handles.h"

#include "device/cuda/cuda_status.h"

namespace eagervm::device::cuda {

absl::StatusOr<CudaStream> CudaStream::Create() {
  cudaStream_t s = nullptr;
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return CudaStream(s);
}

absl::StatusOr<CudaEvent> CudaEvent::Create() {
  cudaEvent_t e = nullptr;
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return CudaEvent(e);
}

}  // namespace eagervm::device::cuda
